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
 * the sender of socket frames but not of queries); see `hello` below.
 */

import { CLIENT_NAME, MODULE_ID } from "./constants.mjs";
import { Connection, RequestError } from "./lib/connection.mjs";
import { Emitter } from "./lib/emitter.mjs";
import { newId, wsUrl } from "./lib/protocol.mjs";
import { Election, listen, receive, sendFrame } from "./relay/relay.mjs";
import { sha256 } from "./lib/sha256.mjs";
import { diagnose } from "./lib/local-network.mjs";
import { gmKeyFormClass, setting } from "./settings.mjs";
import { relayBudget, timing } from "./lib/timings.mjs";
import { EXTENDED } from "./lib/systems.mjs";

/** @typedef {{state: string, reason: string|null}} Status */
/**
 * A request this page sent through the relay. `tries`, `askedAt` and `last` say what became of it so far
 * (shown when a request takes long: which relay was asked, when, and what it last said). `deadline`: when
 * the page stops waiting (`Date.now()` time).
 * @typedef {{msg: Record<string, any>, resolve: Function, reject: Function, timer: any, deadline: number,
 *   sentTo: string|null, tries?: number, askedAt?: number, last?: string}} RelayedEntry
 */
/**
 * What the relay's answer to a user's request waits for, one step after another.
 * @typedef {"connections"|"userKey"|"userConnection"|"userReply"|"playerReply"} RelayStep
 */

/** Requests a user may relay through the GM: never `gm` (table operations are the GM's alone). */
const RELAYABLE = new Set(["roll", "odds", "follow", "state", "verify", "ping"]);
/** Queries the module registers in `CONFIG.queries`. */
export const QUERY = { request: `${MODULE_ID}.request`, userKey: `${MODULE_ID}.userKey` };
/** The longest wait before a query the relay's page did not take is asked of it again. */
const RETRY_MAX_MS = 4000;
/** @type {Record<RelayStep, string>} what each step of the relay's answer waits for, in words */
const STEP_TEXT = {
  connections: "VERDICT.Relay.connections",
  userKey: "VERDICT.Relay.userKey",
  userConnection: "VERDICT.Relay.userConnection",
  userReply: "VERDICT.Relay.userReply",
  playerReply: "VERDICT.Relay.playerReply",
};

/** @type {VerdictClient|null} the page's client (set by `start`) */
let current = null;

/** @returns {boolean} this browser is the relay (writes cards, syncs tokens, answers players) */
export function isRelay() {
  return Boolean(current?.isRelay);
}

/** @param {string} key */
function t(key) {
  return game.i18n?.localize(key) ?? key;
}

/**
 * `work`'s outcome, or `late()` thrown when it takes longer than `ms` (`work` itself goes on).
 * @template T
 * @param {Promise<T>} work
 * @param {number} ms
 * @param {() => Error} late
 * @returns {Promise<T>}
 */
function within(work, ms, late) {
  /** @type {any} */
  let timer;
  const expired = new Promise((_resolve, reject) => { timer = setTimeout(() => reject(late()), Math.max(0, ms)); });
  return /** @type {Promise<T>} */ (Promise.race([work, expired])).finally(() => clearTimeout(timer));
}

/** @returns {import("./relay/relay.mjs").RelayUser[]} */
function foundryUsers() {
  return (game.users?.contents ?? []).map((u) => ({ id: u.id ?? "", isGM: Boolean(u.isGM), active: Boolean(u.active), role: Number(u.role ?? 0) }));
}

/**
 * This browser's way to the sidecar. Events: "status" (status), "snapshot" (snapshot), "message" (msg,
 * source, reply) for every reply and broadcast on this client's own view, "player-message" (msg) for what
 * the relay's player view receives, "relay" (relayId) when the relay changes, "socket" (data, sender) for
 * module-socket frames the client does not handle itself.
 */
