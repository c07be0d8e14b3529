import { MODULE_ID } from "../constants.mjs";
import { elementOf, make } from "../lib/dom.mjs";
import { t } from "../render.mjs";

/**
 * `renderCombatTracker`: a button in the tracker's header that opens the Verdict tracker. The tracker may
 * be popped out into another window: the button is made by the tracker's own document.
 * @param {any} _app
 * @param {HTMLElement} html
 */
export default function renderCombatTracker(_app, html) {
  const root = elementOf(html);
  if (!root || root.querySelector(".verdict-open-tracker")) return;
  const button = make(root, "button");
  button.type = "button";
  button.className = "verdict-open-tracker inline-control icon fa-solid fa-scale-balanced";
  button.dataset.tooltip = t("VERDICT.Tracker.title");
  button.setAttribute("aria-label", t("VERDICT.Tracker.title"));
  button.addEventListener("click", () => game.modules?.get(MODULE_ID)?.api?.openTracker());
  (root.querySelector(".combat-tracker-header, header, .encounter-controls") ?? root).append(button);
}
