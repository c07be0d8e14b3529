/**
 * A drawn card's controls: its follow-up buttons and forms, the GM's removal from the table's list, applying
 * its result to the tokens, and the next roll of an extended check.
 */

import { MODULE_ID } from "./constants.mjs";
import { isRelay } from "./client.mjs";
import { sendFrame } from "./relay/relay.mjs";
import { EXTENDED, extendedOf, followupOf } from "./lib/systems.mjs";
import { complicationChoices, offerOf, openFollowups } from "./lib/card-model.mjs";
import { make } from "./lib/dom.mjs";
import { t } from "./render.mjs";
import { RollDialog } from "./apps/roll-dialog.mjs";
import { syncActor } from "./tokens.mjs";
import { markUnverified } from "./chat-ledger.mjs";

/**
 * Wire a drawn card's controls for this viewer: those it may not use removed (or, for a GM browser without
 * the GM key, disabled with the reason), an unverified card marked.
 * @param {HTMLElement} root
 * @param {Record<string, any>} card
 * @param {boolean} ok
 */
export function attach(root, card, ok) {
  const api = game.modules?.get(MODULE_ID)?.api;
  const isGM = Boolean(game.user?.isGM);
  const me = game.user?.id;
  if (!ok) markUnverified(root);
  if (!isGM) root.querySelectorAll("[data-gm-only]").forEach((el) => el.remove());
  const blocked = isGM ? api?.client.gmBlocked() ?? null : null;
  if (blocked) {
    // A GM browser without the GM key cannot act as the GM: say why instead of failing on click.
    root.querySelectorAll("[data-gm-only] button").forEach((b) => {
      /** @type {HTMLButtonElement} */ (b).disabled = true;
      b.setAttribute("title", blocked);
      /** @type {HTMLElement} */ (b).dataset.tooltip = blocked;
    });
  }
  const mayFollow = ok && (isGM || (card.user ? card.user === me : false));
  if (!mayFollow) root.querySelectorAll("[data-roller-only]").forEach((el) => el.remove());
  /**
   * Send a follow-up, with the card's buttons (those matching `buttons`) disabled until it is answered.
   * @param {Record<string, any>} action
   * @param {string} [buttons]
   */
  const send = async (action, buttons = "button") => {
    const toggle = (/** @type {boolean} */ off) =>
      root.querySelectorAll(buttons).forEach((b) => ((/** @type {HTMLButtonElement} */ (b)).disabled = off));
    toggle(true);
    try {
      await api?.client.follow(card.checkId, action);
    } catch (err) {
      toggle(false);
      ui.notifications?.error(`${t("VERDICT.Error.follow")}: ${/** @type {Error} */ (err).message}`);
    }
  };
  root.querySelectorAll("[data-verdict-follow]").forEach((btn) => {
    btn.addEventListener("click", (ev) => {
      ev.preventDefault();
      const action = JSON.parse(/** @type {HTMLElement} */ (btn).dataset.verdictFollow ?? "{}");
      if (action.action === "extended_next") openExtendedNext(card);
      else send(action, "[data-verdict-follow]");
    });
  });
  // The card's forms name the follow-up they send and the field their selection fills (the card model's
  // choose and bargain); the follow-up's other parameters are left unset for the sidecar to fill.
  const formAction = (/** @type {HTMLElement} */ form, /** @type {any} */ value) => {
    const { action = "", field = "" } = form.dataset;
    const params = followupOf(action)?.params ?? [];
    return { action, ...Object.fromEntries(params.map((p) => [p.name, null])), [field]: value };
  };
  root.querySelector("[data-verdict-choose]")?.addEventListener("click", (ev) => {
    ev.preventDefault();
    const form = /** @type {HTMLElement} */ (root.querySelector(".verdict-choose"));
    const chosen = [...form.querySelectorAll("input[type=checkbox]:checked")].map((el) => /** @type {HTMLInputElement} */ (el).value);
    send(formAction(form, chosen));
  });
  root.querySelector("[data-verdict-bargain]")?.addEventListener("click", (ev) => {
    ev.preventDefault();
    const form = /** @type {HTMLElement} */ (root.querySelector(".verdict-bargain"));
    const picked = /** @type {HTMLSelectElement|null} */ (form.querySelector("select"))?.value;
    if (picked) send(formAction(form, picked));
  });
  const removal = /** @type {HTMLElement|null} */ (root.querySelector(".verdict-remove-complication"));
  if (removal && isGM) {
    const select = /** @type {HTMLSelectElement} */ (removal.querySelector("select[name=remove-complication]"));
    const confirm = /** @type {HTMLButtonElement} */ (removal.querySelector("[data-verdict-remove-complication]"));
    // The scene's list comes from this GM's own snapshot, drawn afresh whenever the list is opened.
    const fill = () => {
      const chosen = select.value;
      const choices = complicationChoices(/** @type {any} */ (card), api?.client.snapshot);
      select.replaceChildren(...choices.map((c) => {
        const option = make(select, "option");
        option.value = c.value;
        // the hidden mark first, so that a long text cut off at the select's edge never takes it along
        option.textContent = c.hidden ? `(${t("VERDICT.Tracker.hidden")}) ${c.text}` : c.text;
        option.title = option.textContent;
        option.selected = c.value === chosen;
        return option;
      }));
      if (!choices.length) {
        const none = make(select, "option");
        none.value = "";
        none.textContent = t("VERDICT.Follow.removeComplicationNone");
        select.append(none);
      }
      if (!blocked) confirm.disabled = !choices.length;
    };
    fill();
    select.addEventListener("focus", fill);
    confirm.addEventListener("click", (ev) => {
      ev.preventDefault();
      // The open follow-up that takes a value from the table (the GM's removal of a complication).
      const open = openFollowups(/** @type {any} */ (card)).find((o) => offerOf(o)?.how === "table");
      const param = open ? offerOf(open)?.param : null;
      if (select.value && open && param) send({ action: open.action, [param.name]: select.value });
    });
  }
  root.querySelector("[data-verdict-apply]")?.addEventListener("click", async (ev) => {
    ev.preventDefault();
    const ids = [card.actor, card.target].filter((id) => typeof id === "string" && id);
    if (!isRelay()) {
      // Only the relay writes tokens: ask it.
      sendFrame("apply", { actors: ids });
      ui.notifications?.info(t("VERDICT.Card.applyRelayed"));
      return;
    }
    const snap = api?.client.snapshot;
    for (const id of ids) {
      if (snap?.actors?.[id]) await syncActor(id, snap.actors[id]);
    }
    ui.notifications?.info(t("VERDICT.Card.applied"));
  });
}

/** @param {Record<string, any>} card */
function openExtendedNext(card) {
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  const x = card.extended ? client?.snapshot?.extended?.[card.extended] : null;
  const system = EXTENDED.includes(card.result?.system) ? card.result.system : EXTENDED[0];
  const joins = extendedOf(system);
  if (!joins) return;
  // The extended check fills its fields of the roll (from the table's entry; without one, the roll's pool).
  const filled = Object.entries(joins.fill).map(([field, from]) => [field, x?.[from] ?? card.result?.actor?.pool?.[field] ?? 0]);
  new RollDialog({
    system,
    actor: card.actor ?? null,
    values: { ...joins.values, ...Object.fromEntries(filled) },
    locked: ["system", ...Object.keys(joins.fill)],
    label: card.label ?? x?.name ?? null,
    extended: card.extended ?? null,
  }).render({ force: true });
}
