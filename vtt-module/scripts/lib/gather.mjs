/**
 * Gathered checks on the module side: a `flairs` group check or a `boons` opposed check, whose dice
 * come from several people. The GM's request starts the whole check (`gather_start`); each participant
 * rolls their part; the sidecar reads the whole check when the last part is in. This file only shapes
 * what is sent and drawn: which parts exist and the whole outcome always come from the sidecar.
 * Pure: node --test reads it.
 * @module
 */

import { buildCheck, defaults, toneOf, valuesFromCheck } from "./systems.mjs";

/**
 * @typedef {object} Participant  one row of the GM's request (a `flairs` group check)
 * @property {string} name   the part's name (the character's name)
 * @property {string} user   the user who rolls it
 * @property {number} [rank]
 * @property {number} [edges]
 * @property {number} [cuts]
 */

/**
 * @typedef {object} PartRoll  what the request card records for one rolled part
 * @property {string} check   the part's check id
 * @property {string} user
 * @property {string|null} outcome
 * @property {number[]} dice
 * @property {string[]} [symbols]
 * @property {number|null} [net]  `boons`: net successes of that side
 * @property {boolean} [secret]  rolled in a secret mode: the card shows only that it was rolled
 */

/**
 * Can a request of this rule set and these values gather several people's rolls into one check?
 * @param {string} system
 * @param {Record<string, any>} values
 */
export function gatherable(system, values) {
  return system === "flairs" || (system === "boons" && values.check_type === "opposed");
}

/** @param {any} v @returns {number} */
const int = (v) => {
  const n = Number.parseInt(String(v ?? ""), 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/**
 * The whole check a gathered request starts.
 * @param {string} system
 * @param {Record<string, any>} values   the dialog's values (the `boons` pools)
 * @param {Participant[]} participants   `flairs`: who takes part, with their pools
 * @param {boolean} [trap]               `flairs`: a room trap
 * @returns {Record<string, any>}
 */
export function gatherCheck(system, values, participants, trap = false) {
  if (system === "flairs") {
    return {
      system: "flairs",
      group: participants.map((p) => ({ name: p.name, rank: int(p.rank), edges: int(p.edges), cuts: int(p.cuts) })),
      trap: Boolean(trap),
    };
  }
  if (system === "boons") return buildCheck("boons", { ...values, check_type: "opposed" });
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
  if (check.system === "flairs") {
    const p = (check.group ?? []).find((/** @type {any} */ x) => x.name === part) ?? {};
    return { ...defaults("flairs"), rank: p.rank ?? 0, edges: p.edges ?? 0, cuts: p.cuts ?? 0, simple: true };
  }
  if (check.system === "boons") {
    if (part === "defender") {
      const o = check.opponent ?? {};
      return {
        ...defaults("boons"), check_type: "simple", ability: o.ability ?? 0, boon: o.boon ?? 0, bane: o.bane ?? 0,
        trial: 0, crisis: 0, upgrade: 0,
      };
    }
    return { ...valuesFromCheck({ ...check, opponent: null }), check_type: "simple" };
  }
  return defaults(check.system);
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
    ...(r.system === "boons" ? { symbols: r.symbols ?? [], net: r.net_successes ?? null } : {}),
  };
}

/**
 * The whole check's result, when a `rolled` carries the `gather_resolved` event.
 * @param {Record<string, any>} rolled
 * @returns {Record<string, any>|null}
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
  const result = request.result ?? null;
  const springs = new Set(result?.springs ?? []);
  const rows = (request.parts ?? []).map((/** @type {{name: string, user: string}} */ p) => {
    const roll = /** @type {PartRoll|undefined} */ (request.partRolls?.[p.name]);
    const own = system === "flairs" ? (result?.group ?? []).find((/** @type {any} */ g) => g.name === p.name) : null;
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
      partKey: system === "boons" ? `VERDICT.Request.part.${p.name}` : null,
      user: p.user,
      userName: name(p.user),
      rolled: Boolean(roll),
      dice,
      outcomeKey: roll && system === "flairs" && outcome ? `VERDICT.Outcome.flairs.${outcome}` : null,
      net: roll && system === "boons" && !roll.secret ? roll.net ?? 0 : null,
      tone: roll && system === "flairs" && outcome ? toneOf(system, outcome) : roll ? "neutral" : null,
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
    net: result && system === "boons" ? result.net_successes ?? 0 : null,
  };
}
