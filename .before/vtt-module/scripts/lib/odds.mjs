/**
 * The odds bar's view model, from an `odds_result`'s `odds`. The sidecar answers
 * `{system, outcome: [{value, chance: {num, den, p}}, ...], succeeds?: {num, den, p}, ...}`; a plain
 * `{outcome_name: {num, den, p}}` table (or a bare float per outcome) is read too. Pure.
 * @module
 */

import { OUTCOMES } from "./systems.mjs";

/**
 * @typedef {object} OddsSegment
 * @property {string} outcome
 * @property {string} tone
 * @property {number} p          probability in [0, 1]
 * @property {string} pct        e.g. "42.1%"
 * @property {string|null} exact e.g. "91/216"
 * @property {number} width      bar width in percent (0..100)
 */

/**
 * @param {any} v
 * @returns {{p: number, exact: string|null} | null}
 */
function prob(v) {
  if (typeof v === "number" && Number.isFinite(v)) return { p: v, exact: null };
  if (v && typeof v === "object") {
    const num = Number(v.num);
    const den = Number(v.den);
    const p = typeof v.p === "number" ? v.p : den > 0 ? num / den : NaN;
    if (Number.isFinite(p)) return { p, exact: Number.isFinite(num) && den > 0 ? `${num}/${den}` : null };
  }
  return null;
}

/**
 * @param {number} p
 * @returns {string}
 */
export function percent(p) {
  if (p <= 0) return "0%";
  if (p >= 1) return "100%";
  const x = p * 100;
  if (x < 0.1) return "<0.1%";
  if (x > 99.9) return ">99.9%";
  return `${x.toFixed(1)}%`;
}

/**
 * Segments in the rule set's outcome order (best first); outcomes the module does not know follow,
 * drawn neutral. Zero-probability outcomes are kept (the legend says "0%") but have no width.
 * @param {string} system
 * @param {any} odds
 * @returns {OddsSegment[]}
 */
export function oddsSegments(system, odds) {
  let table = odds;
  // protocol/v1/odds.py: `outcome` is a list of {value, chance: {num, den, p}}, every outcome, best first.
  if (table && typeof table === "object" && Array.isArray(table.outcome)) {
    table = Object.fromEntries(table.outcome.filter((/** @type {any} */ c) => c && typeof c.value === "string").map((/** @type {any} */ c) => [c.value, c.chance]));
  } else if (table && typeof table === "object" && table.outcomes && typeof table.outcomes === "object") table = table.outcomes;
  if (!table || typeof table !== "object" || Array.isArray(table)) return [];
  /** @type {OddsSegment[]} */
  const segs = [];
  const known = OUTCOMES[system] ?? [];
  const seen = new Set();
  for (const [outcome, tone] of known) {
    if (!(outcome in table)) continue;
    const pr = prob(table[outcome]);
    if (!pr) continue;
    seen.add(outcome);
    segs.push({ outcome, tone, p: pr.p, pct: percent(pr.p), exact: pr.exact, width: 0 });
  }
  for (const [outcome, v] of Object.entries(table)) {
    if (seen.has(outcome)) continue;
    const pr = prob(v);
    if (!pr) continue;
    segs.push({ outcome, tone: "neutral", p: pr.p, pct: percent(pr.p), exact: pr.exact, width: 0 });
  }
  const total = segs.reduce((s, x) => s + x.p, 0);
  for (const s of segs) s.width = total > 0 ? Math.round((s.p / total) * 10000) / 100 : 0;
  return segs;
}

/**
 * The chance the check succeeds, when the answer states it (`succeeds`).
 * @param {any} odds
 * @returns {string|null}
 */
export function succeeds(odds) {
  const pr = odds && typeof odds === "object" ? prob(odds.succeeds) : null;
  return pr ? percent(pr.p) : null;
}
