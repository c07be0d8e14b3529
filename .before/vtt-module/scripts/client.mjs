/**
 * The module's one client of the sidecar. Two modes:
 *
 * - local: only the active GM's browser holds sockets. It opens the GM connection (GM key) and a
 *   "player view" connection (player key). Players' requests arrive over Foundry's module socket, go out
 *   on the player view, and what the player view receives is relayed back: the sidecar's own filtering
 *   for the player role decides what players may see, never this code.
 * - server: every client connects directly with its role's key (wss from https pages).
 *
 * Either way the active GM also keeps the player view open when it has the player key: chat documents
 * are written from the player-safe copy of each result.
 */

import { CLIENT_NAME, MODULE_ID, SOCKET } from "./constants.mjs";
import { Connection, RequestError } from "./lib/connection.mjs";
import { Emitter } from "./lib/emitter.mjs";
import { newId, wsUrl } from "./lib/protocol.mjs";
import { setting } from "./settings.mjs";

/** @typedef {{state: string, reason: string|null}} Status */

/** Requests a player may relay through the GM: never `gm` (table operations are the GM's alone). */
const RELAYABLE = new Set(["roll", "odds", "follow", "state", "verify", "ping"]);

/** @returns {boolean} this browser is the active GM's */
export function isActiveGM() {
  const user = game.user;
  if (!user?.isGM) return false;
  const active = game.users?.activeGM;
  return !active || active.id === user.id;
}

/**
 * This browser's way to the sidecar, in local or server mode. Events: "status" (status), "snapshot"
 * (snapshot), "message" (msg, source) for every reply and broadcast, "player-message" (msg) for what the
 * player-view connection receives.
 */
export class VerdictClient extends Emitter {
  constructor() {
    super();
    /** @type {Connection|null} the connection this client's own requests use */
    this.own = null;
    /** @type {Connection|null} active GM only: the player-view connection */
    this.playerView = null;
    /** @type {Status} */
    this.status = { state: "idle", reason: null };
    /** @type {Record<string, any>|null} the table as this client may see it */
    this.snapshot = null;
    /** @type {Record<string, any>|null} active GM only: the table as players see it */
    this.playerSnapshot = null;
    /** @type {string|null} */
    this.role = null;
    /** @type {Map<string, string>} check id -> faces, as the sidecar's ledger reported them to this client */
    this.known = new Map();
    /** @type {Map<string, {resolve: Function, reject: Function, timer: any}>} relayed requests in flight */
    this.relayed = new Map();
    this._socketBound = false;
    /** @type {any} */ this._refreshTimer = null;
    /** @type {any} */ this._gmProbe = null;
    /** @type {any} */ this._pvRefresh = null;
    /** @type {Map<string, Promise<Record<string, any>>>|null} */ this._verifying = null;
  }

  get mode() {
    return setting("mode") === "server" ? "server" : "local";
  }

  /**
   * @param {string} state
   * @param {string|null} [reason]
   */
  _setStatus(state, reason = null) {
    this.status = { state, reason };
    this.emit("status", this.status);
    if (isActiveGM() && this.mode === "local") this._socketEmit({ t: "status", status: this._playerStatus() });
  }

  /** @returns {Status} what players in local mode are told: the player view's state */
  _playerStatus() {
    const c = this.playerView;
    if (!c) return { state: "offline", reason: game.i18n?.localize("VERDICT.Status.noPlayerKey") ?? "no player key" };
    return { state: c.state, reason: c.reason };
  }

