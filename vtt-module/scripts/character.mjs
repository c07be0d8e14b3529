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
  const RollClass = /** @type {{Roll?: {replaceFormulaData?: (formula: string, data: object, options: object) => unknown}}} */ (globalThis).Roll;
  const replace = RollClass?.replaceFormulaData;
  if (typeof replace !== "function") return undefined;
  return (/** @type {string} */ formula, /** @type {Record<string, unknown>} */ data) => String(replace.call(RollClass, formula, data, { missing: "0", warn: false }));
}

/**
 * An actor's roll data (empty for none, or a system without it).
 * @param {{getRollData?: () => unknown}|null|undefined} actor
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

/** @returns {string} the roll-data path whose entries are the world's skills ("" for none) */
export function skillsBase() {
  try {
    return String(game.settings?.get(MODULE_ID, "skillsPath") ?? "").trim().replace(/^@/, "");
  } catch {
    return "";
  }
}

/**
 * The roll-data node of one of the world's named skills (the children of the `skillsPath` setting's path).
 * @param {Record<string, any>} data
 * @param {string|null|undefined} skill
 */
function skillNode(data, skill) {
  if (!skill) return undefined;
  const base = skillsBase();
  const parent = base ? base.split(".").reduce((/** @type {unknown} */ o, k) => (o && typeof o === "object" ? /** @type {Record<string, unknown>} */ (o)[k] : undefined), data) : undefined;
  return parent && typeof parent === "object" ? /** @type {Record<string, unknown>} */ (parent)[skill] : undefined;
}

/**
 * The values the world's mapping gives a rule set's fields for this actor, and the fields whose mapping does
 * not resolve for it (those keep what the dialog would have had: the remembered value, else the default).
 * A roll for a named skill offers that skill's data as `@skill` (`@skill.value`) to the mapping.
 * @param {string} system
 * @param {{getRollData?: () => unknown}|null|undefined} actor
 * @param {Record<string, Record<string, string>>} [mapping]
 * @param {string|null} [skill]
 */
export function fieldsFromActor(system, actor, mapping = worldMapping(), skill = null) {
  if (!actor) return { values: {}, problems: {} };
  const data = rollData(actor);
  const node = skillNode(data, skill);
  if (node !== undefined) data.skill = node;
  return mappedValues(FIELDS[system] ?? [], mapping[system], data, replacer());
}