export class VerdictClient extends Emitter {
  constructor() {
    super();
    /** @type {Connection|null} this browser's own connection (GM key; in server mode a player's key) */
    this.own = null;
    /** @type {Connection|null} relay only: the table-wide player key, bound to no user */
    this.playerView = null;
    /** @type {Map<string, Connection>} relay in local mode: one connection per user, with that user's key */
    this.userConns = new Map();
    /** @type {Status} */
    this.status = { state: "idle", reason: null };
    /** @type {Record<string, any>|null} the table as this client may see it */
    this.snapshot = null;
    /** @type {Record<string, any>|null} relay only: the table as players see it */
    this.playerSnapshot = null;
    /**
     * @type {Map<string, string>} complication id -> its text, for every complication a snapshot of this viewer's
     * has held while the page was open (a card that addressed one the roll removed still names it)
     */
    this.complicationTexts = new Map();
    /** @type {string|null} */
    this.role = null;
    /** @type {Map<string, string>} check id -> faces, as the sidecar's ledger reported them to this client */
    this.known = new Map();
    /** @type {Map<string, RelayedEntry>} this page's requests waiting for the relay's answer */
    this.relayed = new Map();
    /** @type {Map<string, {user: string, type: string, waits: string, since: number}>} relay: the users' requests it is answering, by `user:id`, and what each waits for now */
    this.answering = new Map();
    /** who relays, as this page has heard the GMs say whether they hold the GM key */
    this.election = new Election();
    /** @type {Map<string, string>} commitment (hash of a user's secret) -> user id, as their socket frames said */
    this.commits = new Map();
    /** This page's secret: its hash goes out in `hello`, the secret itself only in queries to the relay. */
    this.secret = newId() + newId();
    this.commit = sha256(this.secret);
    this.started = false;
    this._socketBound = false;
    this._warnedNoKey = false;
    /** @type {string|null} the reason an unreachable sidecar was last explained for (said once) */
    this._explained = null;
    /** @type {any} */ this._refreshTimer = null;
    /** @type {any} */ this._pvRefresh = null;
    /** @type {Map<string, {p: Promise<Record<string, any>>, seq: number}>|null} check id -> the ledger's word, asked once per card seq */ this._verifying = null;
    /** @type {Map<string, Promise<Connection|null>>} user id -> the user's connection being opened */
    this._opening = new Map();
    this._ownKey = "";
    this._relayKey = "";
    this._ownReadOnly = false;
    /** @type {string|null} the relay whose status this page shows */
    this._relayStatusFrom = null;
    /** @type {Map<string, Record<string, any>>} check id -> this user's own copy (the replies to its rolls) */
    this.mine = new Map();
  }

  get mode() {
    return setting("mode") === "server" ? "server" : "local";
  }

  get me() {
    return game.user?.id ?? null;
  }

  /** @returns {string|null} the relay's user id */
  get relayId() {
    return this.election.relayId;
  }

  set relayId(id) {
    this.election.relayId = id;
  }

  /** @returns {Set<string>} GM users whose browser says it has the GM key */
  get holders() {
    return this.election.holders;
  }

  get isRelay() {
    return this.relayId !== null && this.relayId === this.me;
  }

  /** This browser has the GM key (a client setting: never sent to anyone). */
  get hasGmKey() {
    return Boolean(game.user?.isGM && setting("gmKey") && setting("table"));
  }

  // --- lifecycle ----------------------------------------------------------------------------------

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
        this.playerView.on("welcome", (/** @type {Record<string, any>} */ w) => this._onWelcome(w, "player-view"));
        this.playerView.on("message", (/** @type {Record<string, any>} */ m, /** @type {{reply: boolean}} */ info) => this._onPlayerView(m, info.reply));
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
   * @param {string} key
   * @param {string|null} user  the Foundry user the key belongs to (null for the table-wide player key)
   */
  _make(key, user) {
    const backoff = { base: timing("reconnectBase"), max: timing("reconnectMax") };
    return new Connection({ url: wsUrl(setting("url")), table: setting("table"), key, client: CLIENT_NAME, user, backoff });
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
    const permissions = /** @type {any} */ (globalThis.navigator)?.permissions;
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
    conn.on("welcome", (/** @type {Record<string, any>} */ w) => this._onWelcome(w, "own"));
    conn.on("message", (/** @type {Record<string, any>} */ m, /** @type {{reply: boolean}} */ info) => this._onMessage(m, "own", info.reply));
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
    conn.on("welcome", (/** @type {Record<string, any>} */ w) => this._onWelcome(w, "own"));
    conn.on("message", (/** @type {Record<string, any>} */ m, /** @type {{reply: boolean}} */ info) => this._onMessage(m, "own", info.reply));
    conn.on("key-replaced", () => {
      if (this.own !== conn) return;
      if (userKey) globalThis.localStorage?.removeItem(storeKey);
      this._keyReplaced(userKey ? "userKey" : "playerKey");
    });
    conn.start();
  }

