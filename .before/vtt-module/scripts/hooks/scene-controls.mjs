import { MODULE_ID } from "../constants.mjs";

const open = () => game.modules?.get(MODULE_ID)?.api?.openTracker();
const request = () => game.modules?.get(MODULE_ID)?.api?.prepareRequest();

/**
 * `getSceneControlButtons`: the tracker (everyone) and the GM's roll request under the token controls.
 * v13 passes a record of controls with records of tools; v12 an array of controls with arrays of tools.
 * @param {any} controls
 */
export default function getSceneControlButtons(controls) {
  const tracker = { name: "verdict-tracker", title: "VERDICT.Tracker.title", icon: "fa-solid fa-scale-balanced", button: true, visible: true };
  const req = { name: "verdict-request", title: "VERDICT.Request.prepare", icon: "fa-solid fa-bullhorn", button: true, visible: Boolean(game.user?.isGM) };
  if (Array.isArray(controls)) {
    const tokens = controls.find((c) => c.name === "token");
    tokens?.tools.push({ ...tracker, onClick: open }, { ...req, onClick: request });
    return;
  }
  const tokens = controls.tokens ?? controls.token;
  if (!tokens?.tools) return;
  const n = Object.keys(tokens.tools).length;
  tokens.tools[tracker.name] = { ...tracker, order: n + 1, onChange: open };
  tokens.tools[req.name] = { ...req, order: n + 2, onChange: request };
}
