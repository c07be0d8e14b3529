/**
 * Users' keys, on the relay: the connection bound to each user that asks (local mode), opened with the key the
 * sidecar derives for that user, and a user's own key handed to that user alone (server mode).
 * @module
 */

import { RequestError } from "../lib/connection.mjs";
import { t } from "./state.mjs";
import { ConnectionPlan } from "./plan.mjs";

/** @typedef {import("../lib/connection.mjs").Connection} Connection */

export class UserKeys extends ConnectionPlan {
  /**
   * Relay: the connection bound to one user, opened on first use with the key the sidecar derives for
   * that user. `null` when the sidecar has no user keys (an older sidecar).
   * @param {string} user
   * @returns {Promise<Connection|null>}
   */
  _userConn(user) {
    const open = this.userConns.get(user);
    if (open) return Promise.resolve(open);
    let p = this._opening.get(user);
    if (!p) {
      p = this._userKey(user).then((key) => {
        this._opening.delete(user);
        if (!key) return null;
        if (!this.isRelay) throw new RequestError("not_relay", "this browser no longer relays");
        const conn = this._make(key, user);
        this.userConns.set(user, conn);
        conn.on("key-replaced", () => {
          if (this.userConns.get(user) === conn) this._keyReplaced("relayed", user);
        });
        conn.start();
        return conn;
      }, (err) => {
        this._opening.delete(user);
        throw err;
      });
      this._opening.set(user, p);
    }
    return p;
  }

  /**
   * The user's key from the GM connection; null when the sidecar does not know `user_key`.
   * @param {string} user
   * @returns {Promise<string|null>}
   */
  async _userKey(user) {
    if (!this.own) throw new RequestError("offline", t("VERDICT.Status.gmNeedsKey"));
    try {
      const reply = await this.own.request({ type: "user_key", user });
      return typeof reply.key === "string" ? reply.key : null;
    } catch (err) {
      const code = /** @type {{code?: string}} */ (err).code;
      if (code === "unknown_type" || code === "invalid_message") return null;
      throw err;
    }
  }

  /**
   * Relay, server mode: a user's key, to that user alone (the query's answer).
   * @param {{secret?: string}} data
   */
  async _answerUserKey(data) {
    if (!this.isRelay) return { code: "not_relay" };
    const user = this._asker(data?.secret);
    if (!user) return { code: "unknown_sender" };
    try {
      const key = await this._userKey(user);
      return key ? { key } : { code: "unsupported" };
    } catch (err) {
      return { code: /** @type {{code?: string}} */ (err).code ?? "error" };
    }
  }
}
