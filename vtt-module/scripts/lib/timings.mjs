/**
 * The module's own waits, in milliseconds: the values it ships with, and the one place a world may change
 * them. A world's script, its system or another module may set `CONFIG.verdict.timings` (Foundry's CONFIG is
 * where a world tunes what its packages do), e.g. `CONFIG.verdict = {timings: {takeover: 3000}}` for a table
 * whose GMs sit on slow links. Each wait is read when it is next used (the reconnect delays when a connection
 * is made); a value that is not a finite number of at least 0 keeps the shipped one.
 * @module
 */

/** @typedef {ReturnType<typeof setTimeout>} Timer a pending `setTimeout`, for `clearTimeout` */
/** @typedef {"pair"|"takeover"|"reconnectBase"|"reconnectMax"|"request"|"queryTravel"|"relayOpen"|"verifyRecheck"|"diceLanding"} TimingName */

/** @type {Readonly<Record<TimingName, number>>} */
export const TIMINGS = Object.freeze({
  /** How long the relay waits for the player view's broadcast copy of a public roll before asking the ledger. */
  pair: 800,
  /** How long a new relay lets the old relay's last messages land before writing the cards still missing. */
  takeover: 1200,
  /** The first reconnect delay after a socket to the sidecar drops (doubled each try, with jitter). */
  reconnectBase: 500,
  /** The longest reconnect delay (also the wait after a refusal that retrying soon cannot fix). */
  reconnectMax: 30000,
  /**
   * How long a player's request waits for the relay's answer, through any number of relay handovers: long
   * enough for Foundry to notice a relay whose network stalled (its socket times out) and name the next one.
   */
  request: 45000,
  /** What the relay leaves of the player's wait for the query and its answer to cross Foundry's server. */
  queryTravel: 5000,
  /** How long the relay waits for its own connections to open before answering a request "offline". */
  relayOpen: 8000,
  /**
   * How long a card the ledger's answer does not match waits before the ledger is asked once more: the ledger
   * may already hold a follow-up whose document update is still on its way (the card is then drawn again).
   */
  verifyRecheck: 1500,
  /**
   * The longest a card's outcome waits for Dice So Nice's dice to land: its animation promise may never settle
   * (a throw it cannot animate fails inside its queue).
   */
  diceLanding: 10000,
});

/**
 * One wait: the world's `CONFIG.verdict.timings[name]` if it is a usable number, else the shipped value.
 * @param {TimingName} name
 * @returns {number}
 */
export function timing(name) {
  const set = /** @type {{CONFIG?: {verdict?: {timings?: Record<string, unknown>}}}} */ (globalThis).CONFIG?.verdict?.timings?.[name];
  return typeof set === "number" && Number.isFinite(set) && set >= 0 ? set : TIMINGS[name];
}

/**
 * How long the relay may take over one player's request, all its steps together (its connections, the user's
 * key, the sidecar's reply): the player's wait less the query's travel, so the relay's answer, its reason
 * included, lands before the player stops waiting. Derived from the player's wait rather than the reverse:
 * that wait is the one with its own reason (it outlasts a handover), and a derived budget cannot drift past it.
 * @param {number} [wait]  what is left of the player's wait (default: all of it)
 * @param {number} [travel]
 * @returns {number}
 */
export function relayBudget(wait = timing("request"), travel = timing("queryTravel")) {
  return Math.max(0, wait - travel);
}
