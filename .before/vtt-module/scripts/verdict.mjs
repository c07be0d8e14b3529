/**
 * Verdict: check resolution from a sidecar. Entry point: one hook, one handler file.
 * No rule is decided here; the sidecar answers and the module draws.
 */

import init from "./hooks/init.mjs";
import ready from "./hooks/ready.mjs";
import renderChatMessageHTML, { renderChatMessageV12 } from "./hooks/render-chat-message.mjs";
import { getActorSheetHeaderButtons, getHeaderControlsActorSheetV2 } from "./hooks/sheet-controls.mjs";
import getSceneControlButtons from "./hooks/scene-controls.mjs";
import renderCombatTracker from "./hooks/combat-tracker.mjs";
import refreshToken from "./hooks/refresh-token.mjs";
import updateActor from "./hooks/update-actor.mjs";
import renderTokenHUD from "./hooks/token-hud.mjs";

Hooks.once("init", () => {
  // v13 renders chat messages as HTMLElements; v12 passed jQuery to a hook v13 deprecates.
  if (Number(game.release?.generation ?? 13) >= 13) Hooks.on("renderChatMessageHTML", renderChatMessageHTML);
  else /** @type {any} */ (Hooks).on("renderChatMessage", renderChatMessageV12);
  init();
});
Hooks.once("ready", ready);
Hooks.on("getHeaderControlsActorSheetV2", getHeaderControlsActorSheetV2);
/** @type {any} */ (Hooks).on("getActorSheetHeaderButtons", getActorSheetHeaderButtons);
/** @type {any} */ (Hooks).on("getSceneControlButtons", getSceneControlButtons);
Hooks.on("renderCombatTracker", renderCombatTracker);
Hooks.on("refreshToken", refreshToken);
Hooks.on("updateActor", updateActor);
Hooks.on("renderTokenHUD", renderTokenHUD);