  // --- status -------------------------------------------------------------------------------------

  /**
   * @param {string} state
   * @param {string|null} [reason]
   */
  _setStatus(state, reason = null) {
    if (this.status.state === state && this.status.reason === reason) return;
    // Connected (again): what the ledger said before may be stale; cards ask afresh.
    if (state === "open" && this.status.state !== "open") this._verifying = null;
    this.status = { state, reason };
    this.emit("status", this.status);
  }

  /** A browser without its own connection: the relay's state as this client knows it. */
  _showRelayStatus() {
    if (this.own) return;
    if (this.isRelay) return;
    if (this.relayId === null) this._setStatus("offline", t("VERDICT.Status.gmAway"));
    else if (this._relayStatusFrom === null) this._setStatus("connecting", null);
    else if (this._relayStatusFrom !== this.relayId) this._setStatus("reconnecting", t("VERDICT.Status.handover"));
  }

  /** @returns {Status} what browsers without a connection are told: the relay's ability to answer */
  _playerStatus() {
    if (!this.hasGmKey) return { state: "offline", reason: t("VERDICT.Status.gmNeedsKey") };
    const own = this.own;
    if (!own || own.state !== "open") return { state: own?.state ?? "offline", reason: own?.reason ?? null };
    const c = this.playerView;
    if (!c) return { state: "offline", reason: t("VERDICT.Status.noPlayerKey") };
    return { state: c.state, reason: c.reason };
  }

  _broadcastStatus() {
    if (this.isRelay) sendFrame("status", { status: this._playerStatus() });
  }

  /** A fresh secret for this page, its hash announced (the relay will know the asker by it). */
  _newSecret() {
    this.secret = newId() + newId();
    this.commit = sha256(this.secret);
    sendFrame("hello", { commit: this.commit, fresh: false });
  }

  /** Tell everyone whether this GM browser has the GM key (the relay rule prefers those that do). */
  _announce() {
    if (game.user?.isGM) sendFrame("key", { has: this.hasGmKey });
  }

  // --- what arrives on the connections --------------------------------------------------------------

