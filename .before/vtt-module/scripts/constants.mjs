/** Names shared by the module's parts. */

export const MODULE_ID = "verdict";
export const SOCKET = `module.${MODULE_ID}`;
export const VERSION = "0.1.0";
export const CLIENT_NAME = `foundry-vtt/verdict ${VERSION}`;
export const TEMPLATES = `modules/${MODULE_ID}/templates`;

/** Token status effects the module registers (Foundry core icons, so nothing to ship). */
export const STATUS = {
  condition: { id: "verdict-condition", img: "icons/svg/daze.svg" },
  wound: { id: "verdict-wound", img: "icons/svg/blood.svg" },
  scratch: { id: "verdict-scratch", img: "icons/svg/downgrade.svg" },
  takenDown: { id: "verdict-taken-down", img: "icons/svg/skull.svg" },
};
