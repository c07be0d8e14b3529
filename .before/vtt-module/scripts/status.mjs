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
  const state = status.state in LABEL ? status.state : "offline";
  el.className = `verdict-status state-${state}`;
  el.dataset.state = state;
  /** @type {HTMLElement} */ (el.querySelector(".label")).textContent = `Verdict: ${t(/** @type {Record<string, string>} */ (LABEL)[state])}`;
  /** @type {HTMLElement} */ (el.querySelector(".reason")).textContent = status.reason && state !== "open" ? status.reason : "";
  el.dataset.tooltip = status.reason ?? "";
}