  start() {
    this._bindSocket();
    const url = wsUrl(setting("url"));
    const table = setting("table");
    const user = game.user?.id ?? null;
    const make = (/** @type {string} */ key) => new Connection({ url, table, key, client: CLIENT_NAME, user });
    const gm = isActiveGM();
    if (this.mode === "server" || gm) {
      const key = game.user?.isGM ? setting("gmKey") : setting("playerKey");
      if (!table || !key) {
        this._setStatus("offline", game.i18n?.localize("VERDICT.Status.notConfigured") ?? "not configured");
        return;
      }
      this.own = make(key);
      this.own.on("state", (/** @type {string} */ s, /** @type {string|null} */ r) => this._setStatus(s, r));
      this.own.on("welcome", (/** @type {Record<string, any>} */ w) => this._onWelcome(w, "own"));
      this.own.on("message", (/** @type {Record<string, any>} */ m, /** @type {{reply: boolean}} */ info) => this._onMessage(m, "own", info.reply));
      this.own.start();
    }
    if (gm && setting("playerKey") && table) {
      this.playerView = make(setting("playerKey"));
      this.playerView.on("state", () => {
        if (this.mode === "local") this._socketEmit({ t: "status", status: this._playerStatus() });
      });
      this.playerView.on("welcome", (/** @type {Record<string, any>} */ w) => this._onWelcome(w, "player-view"));
      this.playerView.on("message", (/** @type {Record<string, any>} */ m, /** @type {{reply: boolean}} */ info) => this._onPlayerView(m, info.reply));
      this.playerView.start();
    }
    if (this.mode === "local" && !gm) {
      this._setStatus("connecting", null);
      this._socketEmit({ t: "hello", from: user });
      this._gmProbe = setTimeout(() => {
        if (this.status.state === "connecting") this._setStatus("offline", game.i18n?.localize("VERDICT.Status.noGM") ?? "no GM");
      }, 3000);
    }
  }

  stop() {
    this.own?.stop();
    this.playerView?.stop();
    this.own = null;
    this.playerView = null;
    clearTimeout(this._gmProbe);
    for (const [id, p] of this.relayed) {
      clearTimeout(p.timer);
      p.reject(new RequestError("offline", "stopped"));
      this.relayed.delete(id);
    }
  }

