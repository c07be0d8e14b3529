/**
 * Gathered checks on the module side: a check whose dice come from several people (a group check whose
 * participants each roll their own pool, or an opposed check whose sides each roll theirs), as the generated
 * vocabulary says each rule set gathers. The GM's request starts the whole check (`gather_start`); each
 * participant rolls their part; the sidecar reads the whole check when the last part is in. This file only
 * shapes what is sent and drawn: which parts exist and the whole outcome always come from the sidecar.
 * Pure: node --test reads it.
 * @module
 */

import { buildCheck, defaults, fieldActive, gatherOf, systemOf, toneOf, valuesFromCheck } from "./systems.mjs";

/**
 * @typedef {object} Participant  one row of the GM's request (a group check)
 * @property {string} name   the part's name (the character's name)
 * @property {string} user   the user who rolls it
 * @property {number|string} [rank]   the part's own fields (those the rule set's `gather.part` lists)
 * @property {number|string} [edges]
 * @property {number|string} [cuts]
 */

/**
 * @typedef {object} PartRoll  what the request card records for one rolled part
 * @property {string} check   the part's check id (empty for a part rolled while the card's writer was away)
 * @property {string|null} user
 * @property {string|null} outcome
 * @property {number[]} dice
 * @property {string[]} [symbols]
 * @property {number|null} [net]  a side's net result (the field the rule set's `gather.net` names)
 * @property {boolean} [secret]  rolled in a secret mode: the card shows only that it was rolled
 */

/**
 * Is this rule set's gathered request one of several participants, each with a pool of their own (rows
 * in the request), rather than of sides?
 * @param {string} system
 */
export function gathersGroup(system) {
  return gatherOf(system)?.kind === "group";
}

/**
 * The sides of an opposed gathered check, in order (none for other checks).
 * @param {string} system
 * @returns {string[]}
 */
export function sidesOf(system) {
  const g = gatherOf(system);
  return g?.kind === "sides" ? Object.keys(g.sides ?? {}) : [];
}

/**
 * Can a request of this rule set and these values gather several people's rolls into one check?
 * @param {string} system
 * @param {Record<string, any>} values
 */
export function gatherable(system, values) {
  const g = gatherOf(system);
  if (!g) return false;
  return !g.when || fieldActive({ name: "", type: "bool", when: g.when }, values);
}