  /**
   * @param {Record<string, any>} welcome
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
   * @param {Record<string, any>|undefined} ev
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
    for (const scene of Object.values(snapshot?.scenes ?? {})) {
      for (const c of /** @type {any} */ (scene)?.complications ?? []) {
        if (typeof c?.id !== "string" || typeof c.text !== "string" || (c.hidden && this.role !== "gm")) continue;
        this.complicationTexts.set(c.id, c.text);
      }
    }
    this.emit("snapshot", snapshot);
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
   * @param {Record<string, any>} msg
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
        this.mine.set(msg.check, { ...(prev ?? {}), ...msg, label: prev?.label ?? msg.label ?? null, open: msg.open });
      }
    }
    if (msg.type === "event") this._learn(msg.event);
    if (["rolled", "followed", "done", "event"].includes(msg.type)) {
      // A roll into an extended check moves its progress, which only the snapshot shows.
      if (msg.type !== "rolled" || (msg.events ?? []).length || EXTENDED.includes(msg.result?.system)) this._scheduleRefresh(source === "own" ? "own" : "relay");
    }
    if (msg.type === "state" && msg.snapshot) this._setSnapshot(msg.snapshot, source);
    this.emit("message", msg, source, reply);
  }

  /**
   * Relay: what the player-view connection receives.
   * @param {Record<string, any>} msg
   * @param {boolean} reply
   */
  _onPlayerView(msg, reply) {
    this.emit("player-message", msg);
    if (["rolled", "followed", "done", "event"].includes(msg.type)) this._scheduleRefresh("player-view");
    if (!reply && this.mode === "local" && this.isRelay && !["pong", "welcome", "state"].includes(msg.type)) {
      sendFrame("bc", { msg });
    }
  }

  // --- requests -------------------------------------------------------------------------------------

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
      if (reply && typeof reply === "object") this._onMessage(reply, "relay", true);
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
   * A targeted query to one user (Foundry v13+ `User#query`).
   * @param {string} userId
   * @param {string} name
   * @param {Record<string, any>} data
   * @returns {Promise<any>}
   */
  _query(userId, name, data) {
    const user = /** @type {any} */ (game.users?.get(userId));
    if (!user?.query) return Promise.reject(new Error(`no user ${userId} to ask`));
    return user.query(name, data, { timeout: timing("request") });
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
   * @returns {Promise<Record<string, any>>}
   */
  verify(checkId, seq = 0) {
    this._verifying ??= new Map();
    const asked = this._verifying.get(checkId);
    if (!asked || asked.seq < seq) {
      const p = this.request({ type: "verify", check: checkId });
      p.catch(() => { if (this._verifying?.get(checkId)?.p === p) this._verifying.delete(checkId); });
      this._verifying.set(checkId, { p, seq });
    }
    return /** @type {{p: Promise<Record<string, any>>}} */ (this._verifying.get(checkId)).p;
  }

  /** Can this browser change the table (GM operations)? Else why not. @returns {string|null} */
  gmBlocked() {
    if (!game.user?.isGM) return t("VERDICT.Error.gmOnly");
    if (!this.hasGmKey) return t("VERDICT.Status.gmNeedsKey");
    return null;
  }

  /**
   * A GM operation on the table (complications, strain, lurking trials, extended checks, undo).
   * @param {Record<string, any>} op
   */
  gm(op) {
    const blocked = this.gmBlocked();
    if (blocked || !this.own) return Promise.reject(new RequestError("forbidden", blocked ?? t("VERDICT.Status.offline")));
    return this.own.request({ type: "gm", op });
  }

  // --- the relay's side -------------------------------------------------------------------------------

  _registerQueries() {
    const config = /** @type {any} */ (globalThis).CONFIG;
    if (!config) return;
    config.queries ??= {};
    config.queries[QUERY.request] = (/** @type {any} */ data) => this._answerRequest(data);
    config.queries[QUERY.userKey] = (/** @type {any} */ data) => this._answerUserKey(data);
  }

  /**
   * Who asks: the user whose `hello` announced the hash of this secret.
   * @param {unknown} secret
   * @returns {string|null}
   */
  _asker(secret) {
    if (typeof secret !== "string" || secret.length < 16) return null;
    return this.commits.get(sha256(secret)) || null;
  }

  /**
   * Relay: a user's request (the `verdict.request` query). Returns the reply for that user alone, within
   * the relay's budget (less when the asker says it has less time left): every step gets what is left of it,
   * and a step that outlasts it ends the answer with a "timeout" naming that step, while the asker still waits.
   * @param {{secret?: string, msg?: Record<string, any>, budget?: number}} data
   */
  async _answerRequest(data) {
    const msg = data?.msg;
    const id = msg && typeof msg.id === "string" ? msg.id : null;
    if (!msg || !id) return { type: "error", id: null, code: "invalid_message", message: "a request needs an id" };
    if (!this.isRelay) return { type: "error", id, code: "not_relay", message: "this browser does not relay" };
    const user = this._asker(data.secret);
    if (!user) return { type: "error", id, code: "unknown_sender", message: "say hello on the module socket first" };
    if (!RELAYABLE.has(msg.type)) return { type: "error", id, code: "forbidden", message: "only the GM's own browser sends this request" };
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
      return { type: "error", id, code: /** @type {any} */ (err).code ?? "error", message: /** @type {Error} */ (err).message };
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
   * @param {Record<string, any>} msg
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
    /** @type {Record<string, any>} */
    const out = { ...rest, id: `${user}:${id}` };
    if (msg.type === "roll" || msg.type === "follow") out.user = user;
    return step("playerReply", /** @type {Connection} */ (this.playerView).request(out));
  }

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
      const code = /** @type {any} */ (err).code;
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
      return { code: /** @type {any} */ (err).code ?? "error" };
    }
  }

  // --- the module socket (its frames: relay/relay.mjs) ---------------------------------------------

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
   * @param {import("./relay/relay.mjs").Frame} data
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
