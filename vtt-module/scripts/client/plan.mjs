/**
 * The connection plan: which connections this browser holds for its place at the table (relay or not, local
 * or server mode, which keys), re-chosen when the relay or the settings change, and what a refused key does.
 * @module
 */

import { MODULE_ID } from "../constants.mjs";
import { RequestError } from "../lib/connection.mjs";
import { diagnose } from "../lib/local-network.mjs";
import { sendFrame } from "../relay/relay.mjs";
import { gmKeyFormClass, setting } from "../settings.mjs";
import { QUERY, t } from "./state.mjs";
import { AskingClient } from "./asking.mjs";

/** @typedef {import("../lib/connection.mjs").Connection} Connection */
/** @typedef {import("../generated/protocol.mjs").Welcome} Welcome */
/** @typedef {import("../generated/protocol.mjs").AnyServerMessage} AnyServerMessage */

/** @returns {import("../relay/relay.mjs").RelayUser[]} */
function foundryUsers() {
  return (game.users?.contents ?? []).map((u) => ({ id: u.id ?? "", isGM: Boolean(u.isGM), active: Boolean(u.active), role: Number(u.role ?? 0) }));
}

export class ConnectionPlan extends AskingClient {
  stop() {
    this._closeAll();
    for (const [id, p] of this.relayed) {
      clearTimeout(p.timer);
      p.reject(new RequestError("offline", "stopped"));
      this.relayed.delete(id);
    }
  }

  /** Settings changed: reconnect with them, without a reload. */
  restart() {
    this._closeAll();
    this._explained = null;
    if (this.hasGmKey) this.holders.add(/** @type {string} */ (this.me));
    else this.holders.delete(/** @type {string} */ (this.me));
    this._announce();
    this.relayId = null;
    this.evaluate();
  }

  _closeAll() {
    this.own?.stop();
    this.playerView?.stop();
    for (const c of this.userConns.values()) c.stop();
    this.own = null;
    this.playerView = null;
    this.userConns.clear();
    this._opening.clear();
    this._ownKey = "";
    this._relayKey = "";
  }

  /**
   * Re-choose the relay and bring this browser's connections in line. Called at start, when a user
   * connects or leaves (`userConnected`), and when a GM says whether it has the key.
   */
  evaluate() {
    if (!this.started) return;
    const changed = this.election.elect(foundryUsers(), game.users?.activeGM?.id ?? null);
    this._reconcile();
    if (changed) {
      this.emit("relay", this.relayId);
      if (this.isRelay) {
        this._broadcastStatus();
        if (this.playerSnapshot) sendFrame("snapshot", { snapshot: this.playerSnapshot });
      }
      // Requests in flight go to the new relay with the same ids: the sidecar answers a repeat with its
      // first reply, so a handover neither loses nor repeats a roll.
      for (const entry of this.relayed.values()) if (entry.sentTo !== this.relayId) this._sendRelayed(entry);
    }
    this._showRelayStatus();
  }

  /** Open or close connections for this browser's place at the table (relay or not, mode, keys). */
  _reconcile() {
    const base = [this.mode, setting("table"), setting("url")].join("|");
    const wantOwn = this.hasGmKey ? "gm" : this.mode === "server" ? "player" : "";
    // A player connected read-only (no user key yet) asks again when the relay changes.
    const ownKey = wantOwn ? `${wantOwn}|${base}${wantOwn === "player" && this._ownReadOnly ? `|${this.relayId}` : ""}` : "";
    if (ownKey !== this._ownKey) {
      this.own?.stop();
      this.own = null;
      this._ownReadOnly = false;
      this._ownKey = ownKey;
      if (wantOwn === "gm") {
        this.own = this._make(setting("gmKey"), this.me);
        this._wireOwn(this.own);
      } else if (wantOwn === "player") {
        this._openPlayer(ownKey);
      }
    }
    const relayKey = this.isRelay && this.hasGmKey && setting("playerKey") ? base : "";
    if (relayKey !== this._relayKey) {
      this.playerView?.stop();
      this.playerView = null;
      for (const c of this.userConns.values()) c.stop();
      this.userConns.clear();
      this._opening.clear();
      this._relayKey = relayKey;
      if (relayKey) {
        this.playerView = this._make(setting("playerKey"), null);
        this.playerView.on("state", () => this._broadcastStatus());
        this.playerView.on("key-replaced", () => this._keyReplaced("playerKey"));
        this.playerView.on("welcome", (/** @type {Welcome} */ w) => this._onWelcome(w, "player-view"));
        this.playerView.on("message", (/** @type {AnyServerMessage} */ m, /** @type {{reply: boolean}} */ info) => this._onPlayerView(m, info.reply));
        this.playerView.start();
      }
    }
    if (this.isRelay && !this.hasGmKey && game.user?.isGM) {
      // The relay has no GM key (no connected GM has it): tell this GM how to connect, players why nothing answers.
      if (!this._warnedNoKey) ui.notifications?.warn(t("VERDICT.Status.gmNeedsKey"), { permanent: true });
      this._warnedNoKey = true;
      this._setStatus("offline", t("VERDICT.Status.gmNeedsKey"));
    }
  }

