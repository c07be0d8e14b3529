import { MODULE_ID } from "../constants.mjs";
import { RollDialog } from "../apps/roll-dialog.mjs";
import { syncActor } from "../tokens.mjs";
import { renderCard, t } from "../render.mjs";
import { FIELDS } from "../lib/systems.mjs";
import { partValues } from "../lib/gather.mjs";
import { elementOf, fromMarkup, make } from "../lib/dom.mjs";
import { complicationChoices } from "../lib/card-model.mjs";
import { isRelay } from "../client.mjs";

/**
 * `renderChatMessageHTML` (v13+): decorate Verdict cards for this viewer and attach their listeners.
 * Foundry calls it on the message's element before the chat log (or a popped-out log, in another
 * window) inserts it: nothing here depends on the element being in a document yet.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} element
 */
export default function renderChatMessageHTML(message, element) {
  const html = elementOf(element);
  if (!html) return;
  const card = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "card"));
  if (card) decorateCard(message, html, card);
  const request = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "request"));
  if (request) decorateRequest(message, html, request);
  const trace = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "trace"));
  if (trace) {
    redraws.set(trace.checkId, () => decorateTrace(html, trace));
    decorateTrace(html, trace);
  }
}

/**
 * A blind roll's trace: the roller's browser adds the roll's label from its own reply (the document
 * holds no label, since every client receives every chat message).
 * @param {HTMLElement} html
 * @param {Record<string, any>} trace
 */
function decorateTrace(html, trace) {
  const label = game.modules?.get(MODULE_ID)?.api?.client.mine.get(trace.checkId)?.label;
  const header = html.querySelector(".verdict-trace .verdict-card-header");
  if (!label || !header || header.querySelector(".verdict-trace-label")) return;
  const h = make(header, "h3");
  h.className = "verdict-trace-label";
  h.textContent = String(label);
  header.append(h);
}

/**
 * Is the card backed by the sidecar's ledger as far as this client knows? A card not written by a GM
 * user, or whose faces differ from what the ledger reported to this client, is not.
 * @param {ChatMessage.Implementation} message
 * @param {Record<string, any>} card
 * @returns {boolean}
 */
export function verified(message, card) {
  const author = /** @type {any} */ (message).author ?? /** @type {any} */ (message).user;
  // A self roll's card is written by its roller, and only as a shell: what it shows comes from the
  // roller's own connection, never from the document.
  const ownShell = card.mode === "self" && card.shell && author?.id && author.id === card.user;
  if (!author?.isGM && !ownShell) return false;
  if (!card.checkId || typeof card.seq !== "number") return false;
  const known = game.modules?.get(MODULE_ID)?.api?.client.known.get(card.checkId);
  if (known !== undefined && !card.redacted && known !== JSON.stringify(card.result?.dice ?? [])) return false;
  return true;
}

/** @type {Map<string, () => void>} check id -> redraw this viewer's copy of its card (the newest element) */
const redraws = new Map();

/**
 * This viewer's own copy of a card's check: a GM's from its own connection, the roller's from the
 * replies to their requests. Null when this viewer has none.
 * @param {Record<string, any>} card
 * @returns {Record<string, any>|null}
 */
function ownCopy(card) {
  const api = game.modules?.get(MODULE_ID)?.api;
  if (game.user?.isGM) {
    const full = api?.cards?.fullMsg.get(card.checkId);
    if (full?.result) return full;
  }
  if (card.user && card.user === game.user?.id) {
    const mine = api?.client.mine.get(card.checkId);
    if (mine?.result) return mine;
  }
  return null;
}

/**
 * Keep the drawn card in step with this viewer's own copy when a reply or broadcast brings a newer one.
 * @param {import("../client.mjs").VerdictClient} client
 */
export function watchCopies(client) {
  client.on("message", (/** @type {Record<string, any>} */ msg) => {
    if ((msg.type === "rolled" || msg.type === "followed") && typeof msg.check === "string") setTimeout(() => redraws.get(msg.check)?.(), 0);
  });
}

