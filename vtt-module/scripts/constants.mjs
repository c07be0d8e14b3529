/** Names shared by the module's parts. */

export const MODULE_ID = "verdict";
export const SOCKET = `module.${MODULE_ID}`;
export const VERSION = "0.1.0";
export const CLIENT_NAME = `foundry-vtt/verdict ${VERSION}`;
export const TEMPLATES = `modules/${MODULE_ID}/templates`;

/** Token status effects the module registers (their icons are the module's own: see tokens.mjs). */
export const STATUS = {
  condition: { id: "verdict-condition" },
  wound: { id: "verdict-wound" },
  scratch: { id: "verdict-scratch" },
  takenDown: { id: "verdict-taken-down" },
};
