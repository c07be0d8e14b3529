import { MODULE_ID } from "../constants.mjs";
import { t } from "../render.mjs";

/**
 * `renderCombatTracker`: a button in the tracker's header that opens the Verdict tracker.
 * @param {any} _app
 * @param {HTMLElement|any} html  an HTMLElement (v13) or jQuery (v12)
 */
export default function renderCombatTracker(_app, html) {
  const root = html instanceof HTMLElement ? html : html?.[0];
  if (!root || root.querySelector(".verdict-open-tracker")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "verdict-open-tracker inline-control icon fa-solid fa-scale-balanced";
  button.dataset.tooltip = t("VERDICT.Tracker.title");
  button.setAttribute("aria-label", t("VERDICT.Tracker.title"));
  button.addEventListener("click", () => game.modules?.get(MODULE_ID)?.api?.openTracker());
  (root.querySelector(".combat-tracker-header, header, .encounter-controls") ?? root).append(button);
}
