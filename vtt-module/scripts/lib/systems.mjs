/**
 * What the module needs to know about each rule set to draw it: the check's fields (in the Struct's
 * order, so checks encode like the Python side), the outcomes in display order with their tone, and the
 * die sizes to show. No rule is decided here: outcomes, harm and odds all come from the sidecar.
 * Pure: node --test reads it.
 * @module
 */

import { VOCABULARY } from "../generated/vocabulary.mjs";

/** The rule sets, in the engine's order (generated vocabulary). */
export const SYSTEMS = /** @type {Array<keyof typeof VOCABULARY.systems>} */ (Object.keys(VOCABULARY.systems));

/** The trials and the flairs of `flairs`, and the dice of `feats` in their order (generated vocabulary). */
export const TRIALS = /** @type {string[]} */ ([...VOCABULARY.trials]);
export const FLAIRS = /** @type {string[]} */ ([...VOCABULARY.flairs]);
export const FEAT_DICE = /** @type {string[]} */ ([...VOCABULARY.featDice]);

/**
 * A rule set's numbers as the engine's defaults hold them (`max_dice`, `max_lurking`, ...).
 * @param {string} system
 * @returns {Record<string, any>}
 */
export function rulesOf(system) {
  return /** @type {Record<string, any>} */ (/** @type {any} */ (VOCABULARY.systems)[system]?.rules ?? {});
}

/**
 * A check field as the protocol's Struct declares it: its wire default and, for a choice, its options.
 * @param {string} system
 * @param {string} name
 * @returns {{name: string, default?: any, options?: string[]}}
 */
export function wireField(system, name) {
  const found = (/** @type {any} */ (VOCABULARY.systems)[system]?.check ?? []).find((/** @type {any} */ f) => f.name === name);
  if (!found) throw new Error(`${system}.${name} is not a field of the check`);
  return found;
}

/** @param {string} system @param {string} name @returns {string[]} */
const optionsOf = (system, name) => [...(wireField(system, name).options ?? [])];
/** @param {string} system @param {string} name */
const wireDefault = (system, name) => wireField(system, name).default;

/**
 * @typedef {object} FieldSpec
 * @property {string} name                  the check's field (wire name); UI-only fields have `wire: false`
 * @property {"int"|"bool"|"select"|"text"|"intlist"|"optint"|"multi"} type
 * @property {any} [default]                 the dialog's preset (the wire default unless a preset says better)
 * @property {number} [min]
 * @property {number} [max]
 * @property {string[]} [options]           for selects: the wire values
 * @property {boolean} [wire]               false: steers the dialog, never sent
 * @property {Record<string, string[]>} [when]  shown (and sent) only when these other fields hold one of the values
 * @property {string} [group]               nested object on the wire (boons `opponent`)
 */

const FACETS = rulesOf("facets");
const FLAIRS_RULES = rulesOf("flairs");
const BOONS = rulesOf("boons");

/**
 * The dialog's fields per rule set, in the Struct's order. Limits, options and wire defaults come from the
 * generated vocabulary; a number given here is a preset of the dialog (a pool of 1 rather than the wire's
 * empty pool, a CL of 2, an ability of 10 against a difficulty of 10), or a bound the rules leave open.
 * @type {Record<string, FieldSpec[]>}
 */
