/**
 * The client's copy of the table: the snapshots its connections receive (the relay's player view's too), the
 * faces the ledger reported, each user's own copy of their rolls, and the refreshes that keep them current.
 * @module
 */

import { sendFrame } from "../relay/relay.mjs";
import { ITEM_LISTS } from "../lib/drawing.mjs";
import { EXTENDED } from "../lib/systems.mjs";
import { ClientState } from "./state.mjs";

/** @typedef {import("../generated/protocol.mjs").Welcome} Welcome */
/** @typedef {import("../generated/protocol.mjs").AnyEvent} AnyEvent */
/** @typedef {import("../generated/protocol.mjs").AnyServerMessage} AnyServerMessage */

export class SnapshotCache extends ClientState {
  /**
   * @param {Welcome} welcome
   * @param {"own"|"player-view"} source
   */
  _onWelcome(welcome, source) {
    if (source === "own") this.role = welcome.role;
    for (const ev of welcome.events ?? []) this._learn(ev?.event);
    if (welcome.snapshot) this._setSnapshot(welcome.snapshot, source);
    else this._scheduleRefresh(source);
  }

  /**
   * Remember the faces of a roll event, to mark cards the ledger does not back.
   * @param {AnyEvent|undefined} ev
   */
  _learn(ev) {
    if (ev && (ev.kind === "roll" || ev.kind === "follow") && ev.check_id && ev.result) {
      this.known.set(ev.check_id, JSON.stringify(ev.result.dice ?? []));
    }
  }

  /**
   * @param {Record<string, any>} snapshot
   * @param {"own"|"player-view"|"relay"} source
   */
  _setSnapshot(snapshot, source) {
    if (source === "player-view") {
      this.playerSnapshot = snapshot;
      if (this.mode === "local" && this.isRelay) sendFrame("snapshot", { snapshot });
      if (this.own) return;
    }
    this.snapshot = snapshot;
    this._keepEntryTexts(snapshot);
    this.emit("snapshot", snapshot);
  }

  /**
   * Keep the texts of the entries of every drawn list this snapshot holds (on its scenes and its actors), by
   * list and id, for cards that name an entry by its id after the table no longer holds it. A hidden entry's
   * text is kept only for the GM.
   * @param {Record<string, any>} snapshot
   */
  _keepEntryTexts(snapshot) {
    const holders = [...Object.values(snapshot?.scenes ?? {}), ...Object.values(snapshot?.actors ?? {})];
    for (const { part } of ITEM_LISTS) {
      const idField = part.id ?? "id";
      const textField = part.text ?? "text";
      let texts = this.entryTexts.get(part.field);
      for (const holder of holders) {
        for (const entry of /** @type {any} */ (holder)?.[part.field] ?? []) {
          const id = entry?.[idField];
          const text = entry?.[textField];
          if (typeof id !== "string" || typeof text !== "string") continue;
          if (part.hidden && entry[part.hidden] && this.role !== "gm") continue;
          if (!texts) this.entryTexts.set(part.field, (texts = new Map()));
          texts.set(id, text);
        }
      }
    }
  }

  /**
   * Ask for a fresh snapshot shortly (changes come in bursts: one request answers them all). A request
   * that fails (the socket dropped, the sidecar busy) is asked again, a few times, so a view is never left
   * stale by one lost answer.
   * @param {"own"|"player-view"|"relay"} source
   * @param {number} [delay]
   * @param {number} [tries]  attempts left after this one
   */
  _scheduleRefresh(source, delay = 120, tries = 4) {
    if (source === "relay") return;
    const pv = source === "player-view";
    clearTimeout(pv ? this._pvRefresh : this._refreshTimer);
    const timer = setTimeout(() => {
      const conn = pv ? this.playerView : this.own;
      if (!conn) return;
      conn.request({ type: "state" })
        .then((r) => r.snapshot && this._setSnapshot(r.snapshot, pv ? "player-view" : "own"))
        .catch(() => { if (tries > 0) this._scheduleRefresh(source, 1000, tries - 1); });
    }, delay);
    if (pv) this._pvRefresh = timer;
    else this._refreshTimer = timer;
  }

  /** A fresh snapshot now (a view that opens wants the table as it is, not as the last change left it). */
  refreshSnapshot() {
    if (this.own) this._scheduleRefresh("own", 0);
    else if (this.playerView) this._scheduleRefresh("player-view", 0);
  }

  /**
   * Every decoded message on this client's own view of the table.
   * @param {AnyServerMessage} msg
   * @param {"own"|"relay"} source
   * @param {boolean} reply
   */
  _onMessage(msg, source, reply) {
    if ((msg.type === "rolled" || msg.type === "followed") && msg.result) {
      this.known.set(msg.check, JSON.stringify(msg.result?.dice ?? []));
    }
    if (msg.type === "rolled" || msg.type === "followed") {
      // What this user may see of their own roll, and the follow-ups open to them on it: the replies to their
      // requests, and what their own connection hears of those checks (a GM's follow-up changes what is
      // open). Cards draw from here, never from the shared document.
      const prev = this.mine.get(msg.check);
      if (reply || (source === "own" && prev)) {
        this.mine.set(msg.check, { ...(prev ?? {}), ...msg, label: prev?.label ?? ("label" in msg ? msg.label : null) ?? null, open: msg.open });
      }
    }
    if (msg.type === "event") this._learn(msg.event);
    if (msg.type === "rolled" || msg.type === "followed" || msg.type === "done" || msg.type === "event") {
      // A roll into an extended check moves its progress, which only the snapshot shows.
      if (msg.type !== "rolled" || (msg.events ?? []).length || EXTENDED.includes(msg.result?.system ?? "")) this._scheduleRefresh(source === "own" ? "own" : "relay");
    }
    if (msg.type === "state" && msg.snapshot) this._setSnapshot(msg.snapshot, source);
    this.emit("message", msg, source, reply);
  }

  /**
   * Relay: what the player-view connection receives.
   * @param {AnyServerMessage} msg
   * @param {boolean} reply
   */
  _onPlayerView(msg, reply) {
    this.emit("player-message", msg);
    if (["rolled", "followed", "done", "event"].includes(msg.type)) this._scheduleRefresh("player-view");
    if (!reply && this.mode === "local" && this.isRelay && !["pong", "welcome", "state"].includes(msg.type)) {
      sendFrame("bc", { msg });
    }
  }
}
