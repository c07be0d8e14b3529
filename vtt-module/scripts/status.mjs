/** The connection status indicator: connected / reconnecting / offline, with the reason as a tooltip. */

import { t } from "./render.mjs";

const LABEL = {
  open: "VERDICT.Status.connected",
  connecting: "VERDICT.Status.connecting",
  reconnecting: "VERDICT.Status.reconnecting",
  offline: "VERDICT.Status.offline",
  idle: "VERDICT.Status.offline",
};

/**
 * Draw (or update) the indicator.
 * @param {{state: string, reason: string|null}} status
 */
export function showStatus(status) {
  let el = document.getElementById("verdict-status");
  if (!el) {
    el = document.createElement("div");
    el.id = "verdict-status";
    el.setAttribute("role", "status");
    el.innerHTML = `<i class="fa-solid fa-circle"></i><span class="label"></span><span class="reason"></span>`;
    (document.getElementById("interface") ?? document.body).append(el);
  }
  dock(el);
  const state = status.state in LABEL ? status.state : "offline";
  el.className = `verdict-status state-${state}${el.classList.contains("verdict-docked") ? " verdict-docked" : ""}`;
  el.dataset.state = state;
  /** @type {HTMLElement} */ (el.querySelector(".label")).textContent = `Verdict: ${t(/** @type {Record<string, string>} */ (LABEL)[state])}`;
  /** @type {HTMLElement} */ (el.querySelector(".reason")).textContent = status.reason && state !== "open" ? status.reason : "";
  el.dataset.tooltip = status.reason ?? "";
}

/**
 * The indicator sits at the top of the player list (Foundry's own corner), not on top of it: docked into
 * the list's box where there is one (again after the list was drawn anew without it), else in the corner.
 * @param {HTMLElement} el
 */
function dock(el) {
  const list = document.getElementById("players");
  const box = /** @type {HTMLElement|null} */ (list?.closest("aside") ?? list);
  if (!box) {
    el.classList.remove("verdict-docked");
    return;
  }
  if (el.parentElement !== box || box.firstElementChild !== el) box.prepend(el);
  el.classList.add("verdict-docked");
}