  /**
   * A connection of this page's own that has not opened: find out why (Chrome's Local Network Access, mixed
   * content, nothing listening) and say it once, in one notification that tells the user what to do.
   * @param {Connection} conn
   * @param {string|null} reason
   */
  async _explainUnreachable(conn, reason) {
    if (conn.welcome || !reason || !/unreachable|cannot open/.test(reason)) return;
    const target = conn.options.url;
    /** @type {"granted"|"denied"|"prompt"|null} */
    let permission = null;
    const permissions = /** @type {{permissions?: {query(descriptor: {name: string}): Promise<{state?: "granted"|"denied"|"prompt"}>}}|undefined} */ (globalThis.navigator)?.permissions;
    for (const name of ["loopback-network", "local-network", "local-network-access"]) {
      try {
        const answer = await permissions?.query({ name });
        if (answer?.state) {
          permission = answer.state;
          break;
        }
      } catch {
        /* a name this browser does not know */
      }
    }
    const cause = diagnose({ page: globalThis.location?.href ?? "http://localhost/", target, secure: Boolean(globalThis.isSecureContext), permission });
    if (this.own !== conn || conn.state === "open") return;
    const text = game.i18n?.format(`VERDICT.Unreachable.${cause}`, { url: setting("url") }) ?? cause;
    if (this._explained !== cause) ui.notifications?.warn(text, { permanent: true });
    this._explained = cause;
    this._setStatus(conn.state, text);
  }

  /** @param {Connection} conn */
  _wireOwn(conn) {
    conn.on("state", (/** @type {string} */ s, /** @type {string|null} */ r) => {
      this._setStatus(s, r);
      if (s !== "open") this._explainUnreachable(conn, r);
      if (this.isRelay) this._broadcastStatus();
    });
    conn.on("welcome", (/** @type {Welcome} */ w) => this._onWelcome(w, "own"));
    conn.on("message", (/** @type {AnyServerMessage} */ m, /** @type {{reply: boolean}} */ info) => this._onMessage(m, "own", info.reply));
    conn.on("key-replaced", () => this._keyReplaced("gmKey"));
    conn.start();
  }

  /**
   * The sidecar ended a connection because the table's keys were rotated (close 4403): the key it used opens
   * nothing now, and reconnecting with it would be refused forever. The GM's key is forgotten and its form
   * shown (the settings change reconnects everything); a user key is forgotten and asked of the relay again;
   * a relayed user's connection is let go of (the next request derives the user's key afresh); the world's
   * player key waits for the GM to set the new one (the connection says why it is offline).
   * @param {"gmKey"|"playerKey"|"userKey"|"relayed"} which
   * @param {string} [user]  the relayed user
   */
  _keyReplaced(which, user) {
    if (which === "relayed") {
      if (user !== undefined) this.userConns.delete(user);
    } else if (which === "userKey") {
      this.own = null;
      this._ownKey = "";
      this._reconcile();
    } else if (which === "gmKey") {
      ui.notifications?.error(t("VERDICT.Status.keyReplaced"), { permanent: true });
      this._warnedNoKey = true; // said now: the reconnect without a key need not say it again
      void game.settings?.set(MODULE_ID, "gmKey", "");
      try {
        new (gmKeyFormClass())().render({ force: true });
      } catch {
        /* no application classes here (a test, an older Foundry): the notification says where the form is */
      }
    } else if (game.user?.isGM) {
      ui.notifications?.error(t("VERDICT.Status.noPlayerKey"), { permanent: true });
    }
  }

  /**
   * Server mode, a player: connect with this user's key (asked of the relay once, kept in this browser's
   * storage), else with the table-wide player key, read-only.
   * @param {string} ownKey  the connection plan this call serves (a newer plan cancels it)
   */
  async _openPlayer(ownKey) {
    const table = setting("table");
    const me = this.me;
    if (!table || !me) {
      this._setStatus("offline", t("VERDICT.Status.notConfigured"));
      return;
    }
    const storeKey = `${MODULE_ID}.userKey.${table}.${me}`;
    let userKey = globalThis.localStorage?.getItem(storeKey) ?? null;
    for (let attempt = 0; !userKey && attempt < 3 && this.relayId && this.relayId !== me; attempt++) {
      try {
        const reply = await this._query(this.relayId, QUERY.userKey, { secret: this.secret });
        if (typeof reply?.key === "string" && reply.key) {
          userKey = String(reply.key);
          globalThis.localStorage?.setItem(storeKey, userKey);
        } else if (reply?.code === "unknown_sender" || reply?.code === "not_relay" || reply?.code === "offline") {
          if (reply.code === "unknown_sender") this._newSecret();
          await new Promise((r) => setTimeout(r, 400));
          continue;
        }
      } catch (err) {
        console.warn(`${MODULE_ID} | no user key from the relay`, err);
      }
      break;
    }
    if (this._ownKey !== ownKey || this.own) return;
    const readOnly = !userKey;
    const conn = userKey ? this._make(userKey, me) : setting("playerKey") ? this._make(setting("playerKey"), null) : null;
    if (!conn) {
      this._setStatus("offline", t("VERDICT.Status.notConfigured"));
      return;
    }
    this.own = conn;
    this._ownReadOnly = readOnly;
    if (readOnly) this._ownKey = `${ownKey}|${this.relayId}`;
    conn.on("state", (/** @type {string} */ s, /** @type {string|null} */ r) => {
      // A refused user key (keys rotated): forget it, ask again on the next start.
      if (userKey && s === "offline" && conn.lastError?.code) globalThis.localStorage?.removeItem(storeKey);
      this._setStatus(s, r);
      if (s !== "open") this._explainUnreachable(conn, r);
    });
    conn.on("welcome", (/** @type {Welcome} */ w) => this._onWelcome(w, "own"));
    conn.on("message", (/** @type {AnyServerMessage} */ m, /** @type {{reply: boolean}} */ info) => this._onMessage(m, "own", info.reply));
    conn.on("key-replaced", () => {
      if (this.own !== conn) return;
      if (userKey) globalThis.localStorage?.removeItem(storeKey);
      this._keyReplaced(userKey ? "userKey" : "playerKey");
    });
    conn.start();
  }
}
