/**
 * The module socket as this client meets it: the frames relay/relay.mjs admits (version, type, sender,
 * fields), and what this page does with each.
 * @module
 */

import { listen, receive, sendFrame } from "../relay/relay.mjs";
import { RelayAnswers } from "./answering.mjs";

export class SocketFrames extends RelayAnswers {
  _bindSocket() {
    if (this._socketBound) return;
    this._socketBound = listen((data, sender) => this._onSocket(data, sender));
  }

  /**
   * A module-socket frame as it came: admitted by the protocol (version, type, sender, fields), else ignored
   * and logged.
   * @param {unknown} data
   * @param {unknown} sender  the sender's user id as Foundry passes it; frames without one are dropped
   */
  _onSocket(data, sender) {
    const here = { relay: this.relayId, isRelay: this.isRelay, user: (/** @type {string} */ id) => game.users?.get(id) };
    return receive(data, sender, here, (f, from) => this._onFrame(f, from));
  }

  /**
   * An admitted frame: what this page does with it (frames for the relay go to the module's listeners).
   * @param {import("../relay/relay.mjs").Frame} data
   * @param {string} sender
   */
  _onFrame(data, sender) {
    switch (data.t) {
      case "hello": {
        // One commitment, one user: a second user repeating it (a copy of someone's frame) makes it
        // name nobody, and its owner picks a new secret when the relay says it does not know the asker.
        const owner = this.commits.get(data.commit);
        this.commits.set(data.commit, owner === undefined || owner === sender ? sender : "");
        // A page that just started learns everyone's commitment and who holds the key.
        if (data.fresh === true && game.users?.get(sender)?.isGM) sendFrame("hello", { commit: this.commit, fresh: false });
        this._announce();
        if (this.isRelay) {
          this._broadcastStatus();
          if (this.mode === "local" && this.playerSnapshot) sendFrame("snapshot", { snapshot: this.playerSnapshot });
        }
        break;
      }
      case "key":
        if (this.election.holds(sender, data.has)) this.evaluate();
        break;
      case "status":
        if (this.own) break;
        this._relayStatusFrom = sender;
        this._setStatus(data.status.state, data.status.reason ?? null);
        break;
      case "snapshot":
        if (!this.own && this.mode === "local") this._setSnapshot(data.snapshot, "relay");
        break;
      case "bc":
        if (!this.own && this.mode === "local") this._onMessage(data.msg, "relay", false);
        break;
      default:
        // Frames the relay acts on for the module (request cards, remembered values, tokens): see hooks/ready.mjs.
        this.emit("socket", data, sender);
    }
  }

  /** A user connected or left: the relay may change; a new page needs the relay's state. */
  onUserConnected() {
    this._announce();
    this.evaluate();
    if (this.isRelay) this._broadcastStatus();
  }
}
