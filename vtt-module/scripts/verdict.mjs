/**
 * Verdict: check resolution from a sidecar. Entry point: every Foundry hook the module listens to is bound
 * here, each to one handler: the page's own hooks to a file each in hooks/, a feature's hooks (chat cards,
 * the hotbar, the sheet section) to the file whose job that feature is.
 * No rule is decided here; the sidecar answers and the module draws. Foundry v13 and v14.
 */

import init from "./hooks/init.mjs";
import setup from "./hooks/setup.mjs";
import ready from "./hooks/ready.mjs";
import canvasReady from "./hooks/canvas-ready.mjs";
import renderChatMessageHTML from "./hooks/render-chat-message.mjs";
import { getActorSheetHeaderButtons, getHeaderControlsActorSheetV2 } from "./hooks/sheet-controls.mjs";
import getSceneControlButtons from "./hooks/scene-controls.mjs";
import renderCombatTracker from "./hooks/combat-tracker.mjs";
import refreshToken from "./hooks/refresh-token.mjs";
import updateActor from "./hooks/update-actor.mjs";
import renderTokenHUD from "./hooks/token-hud.mjs";
import userConnected from "./hooks/user-connected.mjs";
import { noteNewCard, registerDicePresets } from "./chat.mjs";
import { hotbarDrop } from "./api.mjs";
import { renderSheetSection } from "./sheet-section.mjs";

/**
 * `Hooks` for the hooks Foundry's type declarations do not name, or name with other arguments (v1 sheets,
 * Dice So Nice, the hotbar): each handler checks what it is given.
 * @typedef {{on(hook: string, fn: (...args: never[]) => unknown): number, once(hook: string, fn: (...args: never[]) => unknown): number}} LooseHooks
 */
const looseHooks = /** @type {LooseHooks} */ (/** @type {unknown} */ (Hooks));

Hooks.once("init", init);
Hooks.once("setup", setup);
Hooks.once("ready", ready);
Hooks.on("canvasReady", canvasReady);
Hooks.on("renderChatMessageHTML", renderChatMessageHTML);
Hooks.on("getHeaderControlsActorSheetV2", getHeaderControlsActorSheetV2);
looseHooks.on("getActorSheetHeaderButtons", getActorSheetHeaderButtons);
looseHooks.on("getSceneControlButtons", getSceneControlButtons);
looseHooks.on("renderCombatTracker", renderCombatTracker);
Hooks.on("refreshToken", refreshToken);
Hooks.on("updateActor", updateActor);
looseHooks.on("renderTokenHUD", renderTokenHUD);
Hooks.on("userConnected", userConnected);
looseHooks.on("createChatMessage", noteNewCard);
looseHooks.once("diceSoNiceReady", registerDicePresets);
looseHooks.on("hotbarDrop", hotbarDrop);
looseHooks.on("renderActorSheet", renderSheetSection);
looseHooks.on("renderActorSheetV2", renderSheetSection);
