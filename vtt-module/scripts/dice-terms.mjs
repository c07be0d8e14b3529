/**
 * The rule sets' typed dice as Foundry dice terms. Dice So Nice draws a die type it knows: for a type whose
 * denomination is not a number (a typed die: the type less its leading `d`) it names the preset's term by
 * the class registered under that denomination in `CONFIG.Dice.terms`, and a preset for a denomination with no
 * class throws. So each typed die of the vocabulary gets a `Die` subclass of its own, registered at `init`,
 * before Dice So Nice builds its dice and before the presets are added; its faces read as the rule set's symbols.
 * @module
 */

import { VOCABULARY } from "./generated/vocabulary.mjs";

/**
 * A rule set's typed dice (each type its own size and symbol faces, from the vocabulary), or null.
 * @param {string} system
 * @returns {{sizes: Record<string, number>, faces: Record<string, string[]>}|null}
 */
export function typedDice(system) {
  /** @typedef {{sizes: Record<string, number>, faces: Record<string, string[]>}} TypedDice */
  const dice = /** @type {Record<string, {dice?: Partial<TypedDice>}|undefined>} */ (/** @type {unknown} */ (VOCABULARY.systems))[system]?.dice;
  return dice?.sizes && dice?.faces ? /** @type {TypedDice} */ (dice) : null;
}

/**
 * The Dice So Nice type of a typed die: `d` and its denomination (lower-case letters only, as Foundry's
 * formula parser reads a denomination).
 * @param {string} system
 * @param {string} type
 */
export function presetType(system, type) {
  return `d${denomination(system, type)}`;
}

/**
 * @param {string} system
 * @param {string} type
 */
function denomination(system, type) {
  return `v${system}${type}`.toLowerCase().replace(/[^a-z]/g, "");
}

/**
 * Every typed die of the vocabulary: its system, type, denomination, size and faces.
 * @returns {{system: string, type: string, denomination: string, size: number, faces: string[]}[]}
 */
export function typedDiceList() {
  const out = [];
  for (const system of Object.keys(VOCABULARY.systems)) {
    const typed = typedDice(system);
    if (!typed) continue;
    for (const [type, faces] of Object.entries(typed.faces)) {
      const size = typed.sizes[type];
      if (size) out.push({ system, type, denomination: denomination(system, type), size, faces });
    }
  }
  return out;
}

/**
 * `init`: a `Die` subclass for each typed die, in `CONFIG.Dice.terms` under its denomination (a class of that
 * denomination already there is left alone). Each class has a name of its own: Dice So Nice finds a preset's
 * term class by its name.
 */
export function registerDiceTerms() {
  const Die = /** @type {any} */ (foundry).dice?.terms?.Die;
  const terms = /** @type {Record<string, any>|undefined} */ (/** @type {any} */ (CONFIG).Dice?.terms);
  if (typeof Die !== "function" || !terms) return;
  for (const die of typedDiceList()) {
    if (terms[die.denomination]) continue;
    const name = `Verdict${cap(die.system)}${cap(die.type)}Die`;
    const { size, faces } = die;
    const cls = {
      [name]: class extends Die {
        /** @param {Record<string, any>} [data] */
        constructor(data = {}) {
          super({ ...data, faces: size });
        }

        /** @param {{result: number}} result */
        getResultLabel(result) {
          const face = faces[result.result - 1];
          return face === undefined ? String(result.result) : face === "-" ? " " : face;
        }
      },
    }[name];
    Object.defineProperty(cls, "DENOMINATION", { value: die.denomination });
    terms[die.denomination] = cls;
  }
}

/** @param {string} word */
function cap(word) {
  return word.charAt(0).toUpperCase() + word.slice(1).replace(/[^A-Za-z0-9]/g, "");
}
