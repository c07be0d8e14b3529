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
 * A chance as the sidecar states it: a number, or the protocol's `Probability` (`{num, den, p}`).
 * @param {unknown} v
 * @returns {{p: number, exact: string|null} | null}
 */
function prob(v) {
  if (typeof v === "number" && Number.isFinite(v)) return { p: v, exact: null };
  if (v && typeof v === "object") {
    const given = /** @type {{num?: unknown, den?: unknown, p?: unknown}} */ (v);
    const num = Number(given.num);
    const den = Number(given.den);
    const p = typeof given.p === "number" ? given.p : den > 0 ? num / den : NaN;
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
 * @param {unknown} odds  a rule set's odds (the protocol's `AnyOdds`), or a table of chances by outcome
 * @returns {OddsSegment[]}
 */
export function oddsSegments(system, odds) {
  /** @type {unknown} */
  let found = odds;
  const given = /** @type {{outcome?: unknown, outcomes?: unknown}|null} */ (odds && typeof odds === "object" ? odds : null);
  // protocol/v1/odds.py: `outcome` is a list of {value, chance: {num, den, p}}, every outcome, best first.
  if (given && Array.isArray(given.outcome)) {
    const listed = /** @type {Array<{value?: unknown, chance?: unknown}|null>} */ (given.outcome);
    found = Object.fromEntries(listed.filter((c) => c && typeof c.value === "string").map((c) => [c?.value, c?.chance]));
  } else if (given && given.outcomes && typeof given.outcomes === "object") found = given.outcomes;
  if (!found || typeof found !== "object" || Array.isArray(found)) return [];
  const table = /** @type {Record<string, unknown>} */ (found);
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
 * @param {unknown} odds
 * @returns {string|null}
 */
export function succeeds(odds) {
  const pr = odds && typeof odds === "object" ? prob(/** @type {{succeeds?: unknown}} */ (odds).succeeds) : null;
  return pr ? percent(pr.p) : null;
}