export const FIELDS = {
  facets: [
    { name: "pool", type: "int", default: 1, min: 0, max: FACETS.max_dice },
    { name: "helping", type: "int", default: wireDefault("facets", "helping"), min: 0, max: FACETS.max_dice },
    { name: "hindering", type: "int", default: wireDefault("facets", "hindering"), min: 0, max: FACETS.max_dice },
    { name: "kind", type: "select", default: wireDefault("facets", "kind"), options: optionsOf("facets", "kind") },
    { name: "domain", type: "select", default: wireDefault("facets", "domain"), options: optionsOf("facets", "domain") },
  ],
  challenge: [
    { name: "cl", type: "int", default: 2, min: 1, max: 20 },
    { name: "modifier", type: "int", default: wireDefault("challenge", "modifier"), min: -50, max: 50 },
    { name: "complication", type: "text", default: wireDefault("challenge", "complication") },
  ],
  flairs: [
    { name: "rank", type: "int", default: 1, min: 0, max: FLAIRS_RULES.max_dice },
    { name: "edges", type: "int", default: wireDefault("flairs", "edges"), min: 0, max: FLAIRS_RULES.max_dice },
    { name: "cuts", type: "int", default: wireDefault("flairs", "cuts"), min: 0, max: FLAIRS_RULES.max_dice },
    { name: "simple", type: "bool", default: wireDefault("flairs", "simple") },
    { name: "lurking", type: "int", default: wireDefault("flairs", "lurking"), min: 0, max: FLAIRS_RULES.max_lurking },
    { name: "darkness", type: "bool", default: wireDefault("flairs", "darkness") },
  ],
  feats: [
    { name: "ability", type: "optint", default: 10, min: -20, max: 40 },
    { name: "difficulty", type: "optint", default: 10, min: -20, max: 40 },
    { name: "level", type: "optint", default: wireDefault("feats", "level"), min: -20, max: 20 },
    { name: "wyrd", type: "int", default: wireDefault("feats", "wyrd"), min: 0, max: FEAT_DICE.length },
    { name: "wyrd_dice", type: "multi", default: wireDefault("feats", "wyrd_dice"), options: optionsOf("feats", "wyrd_dice") },
    { name: "wyrd_feat", type: "bool", default: wireDefault("feats", "wyrd_feat") },
  ],
  boons: [
    { name: "check_type", type: "select", default: "simple", wire: false, options: ["simple", "assisted", "group", "opposed", "extended"] },
    { name: "ability", type: "int", default: 2, min: 0, max: BOONS.max_dice },
    { name: "boon", type: "int", default: wireDefault("boons", "boon"), min: 0, max: BOONS.max_dice },
    { name: "bane", type: "int", default: wireDefault("boons", "bane"), min: 0, max: BOONS.max_dice },
    { name: "trial", type: "int", default: 2, min: 0, max: BOONS.max_dice },
    { name: "crisis", type: "int", default: wireDefault("boons", "crisis"), min: 0, max: BOONS.max_dice },
    { name: "upgrade", type: "int", default: wireDefault("boons", "upgrade"), min: 0, max: BOONS.max_dice },
    { name: "rank", type: "optint", default: wireDefault("boons", "rank"), min: 0, max: BOONS.max_dice, when: { check_type: ["assisted"] } },
    { name: "assists", type: "intlist", default: wireDefault("boons", "assists"), when: { check_type: ["assisted"] } },
    { name: "performer_rank", type: "optint", default: wireDefault("boons", "performer_rank"), min: 0, max: BOONS.max_dice, when: { check_type: ["group"] } },
    { name: "participant_ranks", type: "intlist", default: wireDefault("boons", "participant_ranks"), when: { check_type: ["group"] } },
    { name: "opponent_ability", type: "int", default: 2, min: 0, max: BOONS.max_dice, group: "opponent", when: { check_type: ["opposed"] } },
    { name: "opponent_boon", type: "int", default: 0, min: 0, max: BOONS.max_dice, group: "opponent", when: { check_type: ["opposed"] } },
    { name: "opponent_bane", type: "int", default: 0, min: 0, max: BOONS.max_dice, group: "opponent", when: { check_type: ["opposed"] } },
    { name: "threshold", type: "optint", default: 5, min: 1, max: 100, when: { check_type: ["extended"] } },
    { name: "time_unit", type: "text", default: "hour", when: { check_type: ["extended"] } },
    { name: "limit", type: "optint", default: wireDefault("boons", "limit"), min: 1, max: 100, when: { check_type: ["extended"] } },
  ],
};

/**
 * The stylesheet's tone for each outcome (presentation, not rules): great, good, mixed, bad, dire. The
 * outcomes themselves come from the generated vocabulary; a test holds the two in step.
 * @type {Record<string, Record<string, string>>}
 */
export const TONES = {
  facets: { triumph: "great", success: "good", costly_success: "mixed", failure: "bad", catastrophe: "dire" },
  challenge: { epic_success: "great", success: "good", success_at_cost: "mixed", failure: "bad", epic_failure: "dire" },
  flairs: { triumph: "great", success: "good", conflict: "mixed", failure: "bad" },
  feats: { success: "good", failure: "bad" },
  boons: { exceptional: "great", improved: "good", success: "mixed", failure: "bad" },
};

const TONE_ORDER = ["great", "good", "mixed", "bad", "dire", "neutral"];

/**
 * Outcomes in display order (best first) with their tone: the engine's outcomes, sorted by tone.
 * @type {Record<string, Array<[string, string]>>}
 */
export const OUTCOMES = Object.fromEntries(SYSTEMS.map((system) => {
  const rows = /** @type {Array<[string, string]>} */ (VOCABULARY.systems[system].outcomes.map((o) => [o, TONES[system]?.[o] ?? "neutral"]));
  rows.sort((a, b) => TONE_ORDER.indexOf(a[1]) - TONE_ORDER.indexOf(b[1]));
  return [system, rows];
}));

/**
 * @param {string} system
 * @param {string} outcome
 * @returns {string} the tone, "neutral" for an outcome this module does not know
 */
