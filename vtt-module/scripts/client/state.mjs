/**
 * What the module's client knows of its place at the table: its connections, its status, who relays, the
 * commitments pages announced, and how it says so on the module socket (see ../client.mjs for the whole).
 * @module
 */

import { CLIENT_NAME, MODULE_ID } from "../constants.mjs";
import { Connection } from "../lib/connection.mjs";
import { Emitter } from "../lib/emitter.mjs";
import { newId, wsUrl } from "../lib/protocol.mjs";
import { Election, sendFrame } from "../relay/relay.mjs";
import { sha256 } from "../lib/sha256.mjs";
import { setting } from "../settings.mjs";
import { timing } from "../lib/timings.mjs";

/** @typedef {import("../lib/timings.mjs").Timer} Timer */

/** @typedef {{state: string, reason: string|null}} Status */
/**
 * A request this page sent through the relay. `tries`, `askedAt` and `last` say what became of it so far
 * (shown when a request takes long: which relay was asked, when, and what it last said). `deadline`: when
 * the page stops waiting (`Date.now()` time).
 * @typedef {{msg: {id: string} & Record<string, unknown>, resolve: Function, reject: Function, timer: Timer, deadline: number,
 *   sentTo: string|null, tries?: number, askedAt?: number, last?: string}} RelayedEntry
 */

/** Queries the module registers in `CONFIG.queries`. */
export const QUERY = { request: `${MODULE_ID}.request`, userKey: `${MODULE_ID}.userKey` };

/** @param {string} key */
export function t(key) {
  return game.i18n?.localize(key) ?? key;
}

/**
 * This browser's way to the sidecar, as far as it knows it: the state the other parts act on.
 */
export class ClientState extends Emitter {
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
    /**
     * @type {Record<string, any>|null} the table as this client may see it (its rule sets' parts are read by the
     * names the vocabulary gives, so it is not held to the protocol's `Snapshot`)
     */
    this.snapshot = null;
    /** @type {Record<string, any>|null} relay only: the table as players see it */
    this.playerSnapshot = null;
    /**
     * @type {Map<string, Map<string, string>>} a drawn list's field -> entry id -> its text, for every entry a
     * snapshot of this viewer's has held while the page was open (a card that names one the roll removed still
     * names it)
     */
    this.entryTexts = new Map();
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
    /** @type {Timer|undefined} */ this._refreshTimer = undefined;
    /** @type {Timer|undefined} */ this._pvRefresh = undefined;
    /** @type {Map<string, {p: Promise<import("../generated/protocol.mjs").Verified>, seq: number}>|null} check id -> the ledger's word, asked once per card seq */ this._verifying = null;
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

  /**
   * @param {string} key
   * @param {string|null} user  the Foundry user the key belongs to (null for the table-wide player key)
   */
  _make(key, user) {
    const backoff = { base: timing("reconnectBase"), max: timing("reconnectMax") };
    return new Connection({ url: wsUrl(setting("url")), table: setting("table"), key, client: CLIENT_NAME, user, backoff });
  }

  /**
   * A targeted query to one user (Foundry v13+ `User#query`).
   * @param {string} userId
   * @param {string} name
   * @param {Record<string, any>} data
   * @returns {Promise<any>} what the user's handler answered (each asker checks its shape)
   */
  _query(userId, name, data) {
    const user = /** @type {{query?: (name: string, data: unknown, options: {timeout: number}) => Promise<unknown>}|undefined} */ (game.users?.get(userId));
    if (!user?.query) return Promise.reject(new Error(`no user ${userId} to ask`));
    return user.query(name, data, { timeout: timing("request") });
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
}