  restart() {
    this.stop();
    this.start();
  }

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
      if (this.mode === "local") this._socketEmit({ t: "snapshot", snapshot });
      return;
    }
    this.snapshot = snapshot;
    this.emit("snapshot", snapshot);
  }

  /** @param {"own"|"player-view"|"relay"} source */
  _scheduleRefresh(source) {
    if (source === "player-view") {
      clearTimeout(this._pvRefresh);
      this._pvRefresh = setTimeout(() => {
        this.playerView?.request({ type: "state" }).then((r) => this._setSnapshot(r.snapshot, "player-view")).catch(() => {});
      }, 120);
      return;
    }
    clearTimeout(this._refreshTimer);
    this._refreshTimer = setTimeout(() => {
      this.request({ type: "state" }).then((r) => r.snapshot && this._setSnapshot(r.snapshot, source)).catch(() => {});
    }, 120);
  }

  /**
   * Every decoded message on this client's own view of the table.
   * @param {Record<string, any>} msg
   * @param {"own"|"relay"} source
   * @param {boolean} reply
   */
  _onMessage(msg, source, reply) {
    if (msg.type === "rolled" || msg.type === "followed") {
      this.known.set(msg.check, JSON.stringify(msg.result?.dice ?? []));
    }
    if (msg.type === "event") this._learn(msg.event);
    if (["rolled", "followed", "done", "event"].includes(msg.type)) {
      if (msg.type !== "rolled" || (msg.events ?? []).length || msg.result?.system === "boons") this._scheduleRefresh(source);
    }
    if (msg.type === "state" && msg.snapshot) this._setSnapshot(msg.snapshot, source);
    this.emit("message", msg, source, reply);
  }

  /**
   * Active GM: what the player-view connection receives.
   * @param {Record<string, any>} msg
   * @param {boolean} reply  a reply to a relayed request (already routed to its requester)
   */
  _onPlayerView(msg, reply) {
    this.emit("player-message", msg);
    if (["rolled", "followed", "done", "event"].includes(msg.type)) this._scheduleRefresh("player-view");
    if (!reply && this.mode === "local" && msg.type !== "pong" && msg.type !== "welcome" && msg.type !== "state") {
      this._socketEmit({ t: "bc", msg });
    }
  }

  // --- requests -------------------------------------------------------------------------------------

  /**
   * Send a request on this client's own view: directly, or through the active GM in local mode.
   * @param {Record<string, any>} msg
   * @returns {Promise<Record<string, any>>}
   */
  request(msg) {
    if (this.own) return this.own.request(msg);
    if (this.mode === "server") return Promise.reject(new RequestError("offline", this.status.reason ?? "offline"));
    const id = typeof msg.id === "string" && msg.id ? msg.id : newId();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.relayed.delete(id);
        reject(new RequestError("timeout", game.i18n?.localize("VERDICT.Status.noGM") ?? "no GM"));
      }, 20000);
      this.relayed.set(id, { resolve, reject, timer });
      this._socketEmit({ t: "req", from: game.user?.id ?? null, msg: { ...msg, id } });
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
   * Ask the ledger about a check (for the chat card's "unverified" mark). Answers once per check.
   * @param {string} checkId
   * @returns {Promise<Record<string, any>>}
   */
  verify(checkId) {
    this._verifying ??= new Map();
    if (!this._verifying.has(checkId)) {
      const p = this.request({ type: "verify", check: checkId });
      p.catch(() => this._verifying?.delete(checkId));
      this._verifying.set(checkId, p);
    }
    return /** @type {Promise<Record<string, any>>} */ (this._verifying.get(checkId));
  }

  /**
   * A GM operation on the table (complications, strain, lurking trials, extended checks, undo).
   * @param {Record<string, any>} op
   */
  gm(op) {
    if (!this.own || !game.user?.isGM) return Promise.reject(new RequestError("forbidden", "GM only"));
    return this.own.request({ type: "gm", op });
  }

  // --- the module socket ----------------------------------------------------------------------------

  /** @param {Record<string, any>} data */
  _socketEmit(data) {
    game.socket?.emit(SOCKET, data);
  }

  _bindSocket() {
    if (this._socketBound || !game.socket) return;
    this._socketBound = true;
    game.socket.on(SOCKET, (/** @type {Record<string, any>} */ data, /** @type {any} */ senderId) => this._onSocket(data, typeof senderId === "string" ? senderId : null));
  }

  /**
   * @param {Record<string, any>} data
   * @param {string|null} senderId  Foundry's sender, when the server names it
   */
  _onSocket(data, senderId) {
    if (!data || typeof data !== "object") return;
    const me = game.user?.id;
    const gm = isActiveGM();
    switch (data.t) {
      case "req":
        if (gm && this.mode === "local") this._relay(data.msg, senderId ?? data.from);
        break;
      case "hello":
        if (gm && this.mode === "local") {
          this._socketEmit({ t: "status", status: this._playerStatus() });
          if (this.playerSnapshot) this._socketEmit({ t: "snapshot", snapshot: this.playerSnapshot });
        }
        break;
      case "rep":
        if (data.to === me) {
          const p = this.relayed.get(data.msg?.id);
          if (!p) break;
          this.relayed.delete(data.msg.id);
          clearTimeout(p.timer);
          if (data.msg.type === "error") p.reject(new RequestError(data.msg.code, data.msg.message, data.msg));
          else p.resolve(data.msg);
          this._onMessage(data.msg, "relay", true);
        }
        break;
      case "bc":
        if (!gm && this.mode === "local" && data.msg) this._onMessage(data.msg, "relay", false);
        break;
      case "status":
        if (!gm && this.mode === "local") {
          clearTimeout(this._gmProbe);
          this._setStatus(data.status?.state ?? "offline", data.status?.reason ?? null);
        }
        break;
      case "snapshot":
        if (!gm && this.mode === "local" && data.snapshot) this._setSnapshot(data.snapshot, "relay");
        break;
      default:
        this.emit("socket", data, senderId);
    }
  }

  /**
   * Active GM: send a player's request on the player-view connection and route the reply back.
   * @param {Record<string, any>} msg
   * @param {string|null} from
   */
  _relay(msg, from) {
    const id = msg && typeof msg.id === "string" ? msg.id : null;
    if (!id || !from) return;
    const answer = (/** @type {Record<string, any>} */ reply) => this._socketEmit({ t: "rep", to: from, msg: reply });
    if (!RELAYABLE.has(msg.type)) {
      answer({ type: "error", id, code: "forbidden", message: "players cannot send this request" });
      return;
    }
    const pv = this.playerView;
    if (!pv) {
      answer({ type: "error", id, code: "offline", message: this._playerStatus().reason ?? "offline" });
      return;
    }
    // The request acts for the player who sent it: the sidecar keys follow-ups to the rolling user.
    /** @type {Record<string, any>} */
    const out = { ...msg, id: `${from}:${id}` };
    if (msg.type === "roll" || msg.type === "follow") out.user = from;
    pv.request(out)
      .then((reply) => answer({ ...reply, id }))
      .catch((/** @type {any} */ err) => answer({ type: "error", id, code: err.code ?? "error", message: err.message }));
  }
}
