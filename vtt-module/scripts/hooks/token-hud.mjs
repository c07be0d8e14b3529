import { MODULE_ID } from "../constants.mjs";
import { elementOf, make } from "../lib/dom.mjs";
import { actorKey } from "../documents.mjs";

/**
 * `renderTokenHUD`: a "Verdict roll" button in the token HUD's left column, for the token's actor (an unlinked
 * token's synthetic actor: the roll, its markers and its state are that token's).
 * @param {foundry.applications.hud.TokenHUD} hud
 * @param {HTMLElement} html
 */
export default function renderTokenHUD(hud, html) {
  const root = elementOf(html);
  const column = root?.querySelector(".col.left");
  /** @typedef {(import("../documents.mjs").ActorLike & {isOwner?: boolean})|null|undefined} Owned */
  const held = /** @type {{actor?: Owned, object?: {actor?: Owned}|null}} */ (/** @type {unknown} */ (hud));
  const actor = held.actor ?? held.object?.actor ?? null;
  if (!column || !actor?.isOwner || column.querySelector("[data-action='verdictRoll']")) return;
  const label = game.i18n?.localize("VERDICT.Sheet.roll") ?? "";
  const button = make(column, "button");
  button.type = "button";
  button.classList.add("control-icon");
  button.dataset.action = "verdictRoll";
  button.dataset.tooltip = label;
  button.setAttribute("aria-label", label);
  button.innerHTML = '<i class="fa-solid fa-dice-d20" aria-hidden="true"></i>';
  button.addEventListener("click", () => game.modules?.get(MODULE_ID)?.api?.roll({ actor: actorKey(actor) }));
  column.append(button);
}
