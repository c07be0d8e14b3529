import { MODULE_ID } from "../constants.mjs";
import { RollDialog } from "../apps/roll-dialog.mjs";
import { syncActor } from "../tokens.mjs";
import { renderCard, t } from "../render.mjs";
import { FIELDS } from "../lib/systems.mjs";
import { partValues } from "../lib/gather.mjs";

/**
 * `renderChatMessageHTML` (v13): decorate Verdict cards for this viewer and attach their listeners.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 */
export default function renderChatMessageHTML(message, html) {
  const card = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "card"));
  if (card) decorateCard(message, html, card);
  const request = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "request"));
  if (request) decorateRequest(message, html, request);
}

/**
 * `renderChatMessage` (v12): the same, from a jQuery object.
 * @param {ChatMessage.Implementation} message
 * @param {any} jq
 */
export function renderChatMessageV12(message, jq) {
  const html = jq?.[0] ?? jq;
  if (html instanceof HTMLElement) renderChatMessageHTML(message, html);
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
  if (!author?.isGM) return false;
  if (!card.checkId || typeof card.seq !== "number") return false;
  const known = game.modules?.get(MODULE_ID)?.api?.client.known.get(card.checkId);
  if (known !== undefined && !card.redacted && known !== JSON.stringify(card.result?.dice ?? [])) return false;
  return true;
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
  const full = isGM ? api?.cards?.full.get(card.checkId) : undefined;
  const root = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-card"));
  if (!root) return;
  if (full && card.redacted) {
    // The GM's own view: the full result, never written to the shared document.
    renderCard(/** @type {any} */ ({ ...card, result: full, redacted: false }), { isGM, verified: ok }).then((markup) => {
      const tmp = document.createElement("div");
      tmp.innerHTML = markup;
      const fresh = /** @type {HTMLElement|null} */ (tmp.firstElementChild);
      if (fresh && root.isConnected) {
        root.replaceWith(fresh);
        attach(message, fresh, card, ok);
      }
    });
  }
  attach(message, root, card, ok);
  // Cards this client has not seen rolled: ask the ledger, and mark the card if it does not back it.
  const client = api?.client;
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
  const badge = document.createElement("p");
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
  root.querySelector("[data-verdict-apply]")?.addEventListener("click", async (ev) => {
    ev.preventDefault();
    const snap = api?.client.snapshot;
    for (const id of [card.actor, card.target]) {
      if (id && snap?.actors?.[id]) await syncActor(id, snap.actors[id]);
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