export function toneOf(system, outcome) {
  const row = (OUTCOMES[system] ?? []).find(([o]) => o === outcome);
  return row ? row[1] : "neutral";
}

/** Die size per rule set, from the engine's dice (boons sizes come per die type). */
export const DIE_SIZE = /** @type {Record<string, number>} */ (Object.fromEntries(SYSTEMS.flatMap((s) => {
  const dice = /** @type {any} */ (VOCABULARY.systems[s].dice);
  return typeof dice.size === "number" ? [[s, dice.size]] : [];
})));
export const BOONS_DIE_SIZE = /** @type {Record<string, number>} */ ({ .../** @type {any} */ (VOCABULARY.systems.boons.dice).sizes });

/**
 * Is a field shown for these values (its `when` holds)?
 * @param {FieldSpec} field
 * @param {Record<string, any>} values
 */
export function fieldActive(field, values) {
  if (!field.when) return true;
  return Object.entries(field.when).every(([k, allowed]) => allowed.includes(values[k] ?? defaultOf(field, k)));
}

/**
 * @param {FieldSpec} _field
 * @param {string} name
 */
function defaultOf(_field, name) {
  for (const list of Object.values(FIELDS)) for (const f of list) if (f.name === name) return f.default;
  return undefined;
}

/**
 * The default values of a rule set's fields.
 * @param {string} system
 * @returns {Record<string, any>}
 */
export function defaults(system) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const f of FIELDS[system] ?? []) out[f.name] = Array.isArray(f.default) ? [...f.default] : f.default;
  return out;
}

/**
 * Coerce one raw form value to the field's type.
 * @param {FieldSpec} field
 * @param {any} raw
 * @returns {any}
 */
export function coerce(field, raw) {
  switch (field.type) {
    case "bool":
      return raw === true || raw === "true" || raw === "on" || raw === 1;
    case "int": {
      const n = Number.parseInt(String(raw ?? ""), 10);
      return Number.isFinite(n) ? n : field.default ?? 0;
    }
    case "optint": {
      if (raw === null || raw === undefined || String(raw).trim() === "") return null;
      const n = Number.parseInt(String(raw), 10);
      return Number.isFinite(n) ? n : null;
    }
    case "intlist": {
      if (Array.isArray(raw)) return raw.map(Number).filter(Number.isFinite);
      const s = String(raw ?? "").trim();
      if (!s) return field.default === null ? null : [];
      return s.split(/[\s,;]+/).map((x) => Number.parseInt(x, 10)).filter(Number.isFinite);
    }
    case "multi": {
      // Some of the options, in the options' order; none chosen is the field's default (unset).
      const chosen = Array.isArray(raw) ? raw.map(String) : raw ? String(raw).split(/[\s,;]+/) : [];
      const picked = (field.options ?? []).filter((o) => chosen.includes(o));
      return picked.length ? picked : field.default ?? null;
    }
    case "text": {
      const s = raw === null || raw === undefined ? "" : String(raw).trim();
      return s === "" ? null : s;
    }
    default:
      return raw ?? field.default;
  }
}

/**
 * Build the wire check from dialog values: `system` first, then the Struct's fields in order.
 * Inactive fields are left out (the sidecar fills its defaults); nested groups become objects.
 * @param {string} system
 * @param {Record<string, any>} values
 * @returns {Record<string, any>}
 */
export function buildCheck(system, values) {
  const fields = FIELDS[system];
  if (!fields) throw new Error(`unknown rule set ${system}`);
  /** @type {Record<string, any>} */
  const check = { system };
  for (const f of fields) {
    if (f.wire === false || !fieldActive(f, values)) continue;
    const v = coerce(f, values[f.name]);
    if (f.group) {
      check[f.group] ??= {};
      check[f.group][f.name.slice(f.group.length + 1)] = v;
    } else if (v !== null || f.type === "optint") {
      if (v === null && f.type === "optint") continue;
      check[f.name] = v;
    }
  }
  return check;
}

/**
 * Turn a check back into dialog values (to prefill from a GM request or a "next roll" button).
 * @param {Record<string, any>} check
 * @returns {Record<string, any>}
 */
export function valuesFromCheck(check) {
  const system = check.system;
  const values = defaults(system);
  for (const f of FIELDS[system] ?? []) {
    if (f.group) {
      const g = check[f.group];
      if (g && typeof g === "object") values[f.name] = g[f.name.slice(f.group.length + 1)] ?? f.default;
    } else if (f.name in check) values[f.name] = check[f.name];
  }
  if (system === "boons") {
    values.check_type = check.opponent ? "opposed"
      : check.threshold != null ? "extended"
      : check.performer_rank != null || check.participant_ranks ? "group"
      : (check.assists ?? []).length ? "assisted" : "simple";
  }
  return values;
}
