/**
 * The elements Verdict messages are drawn in, and drawing them all again in turns when this browser's view
 * changes (the client connects or reconnects), the cards on screen first.
 */

import { MODULE_ID } from "./constants.mjs";
import { Drawn } from "./lib/drawn.mjs";

/** @type {Drawn<ChatMessage.Implementation>} message id -> every element a Verdict message is drawn in */
export const drawnMessages = new Drawn();

/**
 * Remember an element a Verdict message is drawn in, so that it can be drawn again when this browser's view
 * changes (the client connects or reconnects). Every element counts: the log, v14's notifications, pop-outs.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 */
export function trackMessage(message, html) {
  if (message.id) drawnMessages.add(message.id, html, message);
}

/**
 * Draw every Verdict message on screen again, each element of it, for this viewer: cards and traces in place
 * (see `redrawIn`: each card asks for this viewer's own copy again), a request card through Foundry's own
 * path (`ChatLog#updateMessage`, which runs `renderChatMessageHTML` for each of its elements). Called when the
 * client connects and reconnects: cards drawn before (Foundry draws old messages before `ready`) or during an
 * outage get their content and buttons.
 * @param {(message: ChatMessage.Implementation, html: HTMLElement) => void} draw  draws a message in an element
 */
export function redrawEverywhere(draw) {
  /** @type {{el: HTMLElement, message: ChatMessage.Implementation}[]} */
  const cards = [];
  for (const id of drawnMessages.keys()) {
    const live = drawnMessages.live(id);
    const message = /** @type {ChatMessage.Implementation|undefined} */ (game.messages?.get(id) ?? live[0]?.value);
    if (!message) continue;
    if (message.getFlag(MODULE_ID, "request")) {
      // (an element not inserted yet is still on its way from its own render)
      if (live.some(({ el }) => el.isConnected)) {
        /** @type {any} */ (ui.chat)?.updateMessage?.(message)?.catch?.((/** @type {unknown} */ err) => console.error(`${MODULE_ID} | drawing a request again failed`, err));
      }
      continue;
    }
    for (const { el } of live) cards.push({ el: /** @type {HTMLElement} */ (/** @type {unknown} */ (el)), message });
  }
  // The cards on screen first, then the newest; a long log's hundred cards are drawn a few at a time, so that
  // the page stays responsive while they are.
  const seen = cards.map(({ el }) => onScreen(el));
  const turns = [...cards.filter((_, i) => seen[i]), ...cards.filter((_, i) => !seen[i]).reverse()];
  setTimeout(() => drawInTurns(turns, draw), 0);
}

/** How long one turn of drawing cards again may hold the main thread, in milliseconds. */
const DRAW_TURN = 12;

/**
 * Draw cards again, in turns of at most `DRAW_TURN` ms each.
 * @param {{el: HTMLElement, message: ChatMessage.Implementation}[]} cards
 * @param {(message: ChatMessage.Implementation, html: HTMLElement) => void} draw
 */
function drawInTurns(cards, draw) {
  const start = performance.now();
  while (cards.length) {
    const next = /** @type {{el: HTMLElement, message: ChatMessage.Implementation}} */ (cards.shift());
    if (next.el.parentNode) redrawIn(next.message, next.el, draw);
    if (performance.now() - start >= DRAW_TURN) break;
  }
  if (cards.length) setTimeout(() => drawInTurns(cards, draw), 0);
}

/**
 * Is the element on screen: inside the window and inside the list it scrolls in (the chat log, a pop-out,
 * the notifications pane)?
 * @param {HTMLElement} element
 */
export function onScreen(element) {
  if (!element.isConnected) return false;
  const r = element.getBoundingClientRect();
  if (!r.height) return false;
  const view = element.ownerDocument.defaultView;
  if (r.bottom < 0 || (view && r.top > view.innerHeight)) return false;
  const list = element.parentElement?.closest("ol, ul");
  if (!list) return true;
  const box = list.getBoundingClientRect();
  return r.bottom >= box.top && r.top <= box.bottom;
}

/**
 * Draw every element of one message again, in place (see `redrawIn`).
 * @param {ChatMessage.Implementation} message
 * @param {(message: ChatMessage.Implementation, html: HTMLElement) => void} draw
 */
export function redrawMessage(message, draw) {
  if (!message.id) return;
  for (const { el } of drawnMessages.live(message.id)) {
    const element = /** @type {HTMLElement} */ (/** @type {unknown} */ (el));
    if (element.parentNode) redrawIn(message, element, draw);
  }
}

/**
 * Draw a card or trace again inside the element Foundry drew its message in, from the message as it now
 * stands. The element itself stays: Foundry keeps its own state on it (a notification copy's lifespan, its
 * hover listeners, its controls), and `ChatLog#updateMessage` replaces the element it took before awaiting
 * its render, so an element swapped out meanwhile would lose that update.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} element
 * @param {(message: ChatMessage.Implementation, html: HTMLElement) => void} draw
 */
function redrawIn(message, element, draw) {
  const current = /** @type {ChatMessage.Implementation} */ ((message.id && game.messages?.get(message.id)) || message);
  draw(current, element);
}
