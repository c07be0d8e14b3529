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

/** The rule sets whose checks can be extended checks (a threshold of progress over several rolls). */
export const EXTENDED = /** @type {string[]} */ ([...VOCABULARY.extended]);

/**
 * What the vocabulary says of one rule set (an empty description for a rule set this module does not know).
 * @param {string} system
 * @returns {Record<string, any>}
 */
export function systemOf(system) {
  return /** @type {Record<string, any>} */ (/** @type {any} */ (VOCABULARY.systems)[system] ?? {});
}

/**
 * A rule set's numbers as the engine's defaults hold them (`max_dice`, `max_lurking`, ...).
 * @param {string} system
 * @returns {Record<string, any>}
 */
export function rulesOf(system) {
  return systemOf(system).rules ?? {};
}

/** The text the table gives a condition nobody named yet (`condition_add`'s default, a roll's condition). */
export const UNNAMED_CONDITION = "condition";

/**
 * Is this field shown to this viewer?
 * @param {{name: string}} field
 * @param {boolean} isGM
 */
export function viewerSees(field, isGM) {
  return isGM || !GM_FIELDS.has(field.name);
}

/**
 * @typedef {object} FieldSpec
 * @property {string} name                  the check's field (wire name); UI-only fields have `wire: false`
 * @property {"int"|"bool"|"select"|"text"|"intlist"|"optint"|"multi"} type
 * @property {boolean} [gm]               the GM's secret to set, never shown to a player
 * @property {string} [choices]            a choice among the open entries of this list of the scene's state
 * @property {any} [default]                 the dialog's preset (the wire default unless the rule set presets better)
 * @property {number} [min]
 * @property {number} [max]
 * @property {string[]} [options]           for selects: the wire values
 * @property {boolean} [wire]               false: steers the dialog, never sent
 * @property {Record<string, string[]>} [when]  shown (and sent) only when these other fields hold one of the values
 * @property {string} [group]               nested object on the wire: the field is `<group>_<its name>`
 * @property {string} [label]               the field's title, from its Struct (English; i18n may say better)
 * @property {string} [hint]                what the field is, from its Struct
 */

/**
 * The dialog's fields per rule set, in the Struct's order, as the generated vocabulary gives them: types,
 * options and wire defaults from the Structs, presets and bounds (the rules' dice limits) from each rule set.
 * @type {Record<string, FieldSpec[]>}
 */
export const FIELDS = Object.fromEntries(SYSTEMS.map((s) => [s, /** @type {FieldSpec[]} */ (systemOf(s).dialog ?? [])]));

/**
 * Check fields whose value the table keeps as the GM's secret (the rule set's card marks them `gm`): the GM's
 * to set, never shown to a player.
 */
export const GM_FIELDS = new Set(Object.values(FIELDS).flat().filter((f) => f.gm).map((f) => f.name));

/**
 * Check fields that name one entry of the scene's state (the rule set's card names the list in `choices`): the
 * dialog offers the scene's open entries the viewer may see, by their text.
 * @type {Record<string, string>}  the field → the scene state's list
 */
export const SCENE_CHOICES = Object.fromEntries(Object.values(FIELDS).flat().filter((f) => f.choices).map((f) => [f.name, /** @type {string} */ (f.choices)]));

/**
 * A field's label: the translation of `VERDICT.Field.<system>.<field>` where the language has one, else the
 * field's title as its Struct gives it.
 * @param {string} system
 * @param {{name: string, label?: string}} field
 * @param {(key: string) => string} localize
 */
export function labelOf(system, field, localize) {
  const key = `VERDICT.Field.${system}.${field.name}`;
  const text = localize(key);
  return text && text !== key ? text : field.label ?? field.name;
}

/**
 * The stylesheet's tone for each outcome (presentation, not rules): great, good, mixed, bad, dire.
 * @type {Record<string, Record<string, string>>}
 */
export const TONES = Object.fromEntries(SYSTEMS.map((s) => [s, /** @type {Record<string, string>} */ ({ ...systemOf(s).tones })]));

const TONE_ORDER = ["great", "good", "mixed", "bad", "dire", "neutral"];

/**
 * Outcomes in display order (best first) with their tone: the engine's outcomes, sorted by tone.
 * @type {Record<string, Array<[string, string]>>}
 */
export const OUTCOMES = Object.fromEntries(SYSTEMS.map((system) => {
  const rows = /** @type {Array<[string, string]>} */ (systemOf(system).outcomes.map((/** @type {string} */ o) => [o, TONES[system]?.[o] ?? "neutral"]));
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

/** Die size per rule set that rolls one size of die, from the engine's dice. */
export const DIE_SIZE = /** @type {Record<string, number>} */ (Object.fromEntries(SYSTEMS.flatMap((s) => {
  const dice = systemOf(s).dice;
  return typeof dice.size === "number" ? [[s, dice.size]] : [];
})));

/** Die size per die type, for the rule sets whose dice come in types. */
export const TYPE_SIZES = /** @type {Record<string, Record<string, number>>} */ (Object.fromEntries(SYSTEMS.flatMap((s) => {
  const dice = systemOf(s).dice;
  return dice.sizes ? [[s, { ...dice.sizes }]] : [];
})));

/**
 * How a request of this rule set gathers several people's rolls into one check, or null.
 * @param {string} system
 * @returns {Record<string, any>|null}
 */
export function gatherOf(system) {
  return systemOf(system).gather ?? null;
}

/**
 * How a roll of this rule set joins an extended check (its dialog's values, the fields the extended check
 * fills and the fields the GM starts one with), or null.
 * @param {string} system
 * @returns {{values: Record<string, any>, fill: Record<string, string>, start: string[]}|null}
 */
export function extendedOf(system) {
  return systemOf(system).extended ?? null;
}

/**
 * What a follow-up is (the vocabulary's union tagged by the action): whose, its parameters, what the open
 * follow-up offers for them; undefined for one this module does not know.
 * @param {string} action
 * @returns {{system: string|null, gm: boolean, params: Array<Record<string, any>>, roll?: string}|undefined}
 */
export function followupOf(action) {
  return /** @type {any} */ (VOCABULARY.followups)[action];
}

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
 * @returns {{system: string} & Record<string, any>}
 */
export function buildCheck(system, values) {
  const fields = FIELDS[system];
  if (!fields) throw new Error(`unknown rule set ${system}`);
  /** @type {{system: string} & Record<string, any>} */
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
  const kinds = FIELDS[system]?.find((f) => f.wire === false && f.type === "select");
  if (kinds) {
    // The kind of check is the one whose fields the check sets (the last listed wins: the richest).
    const set = (/** @type {FieldSpec} */ f) => {
      const v = check[f.group ?? f.name];
      return v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
    };
    const chosen = (kinds.options ?? []).filter((k) => (FIELDS[system] ?? []).some((f) => f.when?.[kinds.name]?.includes(k) && set(f)));
    values[kinds.name] = chosen.length ? chosen[chosen.length - 1] : kinds.default;
  }
  return values;
}
