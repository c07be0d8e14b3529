/**
 * Chat cards as every browser draws them: each viewer's own copy drawn in place of what the document holds
 * (a player-safe copy or a shell), the controls this viewer may use, an unverified card marked, the dice
 * thrown. The documents themselves are written by the relay alone (relay/writer.mjs); nothing here writes a
 * chat message.
 */

import { MODULE_ID } from "./constants.mjs";
import { isRelay } from "./client.mjs";
import { sendFrame } from "./relay/relay.mjs";
import { DIE_SIZE, EXTENDED, extendedOf, followupOf } from "./lib/systems.mjs";
import { presetType, typedDice, typedDiceList } from "./dice-terms.mjs";
import { complicationChoices, offerOf, openFollowups } from "./lib/card-model.mjs";
import { fromMarkup, make } from "./lib/dom.mjs";
import { renderCard, renderCardNow, t } from "./render.mjs";
import { RollDialog } from "./apps/roll-dialog.mjs";
import { syncActor } from "./tokens.mjs";
import { Drawn } from "./lib/drawn.mjs";
import { timing } from "./lib/timings.mjs";

/**
 * A result as text with its keys in order, so two copies of one result compare equal however they were built.
 * @param {unknown} value
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(/** @type {any} */ (value)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * `diceSoNiceReady`: a dice preset for each typed die of the vocabulary, with its own symbol faces, so such
 * dice land on their symbols rather than as numbered dice. Each die's term is registered at `init`
 * (dice-terms.mjs); a preset Dice So Nice still refuses is reported and the others are added.
 * @param {any} dice3d
 */
export function registerDicePresets(dice3d) {
  if (!dice3d?.addDicePreset) return;
  dice3d.addSystem?.({ id: MODULE_ID, name: "Verdict" }, "default");
  for (const die of typedDiceList()) {
    const type = presetType(die.system, die.type);
    try {
      dice3d.addDicePreset({ type, labels: die.faces.map((f) => (f === "-" ? " " : f)), system: MODULE_ID }, `d${die.size}`);
    } catch (err) {
      console.warn(`${MODULE_ID} | Dice So Nice refused the preset of the ${die.system} ${die.type} die (${type}); it is thrown as a plain d${die.size}`, err);
    }
  }
}

/**
 * What Dice So Nice throws for a result: the real faces (never its own random ones); typed dice as our presets.
 * @param {Record<string, any>} result
 * @param {number} [from]  the first die to throw (a follow-up throws only the dice it added)
 */
export function diceToThrow(result, from = 0) {
  const types = result.types ?? [];
  const typed = typedDice(String(result.system ?? ""));
  return (result.dice ?? []).slice(from).map((/** @type {number} */ face, /** @type {number} */ j) => {
    const type = types[from + j];
    if (typed && type && typed.sizes[type]) {
      return { result: face, resultLabel: String(typed.faces[type]?.[face - 1] ?? face), type: presetType(String(result.system), type), vectors: [], options: {} };
    }
    const size = /** @type {Record<string, number>} */ (DIE_SIZE)[result.system] ?? 6;
    return { result: face, resultLabel: String(face), type: `d${size}`, vectors: [], options: {} };
  });
}

/** @returns {boolean} Dice So Nice shows messages at once, without waiting for the dice (its own setting) */
function dsnImmediate() {
  try {
    return Boolean(game.settings?.get(/** @type {any} */ ("dice-so-nice"), /** @type {any} */ ("immediatelyDisplayChatMessages")));
  } catch {
    return false;
  }
}

/** @type {Set<string>} checks whose card came in while this page was open (their dice are thrown here) */
const liveChecks = new Set();
/** @type {Map<string, number>} check id -> how many of its dice this viewer has seen thrown or drawn */
const shownDice = new Map();
/** @type {Set<string>} checks whose dice are in the air on this page: their outcome waits */
const rolling = new Set();

/**
 * `createChatMessage`: a new card is live here; its dice will be thrown when this viewer draws them.
 * @param {ChatMessage.Implementation} message
 */
export function noteNewCard(message) {
  const card = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "card"));
  if (card?.checkId) liveChecks.add(card.checkId);
}

/**
 * Dice So Nice, when present, throws on this viewer's page the dice this viewer's card shows (its own copy
 * for a secret roll, so no one is shown dice they may not see), with the roller's dice appearance. The
 * card's outcome and what follows from it wait until the dice land, unless Dice So Nice is set to show
 * messages at once. A card drawn for the first time on a page that was not open when it came (a reload) is
 * not thrown again.
 * @param {ChatMessage.Implementation} message
 * @param {Record<string, any>} card  the card as drawn (its `result` is what this viewer sees)
 * @returns {boolean} the outcome waits for the dice
 */
