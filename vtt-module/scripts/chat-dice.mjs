/**
 * The dice of a chat card: the presets Dice So Nice throws the vocabulary's typed dice as, the faces it
 * throws for a result, and a card's outcome held while its dice are in the air on this page.
 */

import { MODULE_ID } from "./constants.mjs";
import { DIE_SIZE } from "./lib/systems.mjs";
import { presetType, typedDice, typedDiceList } from "./dice-terms.mjs";
import { timing } from "./lib/timings.mjs";

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
 * @param {() => void} landed  draws the card again once its dice have landed
 * @returns {boolean} the outcome waits for the dice
 */
export function throwDice(message, card, landed) {
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
  const land = () => {
    if (done) return;
    done = true;
    clearTimeout(bound);
    rolling.delete(checkId);
    landed();
  };
  // Dice So Nice's promise may never settle (a throw it cannot animate fails inside its queue): the outcome
  // waits for the dice at most so long.
  const wait = timing("diceLanding");
  const bound = setTimeout(() => {
    if (done) return;
    console.warn(`${MODULE_ID} | Dice So Nice did not say within ${wait} ms that the dice of check ${checkId} landed; the card shows its outcome`);
    land();
  }, wait);
  thrown.then(land, (err) => {
    console.warn(`${MODULE_ID} | Dice So Nice could not throw the dice of check ${checkId}; the card shows its outcome`, err);
    land();
  });
  return true;
}

/** What waits for the dice: the outcome and everything that follows from it. */
const HELD = ".verdict-outcome, .verdict-facts, .verdict-suggestion, .verdict-followups, .verdict-choose, .verdict-bargain, .verdict-gm";

/**
 * A card whose dice are in the air: only the dice so far; the outcome, its consequences and its buttons come
 * when they land.
 * @param {HTMLElement} root
 */
export function holdOutcome(root) {
  root.querySelectorAll(HELD).forEach((el) => el.remove());
  root.classList.add("verdict-rolling");
  root.dataset.rolling = "1";
  delete root.dataset.outcome;
  for (const cls of [...root.classList]) if (cls.startsWith("tone-")) root.classList.remove(cls);
}
