/**
 * The client's requests: on its own connection, or as a query to the relay's user, asked again across a
 * relay handover with the same id (the sidecar answers a repeat with its first reply).
 * @module
 */

import { MODULE_ID } from "../constants.mjs";
import { RequestError } from "../lib/connection.mjs";
import { newId } from "../lib/protocol.mjs";
import { relayBudget, timing } from "../lib/timings.mjs";
import { QUERY, t } from "./state.mjs";
import { SnapshotCache } from "./snapshots.mjs";

/** @typedef {import("./state.mjs").RelayedEntry} RelayedEntry */

/** The longest wait before a query the relay's page did not take is asked of it again. */
const RETRY_MAX_MS = 4000;

export class AskingClient extends SnapshotCache {
  /**
   * Send a request on this client's own view: directly, or through the relay.
   * @param {Record<string, any>} msg
   * @returns {Promise<Record<string, any>>}
   */
  request(msg) {
    if (this.own) return this.own.request(msg);
    if (this.isRelay) return Promise.reject(new RequestError("offline", this.status.reason ?? t("VERDICT.Status.gmNeedsKey")));
    if (this.relayId === null) return Promise.reject(new RequestError("offline", t("VERDICT.Status.gmAway")));
    const id = typeof msg.id === "string" && msg.id ? msg.id : newId();
    const wait = timing("request");
    return new Promise((resolve, reject) => {
      const entry = {
        msg: { ...msg, id }, resolve, reject, sentTo: /** @type {string|null} */ (null), deadline: Date.now() + wait,
        timer: setTimeout(() => {
          this.relayed.delete(id);
          reject(new RequestError("timeout", this.relayId === null ? t("VERDICT.Status.gmAway") : t("VERDICT.Status.noAnswer")));
        }, wait),
      };
      this.relayed.set(id, entry);
      this._sendRelayed(entry);
    });
  }

  /**
   * Ask the relay (a query to that one user). A failed query is asked again of the same relay, less and
   * less often, or of the next one when it is named; the answer is taken only from the user the query went to.
   * @param {RelayedEntry} entry
   */
  _sendRelayed(entry) {
    const to = this.relayId;
    const id = entry.msg.id;
    if (!to || to === this.me || !this.relayed.has(id)) return;
    entry.sentTo = to;
    entry.tries = (entry.tries ?? 0) + 1;
    entry.askedAt = Date.now();
    entry.last = `asked ${to}`;
    const settle = (/** @type {Record<string, any>} */ reply) => {
      if (this.relayed.get(id) !== entry) return;
      if (reply?.type === "error" && (reply.code === "not_relay" || reply.code === "unknown_sender")) {
        // The relay moved, or does not know this page's commitment (not heard yet, or copied by someone):
        // a new secret, announced again, and the next try.
        if (reply.code === "unknown_sender") this._newSecret();
        entry.sentTo = null;
        entry.last = `${to} answered ${reply.code}; asking again`;
        setTimeout(() => { if (this.relayed.get(id) === entry && entry.sentTo === null) this._sendRelayed(entry); }, 300);
        return;
      }
      this.relayed.delete(id);
      clearTimeout(entry.timer);
      if (!reply || typeof reply !== "object") entry.reject(new RequestError("bad_reply", "the relay sent no answer"));
      else if (reply.type === "error") entry.reject(new RequestError(reply.code, reply.message, reply));
      else entry.resolve(reply);
      if (reply && typeof reply === "object") this._onMessage(/** @type {import("../generated/protocol.mjs").AnyServerMessage} */ (reply), "relay", true);
    };
    // The relay is given what is left of this page's wait (a query asked again, or of the next relay, comes late).
    const budget = relayBudget(entry.deadline - Date.now());
    this._query(to, QUERY.request, { secret: this.secret, msg: entry.msg, budget })
      .then(settle)
      .catch((err) => {
        if (this.relayed.get(id) !== entry || entry.sentTo !== to) return;
        console.warn(`${MODULE_ID} | the relay did not answer ${id}`, err);
        entry.sentTo = null; // sent again when the relay changes, or below
        entry.last = `${to} did not answer: ${/** @type {Error} */ (err)?.message ?? err}`;
        // Foundry could not hand the query over, or the relay's page could not take it yet (a page loading
        // again has no handler until its module is ready, and no relay change follows to send it again):
        // asked again while that page stays the relay, less and less often, until the timer ends it.
        const delay = Math.min(RETRY_MAX_MS, 250 * 2 ** Math.min(entry.tries ?? 1, 5));
        setTimeout(() => { if (this.relayed.get(id) === entry && entry.sentTo === null && this.relayId === to) this._sendRelayed(entry); }, delay);
      });
  }

  /**
   * Roll a check. Resolves with the `rolled` reply.
   * @param {{check: Record<string, any>, actor?: string|null, target?: string|null, scene?: string|null,
   *   mode?: string, label?: string|null, extended?: string|null, gather?: string|null, part?: string|null}} opts
   */
  roll(opts) {
    return this.request({
      type: "roll", check: opts.check, actor: opts.actor ?? null, target: opts.target ?? null,
      scene: opts.scene ?? null, mode: opts.mode ?? "public", label: opts.label ?? null, extended: opts.extended ?? null,
      gather: opts.gather ?? null, part: opts.part ?? null,
    });
  }

  /** @param {Record<string, any>} check */
  odds(check) {
    return this.request({ type: "odds", check });
  }

  /**
   * @param {string} checkId
   * @param {Record<string, any>} action
   */
  follow(checkId, action) {
    return this.request({ type: "follow", check: checkId, action });
  }

  /**
   * Ask the ledger about a check (for the chat card's "unverified" mark, and a card this viewer has no fresh
   * copy of). Answers once per check, and again for a card that has changed since (a higher `seq`).
   * @param {string} checkId
   * @param {number} [seq]  the card's seq: a cached answer asked for an older one is asked again
   * @returns {Promise<import("../generated/protocol.mjs").Verified>}
   */
  verify(checkId, seq = 0) {
    this._verifying ??= new Map();
    const asked = this._verifying.get(checkId);
    if (!asked || asked.seq < seq) {
      const p = /** @type {Promise<import("../generated/protocol.mjs").Verified>} */ (this.request({ type: "verify", check: checkId }));
      p.catch(() => { if (this._verifying?.get(checkId)?.p === p) this._verifying.delete(checkId); });
      this._verifying.set(checkId, { p, seq });
    }
    return /** @type {{p: Promise<import("../generated/protocol.mjs").Verified>}} */ (this._verifying.get(checkId)).p;
  }

  /** Can this browser change the table (GM operations)? Else why not. @returns {string|null} */
  gmBlocked() {
    if (!game.user?.isGM) return t("VERDICT.Error.gmOnly");
    if (!this.hasGmKey) return t("VERDICT.Status.gmNeedsKey");
    return null;
  }

  /**
   * A GM operation on the table (a rule set's own, an extended or gathered check, a scene, undo).
   * @param {Record<string, any>} op
   */
  gm(op) {
    const blocked = this.gmBlocked();
    if (blocked || !this.own) return Promise.reject(new RequestError("forbidden", blocked ?? t("VERDICT.Status.offline")));
    return this.own.request({ type: "gm", op });
  }
}
