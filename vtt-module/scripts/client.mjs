/**
 * The module's one client of the sidecar: the connection plan, the snapshot cache and the answers to users'
 * queries. Exactly one browser, the relay, holds the connections the others depend on and writes the chat
 * cards: the connected GM whose browser has the GM key (Foundry's active-GM rule among them), re-chosen
 * whenever a user connects or leaves. Who that is and the module-socket frames the pages exchange are
 * declared in relay/relay.mjs; this file acts on them.
 *
 * - local mode: only GM browsers with the GM key connect. The relay also opens a "player view" (the
 *   table-wide player key, bound to no user: what every player may see) and, for each user who asks it
 *   something, a connection bound to that user with the user's own key (`user_key`), so the sidecar's
 *   filtering for that user decides what the reply holds. Players ask the relay with a targeted
 *   `User#query`; the answer comes back from the relay alone. What the player view receives is relayed
 *   to everyone on the module socket, and a client accepts such frames only from the relay's user id as
 *   Foundry reports the sender.
 * - server mode: every client connects directly: GMs with the GM key, players with their user key (asked
 *   of the relay by a targeted query, kept in this browser's storage only), else with the table-wide
 *   player key, read-only.
 *
 * A player proves who asks a query by a secret whose hash its own socket frame announced (Foundry names
 * the sender of socket frames but not of queries); see `hello` in client/frames.mjs.
 *
 * The client is built in layers, one job a file, each extending the one before: client/state.mjs (what it
 * knows and says of its place), client/snapshots.mjs (the table's copy), client/asking.mjs (its requests),
 * client/plan.mjs (the connection plan), client/user-keys.mjs and client/answering.mjs (the relay's side),
 * client/frames.mjs (the module socket). This file is what the rest of the module imports.
 */

import { sendFrame } from "./relay/relay.mjs";
import { SocketFrames } from "./client/frames.mjs";

export { QUERY } from "./client/state.mjs";

/** @type {VerdictClient|null} the page's client (set by `start`) */
let current = null;

/** @returns {boolean} this browser is the relay (writes cards, syncs tokens, answers players) */
export function isRelay() {
  return Boolean(current?.isRelay);
}

/**
 * This browser's way to the sidecar. Events: "status" (status), "snapshot" (snapshot), "message" (msg,
 * source, reply) for every reply and broadcast on this client's own view, "player-message" (msg) for what
 * the relay's player view receives, "relay" (relayId) when the relay changes, "socket" (data, sender) for
 * module-socket frames the client does not handle itself.
 */
export class VerdictClient extends SocketFrames {
  start() {
    current = this;
    this.started = true;
    this._bindSocket();
    this._registerQueries();
    if (this.hasGmKey) this.holders.add(/** @type {string} */ (this.me));
    this._announce();
    sendFrame("hello", { commit: this.commit, fresh: true });
    this.evaluate();
  }
}
