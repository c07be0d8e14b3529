/**
 * Asking the ledger about the cards drawn: once per check and card seq while connected, paced so that a long
 * log's batch never runs into the sidecar's request rate.
 */

import { MODULE_ID } from "./constants.mjs";
import { onScreen } from "./chat-redraw.mjs";

/**
 * How many of the ledger's answers this page asks for at once, and how many a second after that. Foundry draws
 * a hundred messages at a time (at load, and each time the log is scrolled back), and the sidecar refuses a
 * socket more than its rate (by default 20 a second, 40 at once): asks beyond these wait their turn instead of
 * being refused and asked again, and leave the viewer's own rolls room.
 */
const ASK_BURST = 32;
const ASK_RATE = 16;

/** @typedef {{checkId: string, seq: number, element: HTMLElement, client: any, settle: (p: Promise<Record<string, any>>) => void}} Ask */

/** @type {Ask[]} asks waiting their turn, in the order the cards were drawn (the last goes first) */
const waitingAsks = [];
/** @type {Map<string, {seq: number, p: Promise<Record<string, any>>}>} check id -> the ask for it, once per card seq */
const askedLedger = new Map();
let askTokens = ASK_BURST;
let askRefilled = 0;
/** @type {any} */
let askTimer = null;

/** Send the asks whose turn it is: the cards on screen first, then the newest drawn (at the log's bottom). */
function pumpAsks() {
  askTimer = null;
  const now = performance.now();
  askTokens = Math.min(ASK_BURST, askTokens + ((now - askRefilled) / 1000) * ASK_RATE);
  askRefilled = now;
  if (waitingAsks.length > askTokens) {
    // More wait than may go now: the cards on screen to the end of the line (sent first), in drawing order.
    const seen = waitingAsks.map((a) => onScreen(a.element));
    const order = [...waitingAsks.filter((_, i) => !seen[i]), ...waitingAsks.filter((_, i) => seen[i])];
    waitingAsks.splice(0, waitingAsks.length, ...order);
  }
  while (waitingAsks.length && askTokens >= 1) {
    const next = /** @type {Ask} */ (waitingAsks.pop());
    if (next.client.status.state !== "open") {
      next.settle(Promise.reject(new Error("offline")));
      continue;
    }
    askTokens -= 1;
    next.settle(next.client.verify(next.checkId, next.seq));
  }
  if (waitingAsks.length) askTimer = setTimeout(pumpAsks, Math.ceil(((1 - askTokens) / ASK_RATE) * 1000));
}

/**
 * The ledger's word on a check for a card drawn in `element`: asked once per check and card seq while
 * connected (a card drawn again, in another element or after its dice, asks nothing more), paced with the
 * others (see `ASK_BURST`).
 * @param {any} client
 * @param {string} checkId
 * @param {number} seq
 * @param {HTMLElement} element
 * @returns {Promise<Record<string, any>>}
 */
export function askLedger(client, checkId, seq, element) {
  const asked = askedLedger.get(checkId);
  if (asked && asked.seq >= seq) return asked.p;
  /** @type {(p: Promise<Record<string, any>>) => void} */
  let settle = () => {};
  const p = new Promise((resolve) => { settle = resolve; });
  const entry = { seq, p: /** @type {Promise<Record<string, any>>} */ (p) };
  askedLedger.set(checkId, entry);
  // A failed ask (offline, a timeout, a refusal) is forgotten: the card's next draw asks again.
  entry.p.catch(() => { if (askedLedger.get(checkId) === entry) askedLedger.delete(checkId); });
  waitingAsks.push({ checkId, seq, element, client, settle });
  if (!askTimer) pumpAsks();
  return entry.p;
}

/** Connected again: what the ledger said may be stale, and what waited was for the old connection. */
export function forgetAsks() {
  askedLedger.clear();
  for (const ask of waitingAsks.splice(0)) ask.settle(Promise.reject(new Error("reconnected")));
}

/**
 * Ask the sidecar for this viewer's copy of a check, again when the request fails while connected (a relay
 * handing over, a timeout); a failure while offline waits for the next connect, which draws every card again.
 * @param {string} checkId
 * @param {number} seq
 * @param {HTMLElement} element  where the card is drawn (the cards on screen are asked for first)
 * @param {(reply: Record<string, any>) => void} use
 * @param {number} [attempt]
 */
export function askOwnCopy(checkId, seq, element, use, attempt = 0) {
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  if (!client || client.status.state !== "open") return;
  askLedger(client, checkId, seq, element).then(use).catch(() => {
    if (attempt >= 5) return;
    setTimeout(() => askOwnCopy(checkId, seq, element, use, attempt + 1), 500 * 2 ** attempt);
  });
}