function throwDice(message, card) {
  const dice3d = /** @type {any} */ (game).dice3d;
  const checkId = card.checkId;
  const count = Array.isArray(card.result?.dice) ? card.result.dice.length : 0;
  if (!checkId || !count) return rolling.has(checkId);
  const seen = shownDice.get(checkId);
  if (seen === undefined && !liveChecks.has(checkId)) {
    shownDice.set(checkId, count);
    return false;
  }
  const from = seen ?? 0;
  if (!dice3d?.show || count <= from) return rolling.has(checkId);
  shownDice.set(checkId, count);
  const user = (card.user && game.users?.get(card.user)) || game.user;
  /** @type {Promise<unknown>} */
  let thrown;
  try {
    thrown = Promise.resolve(dice3d.show({ throws: [{ dice: diceToThrow(card.result, from) }] }, user, false, null, false));
  } catch (err) {
    thrown = Promise.reject(err);
  }
  if (dsnImmediate()) {
    thrown.catch(() => {});
    return false;
  }
  rolling.add(checkId);
  let done = false;
  const landed = () => {
    if (done) return;
    done = true;
    clearTimeout(bound);
    rolling.delete(checkId);
    redrawMessage(message);
  };
  // Dice So Nice's promise may never settle (a throw it cannot animate fails inside its queue): the outcome
  // waits for the dice at most so long.
  const wait = timing("diceLanding");
  const bound = setTimeout(() => {
    if (done) return;
    console.warn(`${MODULE_ID} | Dice So Nice did not say within ${wait} ms that the dice of check ${checkId} landed; the card shows its outcome`);
    landed();
  }, wait);
  thrown.then(landed, (err) => {
    console.warn(`${MODULE_ID} | Dice So Nice could not throw the dice of check ${checkId}; the card shows its outcome`, err);
    landed();
  });
  return true;
}

/**
 * Draw every element of one message again, in place (see `redrawIn`).
 * @param {ChatMessage.Implementation} message
 */
function redrawMessage(message) {
  if (!message.id) return;
  for (const { el } of drawnMessages.live(message.id)) {
    const element = /** @type {HTMLElement} */ (/** @type {unknown} */ (el));
    if (element.parentNode) redrawIn(message, element);
  }
}

/**
 * Draw a card or trace again inside the element Foundry drew its message in, from the message as it now
 * stands. The element itself stays: Foundry keeps its own state on it (a notification copy's lifespan, its
 * hover listeners, its controls), and `ChatLog#updateMessage` replaces the element it took before awaiting
 * its render, so an element swapped out meanwhile would lose that update.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} element
 */
function redrawIn(message, element) {
  const current = /** @type {ChatMessage.Implementation} */ ((message.id && game.messages?.get(message.id)) || message);
  decorateMessage(current, element);
}

/** What waits for the dice: the outcome and everything that follows from it. */
const HELD = ".verdict-outcome, .verdict-facts, .verdict-suggestion, .verdict-followups, .verdict-choose, .verdict-bargain, .verdict-gm";

/**
 * A card whose dice are in the air: only the dice so far; the outcome, its consequences and its buttons come
 * when they land.
 * @param {HTMLElement} root
 */
function holdOutcome(root) {
  root.querySelectorAll(HELD).forEach((el) => el.remove());
  root.classList.add("verdict-rolling");
  root.dataset.rolling = "1";
  delete root.dataset.outcome;
  for (const cls of [...root.classList]) if (cls.startsWith("tone-")) root.classList.remove(cls);
}

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
 */
export function redrawEverywhere() {
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
  setTimeout(() => drawInTurns(turns), 0);
}

/** How long one turn of drawing cards again may hold the main thread, in milliseconds. */
const DRAW_TURN = 12;

/**
 * Draw cards again, in turns of at most `DRAW_TURN` ms each.
 * @param {{el: HTMLElement, message: ChatMessage.Implementation}[]} cards
 */
function drawInTurns(cards) {
  const start = performance.now();
  while (cards.length) {
    const next = /** @type {{el: HTMLElement, message: ChatMessage.Implementation}} */ (cards.shift());
    if (next.el.parentNode) redrawIn(next.message, next.el);
    if (performance.now() - start >= DRAW_TURN) break;
  }
  if (cards.length) setTimeout(() => drawInTurns(cards), 0);
}

// --- asking the ledger for the cards drawn ------------------------------------------------------------

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