/** @param {any} v @returns {number} */
const int = (v) => {
  const n = Number.parseInt(String(v ?? ""), 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/**
 * The whole check a gathered request starts.
 * @param {string} system
 * @param {Record<string, any>} values   the dialog's values (an opposed check's pools)
 * @param {Participant[]} participants   a group check: who takes part, with their pools
 * @param {boolean} [flag]               a group check: the check field the rule set names (`gather.flag`)
 * @returns {Record<string, any>}
 */
export function gatherCheck(system, values, participants, flag = false) {
  const g = gatherOf(system);
  if (g?.kind === "group") {
    /** @type {Record<string, any>} */
    const check = {
      system,
      [g.field]: participants.map((p) => ({
        name: p.name,
        ...Object.fromEntries((g.part ?? []).map((/** @type {string} */ f) => [f, int(/** @type {any} */ (p)[f])])),
      })),
    };
    if (g.flag) check[g.flag] = Boolean(flag);
    return check;
  }
  if (g?.kind === "sides") return buildCheck(system, { ...values, ...g.values });
  throw new Error(`a ${system} check does not gather several rolls`);
}

/**
 * The dialog values a part's roller starts from: the part of the whole check the GM set. The sidecar
 * rolls that part as it knows it whatever is sent; these only draw the dialog and its odds.
 * @param {Record<string, any>} check  the whole check
 * @param {string} part
 * @returns {Record<string, any>}
 */
export function partValues(check, part) {
  const system = check.system;
  const g = gatherOf(system);
  if (g?.kind === "group") {
    const p = (check[g.field] ?? []).find((/** @type {{name?: string}} */ x) => x.name === part) ?? {};
    return {
      ...defaults(system),
      ...Object.fromEntries((g.part ?? []).map((/** @type {string} */ f) => [f, p[f] ?? 0])),
      ...g.part_values,
    };
  }
  if (g?.kind === "sides") {
    const side = g.sides?.[part] ?? {};
    if (side.from) {
      const pool = check[side.from] ?? {};
      return {
        ...defaults(system),
        ...Object.fromEntries(Object.entries(pool).filter(([, v]) => v !== null && !Array.isArray(v))),
        ...Object.fromEntries((side.zero ?? []).map((/** @type {string} */ f) => [f, 0])),
        ...g.part_values,
      };
    }
    const whole = { ...check };
    for (const f of side.drop ?? []) whole[f] = null;
    return { ...valuesFromCheck(whole), ...g.part_values };
  }
  return defaults(system);
}

/**
 * What the request card records for one part's `rolled` (the GM's copy).
 * @param {Record<string, any>} rolled
 * @returns {PartRoll}
 */
export function partRoll(rolled) {
  const r = rolled.result ?? {};
  return {
    check: rolled.check,
    user: rolled.user ?? null,
    outcome: r.outcome ?? null,
    dice: Array.isArray(r.dice) ? r.dice : [],
    ...sideFields(r),
  };
}

/**
 * What a side's roll shows beyond its faces: its dice's symbols and its net result, for a rule set whose
 * gathered checks have sides.
 * @param {Record<string, any>} r  the part's result
 */
function sideFields(r) {
  const g = gatherOf(r.system);
  if (g?.kind !== "sides") return {};
  const symbols = systemOf(r.system).dice?.symbols;
  return { ...(symbols ? { symbols: r[symbols] ?? [] } : {}), net: g.net ? r[g.net] ?? null : null };
}

/**
 * The whole check's result, when a `rolled` carries the `gather_resolved` event.
 * @param {import("../generated/protocol.mjs").Rolled} rolled
 * @returns {import("../generated/protocol.mjs").AnyResult|null}
 */
export function resolvedOf(rolled) {
  for (const s of rolled.events ?? []) {
    const ev = s?.event;
    if (ev?.kind === "gather_resolved" && ev.gather === rolled.gather) return ev.result ?? null;
  }
  return null;
}

/**
 * The request card's rows and outcome for a gathered request. Keys are i18n keys; `name` is a user's
 * display name lookup.
 * @param {Record<string, any>} request
 * @param {(userId: string) => string} name
 */
export function gatherModel(request, name) {
  const system = request.system;
  const g = gatherOf(system);
  const group = g?.kind === "group";
  const sides = g?.kind === "sides";
  const result = request.result ?? null;
  const springs = new Set(result?.springs ?? []);
  const rows = (request.parts ?? []).map((/** @type {{name: string, user: string}} */ p) => {
    const roll = /** @type {PartRoll|undefined} */ (request.partRolls?.[p.name]);
    const own = group ? (result?.[g.results] ?? []).find((/** @type {{name?: string}} */ x) => x.name === p.name) : null;
    const outcome = own?.outcome ?? roll?.outcome ?? null;
    // Dice cut from the pool are drawn struck through (the sidecar says which faces it removed).
    const removed = [...(own?.removed ?? [])];
    const dice = (roll?.dice ?? []).map((f, i) => {
      const at = removed.indexOf(f);
      if (at >= 0) removed.splice(at, 1);
      return { face: roll?.symbols?.[i] ?? f, cls: at >= 0 ? "removed" : "" };
    });
    return {
      part: p.name,
      partKey: sides ? `VERDICT.Request.part.${p.name}` : null,
      user: p.user,
      userName: name(p.user),
      rolled: Boolean(roll),
      dice,
      outcomeKey: roll && group && outcome ? `VERDICT.Outcome.${system}.${outcome}` : null,
      net: roll && sides && !roll.secret ? roll.net ?? 0 : null,
      tone: roll && group && outcome ? toneOf(system, outcome) : roll ? "neutral" : null,
      springs: springs.has(p.name),
    };
  });
  return {
    rows,
    waiting: rows.filter((/** @type {any} */ r) => !r.rolled).length,
    outcomeKey: result ? `VERDICT.Outcome.${system}.${result.outcome}` : null,
    tone: result ? toneOf(system, result.outcome) : null,
    springs: [...springs],
    winnerKey: result?.winner ? `VERDICT.Winner.${result.winner}` : null,
    net: result && sides && g.net ? result[g.net] ?? 0 : null,
  };
}