/**
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 * @param {Record<string, any>} card
 */
function decorateCard(message, html, card) {
  const api = game.modules?.get(MODULE_ID)?.api;
  const isGM = Boolean(game.user?.isGM);
  const ok = verified(message, card);
  let root = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-card"));
  if (!root) return;
  const client = api?.client;
  /**
   * Draw this viewer's own copy in place of what the document holds (a player-safe copy or a shell). The
   * copy is never written to the shared document. Swapped inside the message's element, whether or not the
   * chat log has inserted it yet.
   * @param {Record<string, any>} copy
   */
  const swap = (copy) => {
    const entry = { ...card, result: copy.result, label: copy.label ?? card.label ?? null, redacted: false, shell: false };
    renderCard(/** @type {any} */ (entry), { isGM, verified: ok }).then((markup) => {
      const fresh = fromMarkup(html, markup);
      if (fresh && root && root.parentNode && html.contains(root)) {
        root.replaceWith(fresh);
        root = fresh;
        attach(message, fresh, entry, ok);
      }
    }).catch((err) => console.error(`${MODULE_ID} | drawing this viewer's copy of a card failed`, err));
  };
  if (card.redacted || card.shell) {
    const redraw = () => {
      const copy = ownCopy(card);
      if (copy) swap(copy);
    };
    redraws.set(card.checkId, redraw);
    const copy = ownCopy(card);
    if (copy) swap(copy);
    else if (card.shell && client && (isGM ? client.own : card.user === game.user?.id)) {
      // A shell this viewer may read but did not hear rolled (a reload, a later join): ask the ledger.
      client.verify(card.checkId).then((reply) => {
        if (reply.found && reply.result) swap({ result: reply.result, label: null });
      }).catch(() => {});
    }
  }
  attach(message, root, card, ok);
  // Cards this client has not seen rolled: ask the ledger, and mark the card if it does not back it.
  if (ok && client && !client.known.has(card.checkId) && client.status.state === "open") {
    client.verify(card.checkId).then((reply) => {
      const faces = reply.result ? JSON.stringify(reply.result.dice ?? []) : null;
      if (faces) client.known.set(card.checkId, faces);
      const differs = faces !== null && !card.redacted && faces !== JSON.stringify(card.result?.dice ?? []);
      if (!reply.found || differs) {
        const el = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-card"));
        if (el) markUnverified(el);
      }
    }).catch(() => {});
  }
}

/** @param {HTMLElement} root */
function markUnverified(root) {
  root.classList.add("unverified");
  root.querySelectorAll("[data-roller-only], [data-gm-only]").forEach((el) => el.remove());
  if (root.querySelector(".verdict-unverified")) return;
  const badge = make(root, "p");
  badge.className = "verdict-unverified";
  badge.innerHTML = `<i class="fa-solid fa-triangle-exclamation"></i> ${t("VERDICT.Card.unverified")}`;
  root.prepend(badge);
}

/**
 * @param {ChatMessage.Implementation} _message
 * @param {HTMLElement} root
 * @param {Record<string, any>} card
 * @param {boolean} ok
 */