/**
 * Is the element on screen: inside the window and inside the list it scrolls in (the chat log, a pop-out,
 * the notifications pane)?
 * @param {HTMLElement} element
 */
function onScreen(element) {
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
function askLedger(client, checkId, seq, element) {
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
function forgetAsks() {
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
function askOwnCopy(checkId, seq, element, use, attempt = 0) {
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  if (!client || client.status.state !== "open") return;
  askLedger(client, checkId, seq, element).then(use).catch(() => {
    if (attempt >= 5) return;
    setTimeout(() => askOwnCopy(checkId, seq, element, use, attempt + 1), 500 * 2 ** attempt);
  });
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

/**
 * May the card be the sidecar's at all? A card not written by a GM user or by the roller it names is not, nor
 * one without a check and a seq. Whether the ledger backs what it shows is asked of the ledger when it is
 * drawn (see `holdToLedger`).
 * @param {ChatMessage.Implementation} message
 * @param {Record<string, any>} card
 * @returns {boolean}
 */
export function verified(message, card) {
  const author = /** @type {any} */ (message).author ?? /** @type {any} */ (message).user;
  // The relay writes a card as its roller's (a self roll's roller writes their own shell): a card by anyone
  // else than a GM or the roller it names is not the sidecar's.
  const byRoller = Boolean(author?.id && author.id === card.user);
  if (!author?.isGM && !byRoller) return false;
  return Boolean(card.checkId) && typeof card.seq === "number";
}

/**
 * Does the ledger's word on a check back the card? Its faces must be the ledger's; a card its roller's user
 * wrote (a player may write a message with any flags) must show the ledger's whole result. A redacted card
 * holds a copy the asker's own differs from, so only its existence is held. Seqs are not compared: the
 * ledger numbers its answer in the asker's own numbering, the card carries the relay's.
 * @param {Record<string, any>} reply
 * @param {Record<string, any>} card
 * @param {boolean} strict
 * @returns {boolean}
 */
function ledgerBacks(reply, card, strict) {
  if (!reply.found) return false;
  if (!reply.result || card.redacted) return true;
  if (JSON.stringify(reply.result.dice ?? []) !== JSON.stringify(card.result?.dice ?? [])) return false;
  return !strict || canonical(reply.result) === canonical(card.result);
}

/**
 * Hold a drawn card to the ledger, and mark it only when the ledger really does not back it. The ledger answers
 * with the check as it now stands: a card drawn just before its own follow-up's document update lands shows an
 * older stage, so a mismatch is asked about once more a moment later, and the card is marked only if the
 * message still holds the same card and the ledger still disagrees (a newer card is drawn, and held, anew).
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 * @param {Record<string, any>} card
 * @param {import("./client.mjs").VerdictClient} client
 * @param {boolean} strict
 */
function holdToLedger(message, html, card, client, strict) {
  const same = () => {
    const now = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "card"));
    return now?.checkId === card.checkId && now?.seq === card.seq;
  };
  const mark = () => {
    const el = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-card"));
    if (el) markUnverified(el);
  };
  askLedger(client, card.checkId, card.seq ?? 0, html).then((reply) => {
    if (reply.result) client.known.set(card.checkId, JSON.stringify(reply.result.dice ?? []));
    if (ledgerBacks(reply, card, strict)) return;
    setTimeout(() => {
      if (!same() || client.status.state !== "open") return;
      client.request({ type: "verify", check: card.checkId }).then((again) => {
        if (same() && !ledgerBacks(again, card, strict)) mark();
      }).catch(() => {});
    }, timing("verifyRecheck"));
  }).catch(() => {});
}

/** @type {Drawn<() => void>} check id -> each element of its card (or trace), with how to redraw it from this viewer's copy */
const redraws = new Drawn();
/** @type {Drawn<ChatMessage.Implementation>} message id -> every element a Verdict message is drawn in */
export const drawnMessages = new Drawn();

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
    redrawEverywhere();
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
        attach(message, fresh, entry, ok);
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
  attach(message, root, card, ok);
  // Hold the card to the ledger: every card its roller's user wrote (held to the whole result), and a GM's
  // card this client has not heard rolled.
  const author = /** @type {any} */ (message).author ?? /** @type {any} */ (message).user;
  const strict = !author?.isGM && !card.shell && !card.redacted;
  if (ok && client && (strict || !client.known.has(card.checkId)) && client.status.state === "open") {
    holdToLedger(message, html, card, client, strict);
  }
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
  if (throwDice(_message, card)) {
    holdOutcome(root);
    return;
  }
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
    // The scene's complications come from this GM's own snapshot, drawn afresh whenever the list is opened.
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
