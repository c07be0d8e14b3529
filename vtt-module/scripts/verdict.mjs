/**
 * Verdict: check resolution from a sidecar. Entry point: one hook, one handler file.
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

Hooks.once("init", init);
Hooks.once("setup", setup);
Hooks.once("ready", ready);
Hooks.on("canvasReady", canvasReady);
Hooks.on("renderChatMessageHTML", renderChatMessageHTML);
Hooks.on("getHeaderControlsActorSheetV2", getHeaderControlsActorSheetV2);
/** @type {any} */ (Hooks).on("getActorSheetHeaderButtons", getActorSheetHeaderButtons);
/** @type {any} */ (Hooks).on("getSceneControlButtons", getSceneControlButtons);
Hooks.on("renderCombatTracker", /** @type {any} */ (renderCombatTracker));
Hooks.on("refreshToken", refreshToken);
Hooks.on("updateActor", updateActor);
Hooks.on("renderTokenHUD", /** @type {any} */ (renderTokenHUD));
Hooks.on("userConnected", userConnected);
Hooks.on("createChatMessage", /** @type {any} */ (noteNewCard));
/** @type {any} */ (Hooks).once("diceSoNiceReady", registerDicePresets);
/** @type {any} */ (Hooks).on("hotbarDrop", hotbarDrop);
/** @type {any} */ (Hooks).on("renderActorSheet", renderSheetSection);
/** @type {any} */ (Hooks).on("renderActorSheetV2", renderSheetSection);
