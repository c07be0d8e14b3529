/**
 * Chat cards as every browser draws them: each viewer's own copy drawn in place of what the document holds
 * (a player-safe copy or a shell), the controls this viewer may use, an unverified card marked, the dice
 * thrown. The documents themselves are written by the relay alone (relay/writer.mjs); nothing here writes a
 * chat message.
 */

import { MODULE_ID } from "./constants.mjs";
import { fromMarkup, make } from "./lib/dom.mjs";
import { renderCard, renderCardNow } from "./render.mjs";
import { Drawn } from "./lib/drawn.mjs";
import { holdOutcome, throwDice } from "./chat-dice.mjs";
import { askOwnCopy, forgetAsks } from "./chat-asking.mjs";
import { holdToLedger, verified } from "./chat-ledger.mjs";
import { redrawEverywhere, redrawMessage } from "./chat-redraw.mjs";
import { attach } from "./chat-buttons.mjs";

export { diceToThrow, noteNewCard, registerDicePresets } from "./chat-dice.mjs";
export { trackMessage, drawnMessages } from "./chat-redraw.mjs";
export { verified } from "./chat-ledger.mjs";

// --- drawing a card for this viewer (the `renderChatMessageHTML` hook delegates here) -------------------

/**
 * A chat message's Verdict card or blind-roll trace, decorated for this viewer: its own copy drawn in, the
 * controls this viewer may use attached, an unverified card marked.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 */
export function decorateMessage(message, html) {
  const card = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "card"));
  if (card) decorateCard(message, html, card);
  const trace = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "trace"));
  if (trace) {
    redraws.add(trace.checkId, html, () => decorateTrace(html, trace));
    decorateTrace(html, trace);
  }
}

/**
 * A blind roll's trace: the roller's browser adds the roll's label from its own reply (the document
 * holds no label, since every client receives every chat message).
 * @param {HTMLElement} html
 * @param {Record<string, any>} trace
 */
export function decorateTrace(html, trace) {
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  const header = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-trace .verdict-card-header"));
  if (!header || header.querySelector(".verdict-trace-label")) return;
  const label = client?.mine.get(trace.checkId)?.label;
  if (label) {
    traceLabel(header, label);
  } else if (client && trace.user === game.user?.id) {
    // after a reload: the ledger gives the roller the label they gave (and nothing else of a blind roll)
    askOwnCopy(trace.checkId, 0, html, (reply) => {
      if (reply.found && reply.label && !header.querySelector(".verdict-trace-label")) traceLabel(header, reply.label);
    });
  }
}

/**
 * @param {HTMLElement} header
 * @param {unknown} label
 */
function traceLabel(header, label) {
  const h = make(header, "h3");
  h.className = "verdict-trace-label";
  h.textContent = String(label);
  header.append(h);
}
/** @type {Drawn<() => void>} check id -> each element of its card (or trace), with how to redraw it from this viewer's copy */
const redraws = new Drawn();

/**
 * This viewer's own copy of a card's check: a GM's from its own connection, the roller's from the
 * replies to their requests (and, with a connection of their own, what it hears of their checks). Null when
 * this viewer has none. Its `open` is the list of follow-ups the sidecar says are open to this viewer.
 * @param {Record<string, any>} card
 * @returns {Record<string, any>|null}
 */
function ownCopy(card) {
  const api = game.modules?.get(MODULE_ID)?.api;
  // A copy older than the card (someone else followed it up since, and this viewer's connection did not hear
  // of it) is no copy: its result and what it says is open are stale.
  const fresh = (/** @type {Record<string, any>|undefined} */ copy) => copy?.result && (copy.seq ?? 0) >= (card.seq ?? 0);
  if (game.user?.isGM) {
    const full = api?.cards?.fullMsg.get(card.checkId);
    if (fresh(full)) return /** @type {Record<string, any>} */ (full);
  }
  if (card.user && card.user === game.user?.id) {
    const mine = api?.client.mine.get(card.checkId);
    if (fresh(mine)) return /** @type {Record<string, any>} */ (mine);
  }
  return null;
}

/**
 * Keep the drawn card in step with this viewer's own copy when a reply or broadcast brings a newer one.
 * @param {import("./client.mjs").VerdictClient} client
 */
export function watchCopies(client) {
  client.on("message", (/** @type {Record<string, any>} */ msg) => {
    if ((msg.type === "rolled" || msg.type === "followed") && typeof msg.check === "string") {
      setTimeout(() => { for (const { value: draw } of redraws.live(msg.check)) draw(); }, 0);
    }
  });
  // Connected, or connected again: every card on screen is drawn again from this viewer's own copy.
  client.on("status", (/** @type {{state?: string}} */ status) => {
    if (status?.state !== "open") return;
    forgetAsks();
    redrawEverywhere(decorateMessage);
  });
}

