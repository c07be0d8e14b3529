// Foundry v14 differences from the v13 types the checker uses (fvtt-types has no v14 release).
// Declarations only: the module's code handles both generations at run time.

declare global {
  namespace CONFIG {
    interface Queries {
      /** A user's request, answered by the relay's browser alone (client.mjs). */
      "verdict.request": (data: { secret: string; msg: Record<string, unknown> }) => Promise<Record<string, unknown>>;
      /** Server mode: a user's own key, answered by the relay to that user alone. */
      "verdict.userKey": (data: { secret: string }) => Promise<{ key?: string; code?: string }>;
    }
  }

  /** A status entry as the module registers it; `hud: false` keeps it off the token HUD. */
  interface VerdictStatusEntry {
    id: string;
    name: string;
    img: string;
    hud?: boolean;
  }

  /**
   * v14: `CONFIG.statusEffects` may be an object keyed by status id (v13: an array of entries, the shape
   * the v13 types declare). tokens.mjs reads it as this union.
   */
  type VerdictStatusEffects = VerdictStatusEntry[] | Record<string, VerdictStatusEntry>;
}

export {};
