/**
 * The relay's answers to users' requests (the `verdict.request` query): who asks (by the secret whose hash
 * the asker's socket frame announced), on which connection the sidecar treats it as that user's, each step
 * bounded by what is left of the asker's wait.
 * @module
 */

import { RequestError } from "../lib/connection.mjs";
import { relayBudget, timing } from "../lib/timings.mjs";
import { QUERY, t } from "./state.mjs";
import { UserKeys } from "./user-keys.mjs";

/** @typedef {import("../lib/connection.mjs").Connection} Connection */
/** @typedef {import("./state.mjs").Status} Status */

/**
 * What the relay's answer to a user's request waits for, one step after another.
 * @typedef {"connections"|"userKey"|"userConnection"|"userReply"|"playerReply"} RelayStep
 */

/** Requests a user may relay through the GM: never `gm` (table operations are the GM's alone). */
const RELAYABLE = new Set(["roll", "odds", "follow", "state", "verify", "ping"]);
/** @type {Record<RelayStep, string>} what each step of the relay's answer waits for, in words */
const STEP_TEXT = {
  connections: "VERDICT.Relay.connections",
  userKey: "VERDICT.Relay.userKey",
  userConnection: "VERDICT.Relay.userConnection",
  userReply: "VERDICT.Relay.userReply",
  playerReply: "VERDICT.Relay.playerReply",
};

/**
 * `work`'s outcome, or `late()` thrown when it takes longer than `ms` (`work` itself goes on).
 * @template T
 * @param {Promise<T>} work
 * @param {number} ms
 * @param {() => Error} late
 * @returns {Promise<T>}
 */
function within(work, ms, late) {
  /** @type {import("../lib/timings.mjs").Timer|undefined} */
  let timer;
  const expired = new Promise((_resolve, reject) => { timer = setTimeout(() => reject(late()), Math.max(0, ms)); });
  return /** @type {Promise<T>} */ (Promise.race([work, expired])).finally(() => clearTimeout(timer));
}

export class RelayAnswers extends UserKeys {
  _registerQueries() {
    const config = /** @type {{CONFIG?: {queries?: Record<string, Function>}}} */ (globalThis).CONFIG;
    if (!config) return;
    config.queries ??= {};
    config.queries[QUERY.request] = (/** @type {{secret?: string, msg?: Record<string, unknown>, budget?: number}} */ data) => this._answerRequest(data);
    config.queries[QUERY.userKey] = (/** @type {{secret?: string}} */ data) => this._answerUserKey(data);
  }

  /**
   * Relay: a user's request (the `verdict.request` query). Returns the reply for that user alone, within
   * the relay's budget (less when the asker says it has less time left): every step gets what is left of it,
   * and a step that outlasts it ends the answer with a "timeout" naming that step, while the asker still waits.
   * @param {{secret?: string, msg?: Record<string, unknown>, budget?: number}} data
   */
  async _answerRequest(data) {
    const msg = data?.msg;
    const id = msg && typeof msg.id === "string" ? msg.id : null;
    if (!msg || !id) return { type: "error", id: null, code: "invalid_message", message: "a request needs an id" };
    if (!this.isRelay) return { type: "error", id, code: "not_relay", message: "this browser does not relay" };
    const user = this._asker(data.secret);
    if (!user) return { type: "error", id, code: "unknown_sender", message: "say hello on the module socket first" };
    if (typeof msg.type !== "string" || !RELAYABLE.has(msg.type)) return { type: "error", id, code: "forbidden", message: "only the GM's own browser sends this request" };
    // What this answer waits for, step by step, while it does (for whoever asks why a request takes long).
    const key = `${user}:${id}`;
    const answer = { user, type: String(msg.type), waits: t(STEP_TEXT.connections), since: Date.now() };
    this.answering.set(key, answer);
    const asked = data.budget;
    const budget = typeof asked === "number" && asked >= 0 ? Math.min(asked, relayBudget()) : relayBudget();
    const deadline = answer.since + budget;
    /** @param {RelayStep} step */
    const gaveUp = (step) => game.i18n?.format("VERDICT.Relay.gaveUp", { step: t(STEP_TEXT[step]), seconds: String(Math.round((Date.now() - answer.since) / 1000)) }) ?? step;
    try {
      // A relay that has just taken over may still be connecting: wait for it rather than refuse.
      const status = await this._openOrTimeout(Math.min(timing("relayOpen"), deadline - Date.now()));
      if (status.state !== "open") return { type: "error", id, code: "offline", message: status.reason ?? gaveUp("connections") };
      const reply = await this._relay(msg, user, (step, work) => {
        answer.waits = t(STEP_TEXT[step]);
        return within(work, deadline - Date.now(), () => new RequestError("timeout", gaveUp(step)));
      });
      return { ...reply, id };
    } catch (err) {
      return { type: "error", id, code: /** @type {{code?: string}} */ (err).code ?? "error", message: /** @type {Error} */ (err).message };
    } finally {
      if (this.answering.get(key) === answer) this.answering.delete(key);
    }
  }

  /**
   * The relay's status once its connections are open, or as it is after `ms`.
   * @param {number} ms
   * @returns {Promise<Status>}
   */
  async _openOrTimeout(ms) {
    const until = Date.now() + ms;
    let status = this._playerStatus();
    while (status.state !== "open" && this.hasGmKey && this.isRelay && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 150));
      status = this._playerStatus();
    }
    return status;
  }

  /**
   * Send a user's request where the sidecar treats it as that user's: reads that every player may see on
   * the player view, rolls and follow-ups on the user's own connection.
   * @param {Record<string, unknown>} msg
   * @param {string} user
   * @param {<T>(step: RelayStep, work: Promise<T>) => Promise<T>} [step]  each step's work goes through it
   *   (to say what the request waits for, and to bound it)
   */
  async _relay(msg, user, step = (_step, work) => work) {
    const { id: _id, user: _claimed, ...rest } = msg;
    const id = String(msg.id);
    if (msg.type === "odds" || msg.type === "state" || msg.type === "ping") {
      return step("playerReply", /** @type {Connection} */ (this.playerView).request({ ...rest, id: `${user}:${id}` }));
    }
    if (this.mode === "server") throw new RequestError("forbidden", t("VERDICT.Status.serverModeDirect"));
    const conn = await step(this.userConns.has(user) ? "userConnection" : "userKey", this._userConn(user));
    if (conn) return step("userReply", conn.request({ ...rest, id }));
    // A sidecar without user keys: the player view acts for the user (the older protocol).
    /** @type {Record<string, unknown>} */
    const out = { ...rest, id: `${user}:${id}` };
    if (msg.type === "roll" || msg.type === "follow") out.user = user;
    return step("playerReply", /** @type {Connection} */ (this.playerView).request(out));
  }
}