function attach(_message, root, card, ok) {
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
  root.querySelector("[data-verdict-choose]")?.addEventListener("click", (ev) => {
    ev.preventDefault();
    const flairs = [...root.querySelectorAll(".verdict-choose input[name=flair]:checked")].map((el) => /** @type {HTMLInputElement} */ (el).value);
    send({ action: "flairs_choose", flairs });
  });
  root.querySelector("[data-verdict-bargain]")?.addEventListener("click", (ev) => {
    ev.preventDefault();
    const trial = /** @type {HTMLSelectElement|null} */ (root.querySelector("select[name=bargain-trial]"))?.value;
    if (trial) send({ action: "flairs_bargain", trial, dice: null });
  });
  const removal = /** @type {HTMLElement|null} */ (root.querySelector(".verdict-remove-complication"));
  if (removal && isGM) {
    const select = /** @type {HTMLSelectElement} */ (removal.querySelector("select[name=remove-complication]"));
    const confirm = /** @type {HTMLButtonElement} */ (removal.querySelector("[data-verdict-remove-complication]"));
    // The scene's complications come from this GM's own snapshot, drawn afresh whenever the list is opened.
    const fill = () => {
      const chosen = select.value;
      const choices = complicationChoices(card.result ?? {}, /** @type {any} */ (card), api?.client.snapshot);
      select.replaceChildren(...choices.map((c) => {
        const option = make(select, "option");
        option.value = c.value;
        option.textContent = c.hidden ? `${c.text} (${t("VERDICT.Tracker.hidden")})` : c.text;
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
      if (select.value) send({ action: "challenge_remove_complication", complication: select.value });
    });
  }
  root.querySelector("[data-verdict-apply]")?.addEventListener("click", async (ev) => {
    ev.preventDefault();
    const ids = [card.actor, card.target].filter((id) => typeof id === "string" && id);
    if (!isRelay()) {
      // Only the relay writes tokens: ask it.
      game.socket?.emit(`module.${MODULE_ID}`, { t: "apply", actors: ids });
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
  new RollDialog({
    system: "boons",
    actor: card.actor ?? null,
    values: { check_type: "simple", trial: x?.trial ?? card.result?.actor?.pool?.trial ?? 0, crisis: x?.crisis ?? 0 },
    locked: ["system", "trial", "crisis"],
    label: card.label ?? x?.name ?? null,
    extended: card.extended ?? null,
  }).render({ force: true });
}

/**
 * Request cards: the Roll button opens the invited player's dialog, prefilled and locked. On a gathered
 * check each part has its own button, shown only to the user who rolls that part.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 * @param {Record<string, any>} request
 */
function decorateRequest(message, html, request) {
  const me = game.user?.id ?? "";
  const api = game.modules?.get(MODULE_ID)?.api;
  const locked = ["system", ...(FIELDS[request.system] ?? []).map((f) => f.name)];
  if (request.gather) {
    html.querySelectorAll("[data-verdict-part-roll]").forEach((el) => {
      const btn = /** @type {HTMLElement} */ (el);
      const part = btn.dataset.verdictPartRoll ?? "";
      if (btn.dataset.user !== me || request.partRolls?.[part]) {
        btn.remove();
        return;
      }
      btn.addEventListener("click", (ev) => {
        ev.preventDefault();
        new RollDialog({
          system: request.system,
          actor: game.user?.character?.id ?? null,
          values: partValues(request.check, part),
          locked,
          mode: request.mode,
          label: request.label ? `${request.label}: ${partName(request, part)}` : partName(request, part),
          request: message.id,
          gather: request.gather,
          part,
        }).render({ force: true });
      });
    });
    return;
  }
  const invited = request.users.includes(me) && !request.rolls?.[me];
  if (!invited) html.querySelectorAll("[data-request-roll]").forEach((el) => el.remove());
  html.querySelector("[data-verdict-request-roll]")?.addEventListener("click", (ev) => {
    ev.preventDefault();
    new RollDialog({
      system: request.system,
      actor: game.user?.character?.id ?? null,
      values: request.values,
      locked,
      mode: request.mode,
      label: request.label,
      request: message.id,
      onRolled: (rolled) => api?.requestRolled(/** @type {string} */ (message.id), rolled),
    }).render({ force: true });
  });
}

/**
 * A part's display name: a `boons` side is named by its role, a `flairs` participant by their name.
 * @param {Record<string, any>} request
 * @param {string} part
 */
function partName(request, part) {
  return request.system === "boons" ? t(`VERDICT.Request.part.${part}`) : part;
}
