import { MODULE_ID } from "../constants.mjs";

/**
 * `renderTokenHUD`: a "Verdict roll" button in the token HUD's left column, for the token's actor.
 * @param {foundry.applications.hud.TokenHUD} hud
 * @param {HTMLElement|JQuery} html  an element in v13, jQuery in v12
 */
export default function renderTokenHUD(hud, html) {
  const root = html instanceof HTMLElement ? html : /** @type {HTMLElement} */ (/** @type {any} */ (html)[0]);
  const column = root?.querySelector(".col.left");
  const actor = /** @type {any} */ (hud).actor ?? /** @type {any} */ (hud).object?.actor ?? null;
  if (!column || !actor?.isOwner || column.querySelector("[data-action='verdictRoll']")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.classList.add("control-icon");
  button.dataset.action = "verdictRoll";
  button.dataset.tooltip = game.i18n?.localize("VERDICT.Sheet.roll") ?? "";
  button.innerHTML = '<i class="fa-solid fa-dice-d20"></i>';
  button.addEventListener("click", () => game.modules?.get(MODULE_ID)?.api?.roll({ actor: actor.id }));
  column.append(button);
}
