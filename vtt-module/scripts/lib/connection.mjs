/**
 * One websocket to the sidecar, with its state machine: hello/welcome, heartbeat, reconnect with
 * exponential backoff, resync from the last seen seq, and requests that survive a reconnect.
 * Pure of Foundry: the WebSocket class and the timers are injected, so node --test drives it.
 * @module
 */

import { Emitter } from "./emitter.mjs";
import { SUBPROTOCOL, decodeServer, encodeClient, maxSeq, newId } from "./protocol.mjs";

/** @typedef {"idle"|"connecting"|"open"|"reconnecting"|"offline"} ConnectionState */

/**
 * What a connection uses of a WebSocket (the browser's, or a test's stand-in).
 * @typedef {{send(data: string): void, close(code?: number, reason?: string): void, onopen: unknown, onmessage: unknown,
 *   onclose: unknown, onerror: unknown}} SocketLike
 */

/**
 * @typedef {object} ConnectionOptions
 * @property {string} url              the websocket URL (see protocol.wsUrl)
 * @property {string} table            the table id
 * @property {string} key              the role's key
 * @property {string} [client]         e.g. "foundry-vtt/verdict 0.1.0"
 * @property {string|null} [user]      the Foundry user id at this connection
 * @property {new (url: string, protocol: string) => SocketLike} [WebSocket]  the WebSocket class (default: globalThis.WebSocket)
 * @property {{setTimeout: Function, clearTimeout: Function}} [timers]
 * @property {() => number} [random]   jitter source in [0, 1)
 * @property {{base?: number, factor?: number, max?: number, jitter?: number}} [backoff]
 * @property {{interval?: number, timeout?: number}} [heartbeat]
 * @property {number} [requestTimeout] ms before a request with no reply is rejected
 */

/**
 * The socket's URL for a table: `?table=ID` is what the proxy in front of several sidecars routes by (a table's
 * sockets on one sidecar); the sidecar refuses a hello for another table.
 * @param {string} url
 * @param {string} table
 * @returns {string}
 */
export function tableUrl(url, table) {
  const u = new URL(url);
  u.search = "";
  u.searchParams.set("table", table);
  return u.toString();
}

/** Error codes before `welcome` that retrying soon cannot fix: wait the longest backoff. */
export const FATAL_CODES = new Set(["bad_key", "unknown_table", "forbidden", "bad_origin", "unsupported_protocol", "unauthorized"]);

/**
 * The close code of a session whose key the sidecar no longer takes: the table's keys were rotated
 * (`verdict table rotate-keys`). Reconnecting with the same key cannot succeed, so the connection stops and
 * says so ("key-replaced"); its owner asks for the new key.
 */
export const KEY_REPLACED = 4403;

/**
 * The delay before reconnect attempt `attempt` (0-based): base * factor^attempt, capped, with jitter.
 * @param {number} attempt
 * @param {{base?: number, factor?: number, max?: number, jitter?: number}} [opts]
 * @param {() => number} [random]
 * @returns {number} milliseconds
 */
export function backoffDelay(attempt, opts = {}, random = Math.random) {
  const { base = 500, factor = 2, max = 30000, jitter = 0.2 } = opts;
  const raw = Math.min(max, base * factor ** attempt);
  return Math.round(raw * (1 - jitter + 2 * jitter * random()));
}

export class RequestError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {Record<string, any>} [reply]
   */
  constructor(code, message, reply) {
    super(message);
    this.code = code;
    this.reply = reply;
  }
}

/**
 * One websocket to the sidecar, with hello, heartbeat, backoff and resync from the last seq. Events:
 * "state" (state, reason), "welcome" (msg), "message" (msg) for every decoded frame, "key-replaced" (reason)
 * when the sidecar ended the session because its key was replaced (then stopped: no reconnect).
 */
export class Connection extends Emitter {
  /** @param {ConnectionOptions} options */
  constructor(options) {
    super();
    this.options = options;
    /** @type {ConnectionState} */
    this.state = "idle";
    /** @type {string|null} why the connection is not open (a close reason or a sidecar error) */
    this.reason = null;
    /** @type {string|null} the role the sidecar granted */
    this.role = null;
    /** @type {number|null} the newest event seq seen; sent as `since` on reconnect */
    this.lastSeq = null;
    /** @type {import("../generated/protocol.mjs").Welcome|null} the last welcome */
    this.welcome = null;
    this.attempt = 0;
    /** @type {SocketLike|null} */
    this.ws = null;
    /** @type {Map<string, {msg: Record<string, unknown>, resolve: Function, reject: Function, timer: unknown}>} */
    this.pending = new Map();
    this._stopped = true;
    /** @type {unknown} */ this._retryTimer = null;
    /** @type {unknown} */ this._pingTimer = null;
    /** @type {unknown} */ this._pongTimer = null;
    /** true once the sidecar ended the session because the key was replaced (see KEY_REPLACED) */
    this.keyReplaced = false;
  }

