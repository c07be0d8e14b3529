import { MODULE_ID } from "../constants.mjs";

const open = () => game.modules?.get(MODULE_ID)?.api?.openTracker();
const request = () => game.modules?.get(MODULE_ID)?.api?.prepareRequest();

/**
 * `getSceneControlButtons` (v13+: a record of controls, each with a record of tools): the tracker
 * (everyone) and the GM's roll request under the token controls.
 * @param {Record<string, {tools?: Record<string, object>}|undefined>} controls
 */
export default function getSceneControlButtons(controls) {
  const tokens = controls.tokens ?? controls.token;
  if (!tokens?.tools) return;
  const n = Object.keys(tokens.tools).length;
  tokens.tools["verdict-tracker"] = {
    name: "verdict-tracker", title: "VERDICT.Tracker.title", icon: "fa-solid fa-scale-balanced", button: true,
    visible: true, order: n + 1, onChange: open,
  };
  tokens.tools["verdict-request"] = {
    name: "verdict-request", title: "VERDICT.Request.prepare", icon: "fa-solid fa-bullhorn", button: true,
    visible: Boolean(game.user?.isGM), order: n + 2, onChange: request,
  };
}
