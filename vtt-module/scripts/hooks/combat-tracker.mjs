import { MODULE_ID } from "../constants.mjs";
import { elementOf, make } from "../lib/dom.mjs";
import { t } from "../render.mjs";

/**
 * `renderCombatTracker`: a button in the tracker's header that opens the Verdict tracker. The tracker may
 * be popped out into another window: the button is made by the tracker's own document, and the hook then gets
 * the whole window, whose frame header (`header.window-header`) comes before the tracker's: the button goes in
 * the tracker's own header, never the frame's title bar.
 * @param {unknown} _app
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
  const place = root.querySelector(".combat-tracker-header")
    ?? root.querySelector(".encounter-controls")
    ?? root.querySelector("header:not(.window-header)")
    ?? root.querySelector(".window-content")
    ?? root;
  place.append(button);
}