/**
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 * @param {Record<string, any>} card
 */
export function decorateCard(message, html, card) {
  const api = game.modules?.get(MODULE_ID)?.api;
  const isGM = Boolean(game.user?.isGM);
  const ok = verified(message, card);
  let root = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-card"));
  if (!root) return;
  const client = api?.client;
  // What the document's content shows of typed text (a label, a complication) has been through Foundry's
  // server-side cleaning and its enricher, which may have made a roll or a link of it: the card is drawn
  // from its flags instead, here, before the log inserts the element (the enricher has run by now).
  if (!card.shell) {
    const drawn = fromFlags(html, root, card);
    if (drawn) root = drawn;
  }
  /**
   * Draw this viewer's own copy in place of what the document holds (a player-safe copy or a shell). The
   * copy is never written to the shared document. Swapped inside the message's element, whether or not the
   * chat log has inserted it yet.
   * @param {Record<string, any>} copy
   */
  const swap = (copy) => {
    const entry = {
      ...card, result: copy.result, label: copy.label ?? card.label ?? null, redacted: false, shell: false,
      open: Array.isArray(copy.open) ? copy.open : undefined,
    };
    renderCard(/** @type {any} */ (entry), { isGM, verified: ok }).then((markup) => {
      const fresh = fromMarkup(html, markup);
      if (fresh && root && root.parentNode && html.contains(root)) {
        root.replaceWith(fresh);
        root = fresh;
        show(message, fresh, entry, ok);
      }
    }).catch((err) => console.error(`${MODULE_ID} | drawing this viewer's copy of a card failed`, err));
  };
  // Every card is drawn again from this viewer's own copy when it has one: the document holds at most the
  // player-safe result and never the follow-ups open to anyone (the sidecar lists those per viewer).
  const redraw = () => {
    const copy = ownCopy(card);
    if (copy) swap(copy);
  };
  redraws.add(card.checkId, html, redraw);
  const copy = ownCopy(card);
  if (copy) swap(copy);
  else if (ok && client && (isGM ? client.hasGmKey : card.user === game.user?.id)) {
    // A card this viewer may read and act on but has no fresh copy of (a reload, a later join, a follow-up
    // this viewer's connection did not hear): ask the ledger for this viewer's copy, its label (a shell holds
    // none) and what is open to it. Before the client is up, the first connect draws the card again.
    askOwnCopy(card.checkId, card.seq ?? 0, html, (reply) => {
      if (reply.found && reply.result) swap({ result: reply.result, label: reply.label ?? null, open: reply.open });
    });
  }
  show(message, root, card, ok);
  // Hold the card to the ledger: every card its roller's user wrote (held to the whole result), and a GM's
  // card this client has not heard rolled.
  const author = /** @type {any} */ (message).author ?? /** @type {any} */ (message).user;
  const strict = !author?.isGM && !card.shell && !card.redacted;
  if (ok && client && (strict || !client.known.has(card.checkId)) && client.status.state === "open") {
    holdToLedger(message, html, card, client, strict);
  }
}

/**
 * A drawn card's dice thrown on this page, and its controls wired once they have landed (until then the card
 * shows its dice alone, and is drawn again when they land).
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} root
 * @param {Record<string, any>} card
 * @param {boolean} ok
 */
function show(message, root, card, ok) {
  if (throwDice(message, card, () => redrawMessage(message, decorateMessage))) holdOutcome(root);
  else attach(root, card, ok);
}

/**
 * Draw the document's own card from its flags in place of `root`. Before its template is compiled (a message
 * drawn during set-up, the templates still loading), the content is kept with the enricher's work undone:
 * each roll or link it made becomes the text it was made of.
 * @param {HTMLElement} html
 * @param {HTMLElement} root
 * @param {Record<string, any>} card
 * @returns {HTMLElement|null} the card's new root, or null when the content was kept
 */
function fromFlags(html, root, card) {
  const markup = renderCardNow(/** @type {any} */ (card), { isGM: false, verified: true });
  const fresh = markup ? fromMarkup(html, markup) : null;
  if (fresh) {
    root.replaceWith(fresh);
    return fresh;
  }
  root.querySelectorAll("a.inline-roll, a.content-link, [data-uuid], [data-formula]").forEach((el) => el.replaceWith(el.textContent ?? ""));
  return null;
}
