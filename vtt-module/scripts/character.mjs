/**
 * A character's own numbers for a check: the world's mapping of each field to a roll-data path or formula,
 * evaluated against `actor.getRollData()` with Foundry's formula data replacement; and the world's named
 * skills. Which fields exist and their limits are the vocabulary's (lib/systems.mjs).
 */

import { MODULE_ID } from "./constants.mjs";
import { FIELDS } from "./lib/systems.mjs";
import { mappedValues } from "./lib/mapping.mjs";

/** @returns {Record<string, Record<string, string>>} rule set -> field -> path or formula */
export function worldMapping() {
  try {
    const value = /** @type {any} */ (game.settings?.get(MODULE_ID, /** @type {any} */ ("mapping")));
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/** Foundry's formula data replacement (`Roll.replaceFormulaData`), where it exists. */
function replacer() {
  const RollClass = /** @type {any} */ (globalThis).Roll;
  if (typeof RollClass?.replaceFormulaData !== "function") return undefined;
  return (/** @type {string} */ formula, /** @type {any} */ data) => String(RollClass.replaceFormulaData(formula, data, { missing: "0", warn: false }));
}

/**
 * An actor's roll data (empty for none, or a system without it).
 * @param {any} actor
 * @returns {Record<string, any>}
 */
export function rollData(actor) {
  try {
    const data = actor?.getRollData?.();
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

/**
 * The values the world's mapping gives a rule set's fields for this actor, and the fields whose mapping does
 * not resolve for it (those keep what the dialog would have had: the remembered value, else the default).
 * @param {string} system
 * @param {any} actor
 * @param {Record<string, Record<string, string>>} [mapping]
 */
export function fieldsFromActor(system, actor, mapping = worldMapping()) {
  if (!actor) return { values: {}, problems: {} };
  return mappedValues(FIELDS[system] ?? [], mapping[system], rollData(actor), replacer());
}
