/**
 * Protocol v1 on the module side: field order of every client message, encoding and decoding.
 * Pure: no Foundry globals, so node --test can check it against protocol/vectors/.
 * @module
 */

export const PROTOCOL = 1;
export const SUBPROTOCOL = "verdict.v1";

/**
 * Client message fields in the order the sidecar's Structs declare them, with their defaults.
 * Encoding writes every field (the Structs do not omit defaults), so a message the module sends is
 * byte-for-byte what the Python side would encode.
 * @type {Record<string, Array<[string, unknown]>>}
 */
export const CLIENT_FIELDS = {
  hello: [["table", undefined], ["key", undefined], ["protocol", PROTOCOL], ["client", ""], ["since", null], ["user", null]],
  roll: [
    ["id", undefined], ["check", undefined], ["actor", null], ["target", null], ["scene", null], ["mode", "public"],
    ["label", null], ["extended", null], ["gather", null], ["part", null], ["user", null],
  ],
  odds: [["id", undefined], ["check", undefined]],
  follow: [["id", undefined], ["check", undefined], ["action", undefined], ["user", null]],
  gm: [["id", undefined], ["op", undefined]],
  state: [["id", undefined]],
  verify: [["id", undefined], ["check", undefined]],
  ping: [["id", ""]],
  user_key: [["id", undefined], ["user", undefined]],
};

/** Message types the sidecar sends. Anything else is ignored (a newer sidecar may add types). */
export const SERVER_TYPES = new Set([
  "error", "welcome", "rolled", "followed", "done", "event", "state", "odds_result", "verified", "pong", "user_key",
]);

/** Roll modes, as the wire spells them. */
export const ROLL_MODES = /** @type {const} */ (["public", "gm", "blind", "self"]);

export class ProtocolError extends Error {
  /**
   * @param {string} code     stable snake_case code
   * @param {string} message  what is wrong
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * Put a client message's fields in wire order, filling defaults; unknown extra keys follow.
 * @param {Record<string, unknown>} msg  a message with at least `type`
 * @returns {Record<string, unknown>}
 */
export function normalizeClient(msg) {
  const type = msg.type;
  if (typeof type !== "string" || !(type in CLIENT_FIELDS)) {
    throw new ProtocolError("unknown_type", `unknown client message type ${JSON.stringify(type)}`);
  }
  /** @type {Record<string, unknown>} */
  const out = { type };
  for (const [name, dflt] of CLIENT_FIELDS[type]) {
    const value = msg[name] === undefined ? dflt : msg[name];
    if (value === undefined) throw new ProtocolError("missing_field", `${type} needs \`${name}\``);
    out[name] = value;
  }
  for (const [name, value] of Object.entries(msg)) if (!(name in out) && value !== undefined) out[name] = value;
  return out;
}

/**
 * Encode a client message as a JSON text frame.
 * @param {Record<string, unknown>} msg
 * @returns {string}
 */
export function encodeClient(msg) {
  return JSON.stringify(normalizeClient(msg));
}

/**
 * Decode a frame from the sidecar. Throws {@link ProtocolError} on garbage; returns `null` for a type this
 * module does not know (so a newer sidecar never breaks an older module). Only the type is checked here: the
 * rest is typed as the protocol says the sidecar sends it.
 * @param {string} text
 * @returns {import("../generated/protocol.mjs").AnyServerMessage | null}
 */
export function decodeServer(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    throw new ProtocolError("bad_frame", "the frame is not JSON");
  }
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) throw new ProtocolError("bad_frame", "the frame is not a JSON object");
  if (typeof msg.type !== "string") throw new ProtocolError("bad_message", "the message has no `type` field");
  if (!SERVER_TYPES.has(msg.type)) return null;
  return msg;
}

/**
 * A fresh request id: unique per client, so a repeated id (a resend after a reconnect) never rolls twice.
 * @returns {string}
 */
export function newId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/**
 * The highest event seq a server message carries (the message's own and its events'), or null.
 * @param {Record<string, any>} msg
 * @returns {number | null}
 */
export function maxSeq(msg) {
  let seq = typeof msg.seq === "number" ? msg.seq : null;
  for (const e of Array.isArray(msg.events) ? msg.events : []) {
    if (e && typeof e.seq === "number" && (seq === null || e.seq > seq)) seq = e.seq;
  }
  if (msg.snapshot && typeof msg.snapshot.seq === "number" && (seq === null || msg.snapshot.seq > seq)) seq = msg.snapshot.seq;
  return seq;
}

/**
 * The websocket URL for a sidecar base URL: http -> ws, https -> wss, path `/ws`.
 * @param {string} base  e.g. "http://localhost:8765" or "wss://verdict.example.org/"
 * @returns {string}
 */
export function wsUrl(base) {
  const url = new URL(base.trim() || "http://localhost:8765");
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  url.pathname = url.pathname.replace(/\/+$/, "").replace(/\/ws$/, "") + "/ws";
  url.search = "";
  url.hash = "";
  return url.toString();
}
