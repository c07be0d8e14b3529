// Declarations the type checker needs: the module's settings, flags and API. Not loaded by Foundry.
import type { VerdictApi } from "../scripts/api.mjs";

declare global {
  interface SettingConfig {
    "verdict.url": string;
    "verdict.table": string;
    "verdict.playerKey": string;
    "verdict.gmKey": string;
    "verdict.mode": string;
    "verdict.system": string;
    "verdict.mapping": Record<string, Record<string, string>>;
    "verdict.skillsPath": string;
  }
  interface FlagConfig {
    Actor: {
      verdict?: {
        defaults?: Record<string, Record<string, unknown>>;
      };
    };
    ChatMessage: {
      verdict?: {
        card?: Record<string, unknown>;
        request?: Record<string, unknown>;
        trace?: { checkId: string; user: string };
      };
    };
  }
  interface ModuleConfig {
    verdict: { api: VerdictApi };
  }
}

export {};