  get timers() {
    return this.options.timers ?? globalThis;
  }

  /**
   * @param {ConnectionState} state
   * @param {string|null} [reason]
   */
  _setState(state, reason = null) {
    if (this.state === state && this.reason === reason) return;
    this.state = state;
    this.reason = reason;
    this.emit("state", state, reason);
  }

  /** Open the socket (again). Idempotent while running. */
  start() {
    this._stopped = false;
    if (this.ws) return;
    this.timers.clearTimeout(this._retryTimer);
    this._retryTimer = null;
    this._open();
  }

  /**
   * Close for good: no reconnect. Pending requests are rejected.
   * @param {string} [reason]
   */
  stop(reason = "stopped") {
    this._stopped = true;
    this.timers.clearTimeout(this._retryTimer);
    this._retryTimer = null;
    this._stopHeartbeat();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      try {
        ws.close(1000, reason);
      } catch {
        /* already closed */
      }
    }
    for (const [id, p] of this.pending) {
      this.timers.clearTimeout(p.timer);
      p.reject(new RequestError("offline", reason));
      this.pending.delete(id);
    }
    this._setState("offline", reason);
  }

  _open() {
    const WS = this.options.WebSocket ?? globalThis.WebSocket;
    this._setState(this.attempt === 0 && this.lastSeq === null ? "connecting" : "reconnecting", this.reason);
    let ws;
    try {
      ws = new WS(tableUrl(this.options.url, this.options.table), SUBPROTOCOL);
    } catch (err) {
      this.ws = null;
      this._scheduleReconnect(`cannot open ${this.options.url}: ${/** @type {Error} */ (err).message}`);
      return;
    }
    this.ws = ws;
    this._welcomed = false;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      ws.send(encodeClient({
        type: "hello",
        table: this.options.table,
        key: this.options.key,
        client: this.options.client ?? "",
        since: this.lastSeq,
        user: this.options.user ?? null,
      }));
    };
    ws.onmessage = (/** @type {{data: unknown}} */ ev) => {
      if (this.ws !== ws) return;
      this._onFrame(String(ev.data));
    };
    ws.onclose = (/** @type {{code?: number, reason?: string}} */ ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this._stopHeartbeat();
      if (this._stopped) return;
      if (ev?.code === KEY_REPLACED) {
        this._keyReplaced(ev.reason || "the table's keys were rotated");
        return;
      }
      const reason = this._fatal ?? (ev?.reason || (this._welcomed ? "connection lost" : "sidecar unreachable"));
      this._scheduleReconnect(reason);
    };
    ws.onerror = () => {
      /* a close event follows; it carries the reason */
    };
  }

  /**
   * The key opens the table no more: stop for good, fail what waits (with a code of its own), and say so.
   * @param {string} reason
   */
  _keyReplaced(reason) {
    this._stopped = true;
    this.timers.clearTimeout(this._retryTimer);
    this._retryTimer = null;
    this.keyReplaced = true;
    for (const [id, p] of this.pending) {
      this.timers.clearTimeout(p.timer);
      p.reject(new RequestError("key_replaced", reason));
      this.pending.delete(id);
    }
    this._setState("offline", reason);
    this.emit("key-replaced", reason);
  }

  /** @param {string} reason */
  _scheduleReconnect(reason) {
    if (this._stopped) return;
    const fatal = this._fatal !== undefined && this._fatal !== null;
    const delay = fatal
      ? backoffDelay(99, this.options.backoff, this.options.random)
      : backoffDelay(this.attempt, this.options.backoff, this.options.random);
    this.attempt += 1;
    this._setState(fatal ? "offline" : "reconnecting", reason);
    this.nextRetry = delay;
    this._retryTimer = this.timers.setTimeout(() => {
      this._retryTimer = null;
      this._fatal = null;
      if (!this._stopped && !this.ws) this._open();
    }, delay);
  }

  /** @param {string} text */
  _onFrame(text) {
    let msg;
    try {
      msg = decodeServer(text);
    } catch (err) {
      console.warn("verdict | bad frame from the sidecar", err);
      return;
    }
    this._sawTraffic();
    if (!msg) return;
    const seq = maxSeq(msg);
    if (seq !== null && msg.type !== "odds_result" && (this.lastSeq === null || seq > this.lastSeq)) this.lastSeq = seq;
    if (msg.type === "welcome") {
      this._welcomed = true;
      this._fatal = null;
      this.attempt = 0;
      this.role = msg.role;
      this.welcome = msg;
      this._setState("open", null);
      this._startHeartbeat();
      this.emit("welcome", msg);
      // Resend what was asked while offline: the same ids, so the sidecar answers a request it already
      // did with its first reply instead of rolling again.
      for (const p of this.pending.values()) this._send(p.msg);
    } else if (msg.type === "error" && !this._welcomed && (msg.id === null || msg.id === undefined)) {
      this._fatal = `${msg.message ?? msg.code} (${msg.code})`;
      this.lastError = msg;
      if (!FATAL_CODES.has(msg.code)) this._fatal = null;
      try {
        this.ws?.close(1000, msg.code);
      } catch {
        /* closing */
      }
    }
    const id = "id" in msg && typeof msg.id === "string" ? msg.id : null;
    const p = id !== null && id !== "" ? this.pending.get(id) : undefined;
    if (p) {
      this.pending.delete(/** @type {string} */ (id));
      this.timers.clearTimeout(p.timer);
      if (msg.type === "error") p.reject(new RequestError(msg.code, msg.message, msg));
      else p.resolve(msg);
    }
    this.emit("message", msg, { reply: Boolean(p) });
  }

  /** @param {Record<string, unknown>} msg */
  _send(msg) {
    if (!this.ws || this.state !== "open") return false;
    try {
      this.ws.send(encodeClient(msg));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Send a request and wait for its reply (the message echoing its id). Queued while offline and resent
   * with the same id after a reconnect.
   * @param {Record<string, unknown>} msg  without `id`, or with a caller-chosen one
   * @returns {Promise<Record<string, any>>}
   */
  request(msg) {
    const full = { ...msg, id: typeof msg.id === "string" && msg.id ? msg.id : newId() };
    try {
      encodeClient(full);
    } catch (err) {
      // A message this module cannot encode never waits for an answer that cannot come.
      return Promise.reject(new RequestError(/** @type {{code?: string}} */ (err).code ?? "invalid_message", /** @type {Error} */ (err).message));
    }
    return new Promise((resolve, reject) => {
      const timeout = this.options.requestTimeout ?? 20000;
      const timer = this.timers.setTimeout(() => {
        this.pending.delete(full.id);
        reject(new RequestError("timeout", `no answer from the sidecar within ${Math.round(timeout / 1000)} s`));
      }, timeout);
      this.pending.set(full.id, { msg: full, resolve, reject, timer });
      this._send(full);
    });
  }

  _startHeartbeat() {
    this._stopHeartbeat();
    const { interval = 15000 } = this.options.heartbeat ?? {};
    this._pingTimer = this.timers.setTimeout(() => this._ping(), interval);
  }

  _ping() {
    const { timeout = 10000 } = this.options.heartbeat ?? {};
    this._send({ type: "ping", id: "" });
    this.timers.clearTimeout(this._pongTimer);
    this._pongTimer = this.timers.setTimeout(() => {
      // No frame at all since the ping: the socket is dead even if the browser has not noticed.
      this._fatal = null;
      const ws = this.ws;
      if (ws) {
        // Handle the close now: a dead socket's own close event may take minutes to come.
        /** @type {((ev: {code: number, reason: string}) => void)|null} */ (ws.onclose)?.({ code: 4000, reason: "no heartbeat from the sidecar" });
        try {
          ws.close(4000, "heartbeat timeout");
        } catch {
          /* closing */
        }
      }
    }, timeout);
  }

  _sawTraffic() {
    if (this.state !== "open" && this._pongTimer === null) return;
    this.timers.clearTimeout(this._pongTimer);
    this._pongTimer = null;
    if (this._pingTimer !== null || this.state === "open") {
      this.timers.clearTimeout(this._pingTimer);
      const { interval = 15000 } = this.options.heartbeat ?? {};
      this._pingTimer = this.timers.setTimeout(() => this._ping(), interval);
    }
  }

  _stopHeartbeat() {
    this.timers.clearTimeout(this._pingTimer);
    this.timers.clearTimeout(this._pongTimer);
    this._pingTimer = null;
    this._pongTimer = null;
  }
}
