/**
 * The relay: who it is, and the module-socket protocol the pages of one world speak on `module.verdict`.
 * Pure of Foundry (users, the sender and the relay are passed in) so node units drive it; `sendFrame` and
 * `listen` are the only two functions that touch `game.socket`.
 *
 * Exactly one browser, the relay, holds the table's sidecar connections for the others and writes the chat
 * cards: among the connected GMs whose browser has the GM key (each says so in a `key` frame), the one
 * Foundry's own rule would pick (highest role, then lowest id); with none, Foundry's active GM (who is then
 * told how to connect); else nobody. Every page elects it the same way from what it has heard.
 *
 * Every frame is `{v, t, ...fields}`: `v` the protocol's version ({@link SOCKET_VERSION}), `t` its type, one
 * of {@link FRAMES}. Each type says who may send it and who acts on it:
 *
 * | t                | fields                                   | sent by | acted on by | what it says                               |
 * |------------------|------------------------------------------|---------|-------------|--------------------------------------------|
 * | `hello`          | commit, fresh?                           | anyone  | everyone    | the hash of the page's secret (its queries |
 * |                  |                                          |         |             | to the relay carry the secret); `fresh`: a |
 * |                  |                                          |         |             | page that just started (GMs answer theirs) |
 * | `key`            | has                                      | a GM    | everyone    | whether this GM's browser has the GM key   |
 * | `status`         | status {state, reason}                   | relay   | everyone    | the relay's ability to answer              |
 * | `snapshot`       | snapshot                                 | relay   | everyone    | the table as players see it (local mode)   |
 * | `bc`             | msg                                      | relay   | everyone    | a broadcast the player view heard (local)  |
 * | `request-rolled` | message, check, mode, outcome?, system?  | anyone  | relay       | a roll made for a request card             |
 * | `defaults`       | actor, system, values                    | anyone  | relay       | dialog values to remember on an actor      |
 * | `apply`          | actors                                   | a GM    | relay       | bring these actors' tokens in line         |
 *
 * Trust: the sender is the user id Foundry passes to the handler (Foundry never delivers a page its own
 * emit), never a field of the frame: anyone can write `from`. A frame of another version, of an unknown type,
 * from a user who may not send it, or with a field of the wrong shape is ignored and logged. Every page of a
 * world runs the module the world serves, so another version is a page not yet reloaded after an update.
 * Replies to users travel as `User#query` answers (see client.mjs), never on this socket.
 * @module
 */

import { MODULE_ID, SOCKET } from "../constants.mjs";

/** The module-socket protocol's version: carried by every frame, and a frame of another is ignored. */
export const SOCKET_VERSION = 1;

// --- who relays -----------------------------------------------------------------------------------

/**
 * @typedef {object} RelayUser
 * @property {string} id
 * @property {boolean} isGM
 * @property {boolean} active   connected now
 * @property {number} [role]    Foundry's user role (4 gamemaster, 3 assistant)
 */

/**
 * The relay's user id. Among the connected GMs whose browser has the GM key (they say so on the module
 * socket), the one Foundry's own rule would pick among them: highest role, then lowest id. When no
 * connected GM has the key, Foundry's active GM (who is then told how to connect), else nobody.
 * @param {Iterable<RelayUser>} users
 * @param {Set<string>} holders  GM users whose browser has the GM key
 * @param {string|null} activeGM Foundry's `game.users.activeGM?.id`
 * @returns {string|null}
 */
export function pickRelay(users, holders, activeGM) {
  const candidates = [...users].filter((u) => u.isGM && u.active && holders.has(u.id));
  candidates.sort((a, b) => (b.role ?? 0) - (a.role ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return candidates[0]?.id ?? activeGM ?? null;
}

/**
 * A frame from the module socket is the relay's only if Foundry names the relay as its sender. A `from`
 * field in the data is never read: anyone can write it.
 * @param {string|null|undefined} sender  the sender's user id, as Foundry passes it to the handler
 * @param {string|null} relay
 */
export function fromRelay(sender, relay) {
  return typeof sender === "string" && sender !== "" && relay !== null && sender === relay;
}

/** What one page knows of the election: who has said they hold the GM key, and whom that makes the relay. */
export class Election {
  constructor() {
    /** @type {Set<string>} GM users whose browser says it has the GM key */
    this.holders = new Set();
    /** @type {string|null} the relay's user id */
    this.relayId = null;
  }

  /**
   * A GM's browser says whether it has the GM key (its `key` frame, or this page of itself).
   * @param {string} user
   * @param {boolean} has
   * @returns {boolean} whether that changed what this page knows
   */
  holds(user, has) {
    const had = this.holders.has(user);
    if (has) this.holders.add(user);
    else this.holders.delete(user);
    return had !== has;
  }

  /**
   * Elect the relay from the users as they now are: holders who left or are no GM are forgotten.
   * @param {RelayUser[]} users
   * @param {string|null} activeGM  Foundry's `game.users.activeGM?.id`
   * @returns {boolean} whether the relay changed
   */
  elect(users, activeGM) {
    const before = this.relayId;
    for (const id of [...this.holders]) if (!users.some((u) => u.id === id && u.active && u.isGM)) this.holders.delete(id);
    this.relayId = pickRelay(users, this.holders, activeGM);
    return before !== this.relayId;
  }
}

// --- the frames ---------------------------------------------------------------------------------------

/**
 * @typedef {{state: string, reason: string|null}} RelayStatus
 */

/**
 * The fields of each frame type (besides `v` and `t`).
 * @typedef {object} FrameFields
 * @property {{commit: string, fresh?: boolean}} hello
 *   `commit`: the SHA-256 (hex) of this page's secret; `fresh`: the page just started
 * @property {{has: boolean}} key                                    this GM's browser has the GM key
 * @property {{status: RelayStatus}} status                          what the relay can answer now
 * @property {{snapshot: Record<string, any>}} snapshot              the player view's table
 * @property {{msg: import("../generated/protocol.mjs").AnyServerMessage}} bc  what the player view heard (a sidecar message)
 * @property {{message: string, check: string, mode: string, outcome?: string, system?: string}} request-rolled
 *   the request card's message id, the roll's check id and mode; outcome and rule set only of a public roll
 * @property {{actor: string, system: string, values: Record<string, unknown>}} defaults
 * @property {{actors: string[]}} apply
 */

/** @typedef {keyof FrameFields} FrameType */

/**
 * A frame as it travels: one of the types, tagged by `t`, with the protocol's version.
 * @typedef {{[T in FrameType]: {v: number, t: T} & FrameFields[T]}[FrameType]} Frame
 */

/**
 * @typedef {"anyone"|"gm"|"relay"} Sender  who may send a type: any user, a GM user, the relay's user
 * @typedef {"everyone"|"relay"} Receiver    who acts on it: every page, or the relay's alone
 * @typedef {(value: unknown) => boolean} Check
 * @typedef {{from: Sender, to: Receiver, fields: Record<string, Check>, optional?: Record<string, Check>}} FrameSpec
 */

/** @type {Check} */
const text = (x) => typeof x === "string";
/** @type {Check} */
const id = (x) => typeof x === "string" && x !== "";
/** @type {Check} */
const flag = (x) => typeof x === "boolean";
/** @type {Check} */
const record = (x) => Boolean(x) && typeof x === "object" && !Array.isArray(x);
/** @type {Check} */
const hash = (x) => typeof x === "string" && /^[0-9a-f]{64}$/.test(x);
/** @type {Check} */
const ids = (x) => Array.isArray(x) && x.every(text);
/** @type {Check} */
const status = (x) => record(x) && text(/** @type {{state?: unknown}} */ (x).state) && (/** @type {{reason?: unknown}} */ (x).reason == null || text(/** @type {{reason?: unknown}} */ (x).reason));

/**
 * The protocol: every type a page may send, who may send it, who acts on it, and its fields' shapes.
 * @type {Record<FrameType, FrameSpec>}
 */
export const FRAMES = {
  hello: { from: "anyone", to: "everyone", fields: { commit: hash }, optional: { fresh: flag } },
  key: { from: "gm", to: "everyone", fields: { has: flag } },
  status: { from: "relay", to: "everyone", fields: { status } },
  snapshot: { from: "relay", to: "everyone", fields: { snapshot: record } },
  bc: { from: "relay", to: "everyone", fields: { msg: record } },
  "request-rolled": { from: "anyone", to: "relay", fields: { message: id, check: id, mode: text }, optional: { outcome: text, system: text } },
  defaults: { from: "anyone", to: "relay", fields: { actor: id, system: id, values: record } },
  apply: { from: "gm", to: "relay", fields: { actors: ids } },
};

/**
 * A frame of this type with these fields, at the protocol's version.
 * @template {FrameType} T
 * @param {T} t
 * @param {FrameFields[T]} fields
 * @returns {Frame}
 */
export function frame(t, fields) {
  return /** @type {Frame} */ ({ ...fields, v: SOCKET_VERSION, t });
}

/**
 * @typedef {object} Receipt
 * @property {string|null} relay            the relay's user id as this page elected it
 * @property {boolean} isRelay              this page is the relay
 * @property {(id: string) => {isGM?: boolean}|null|undefined} user  a user of the world by id
 */

/**
 * @typedef {{ok: true, frame: Frame, to: Receiver} | {ok: false, why: string, quiet: boolean}} Admission
 *   a frame this page acts on (its declared fields only), or why not (`quiet`: addressed to another page)
 */

/**
 * What this page makes of a module-socket frame: the frame, or why it is ignored.
 * @param {unknown} data    what the handler received
 * @param {unknown} sender  the sender's user id as Foundry passes it
 * @param {Receipt} here
 * @returns {Admission}
 */
export function admit(data, sender, here) {
  const no = (/** @type {string} */ why, quiet = false) => /** @type {Admission} */ ({ ok: false, why, quiet });
  if (!record(data)) return no("not a frame");
  const d = /** @type {Record<string, unknown>} */ (data);
  const type = typeof d.t === "string" ? d.t : String(d.t);
  if (!id(sender)) return no(`a "${type}" frame without a sender`);
  const from = /** @type {string} */ (sender);
  const user = here.user(from);
  if (!user) return no(`a "${type}" frame from ${from}, who is no user of this world`);
  if (d.v !== SOCKET_VERSION) return no(`a "${type}" frame of version ${String(d.v)} from ${from} (this page speaks ${SOCKET_VERSION})`);
  const spec = Object.hasOwn(FRAMES, type) ? FRAMES[/** @type {FrameType} */ (type)] : null;
  if (!spec) return no(`a frame of unknown type "${type}" from ${from}`);
  if (spec.from === "relay" && !fromRelay(from, here.relay)) return no(`a "${type}" frame from ${from}: only the relay (${here.relay}) sends it`);
  if (spec.from === "gm" && !user.isGM) return no(`a "${type}" frame from ${from}: only a GM sends it`);
  /** @type {Record<string, unknown>} */
  const out = { v: SOCKET_VERSION, t: type };
  for (const [name, ok] of Object.entries(spec.fields)) {
    if (!ok(d[name])) return no(`a "${type}" frame from ${from} with a bad "${name}"`);
    out[name] = d[name];
  }
  for (const [name, ok] of Object.entries(spec.optional ?? {})) {
    if (d[name] === undefined) continue;
    if (!ok(d[name])) return no(`a "${type}" frame from ${from} with a bad "${name}"`);
    out[name] = d[name];
  }
  if (spec.to === "relay" && !here.isRelay) return no(`a "${type}" frame for the relay`, true);
  return { ok: true, frame: /** @type {Frame} */ (out), to: spec.to };
}

/**
 * Send a frame to every other page of the world (Foundry never hands it back to this one).
 * @template {FrameType} T
 * @param {T} t
 * @param {FrameFields[T]} fields
 */
export function sendFrame(t, fields) {
  game.socket?.emit(SOCKET, frame(t, fields));
}

/**
 * Hear the module socket: `onData` gets every frame as it came, with the sender Foundry names (see `receive`).
 * @param {(data: unknown, sender: unknown) => void} onData
 * @returns {boolean} whether the socket was there to listen to
 */
export function listen(onData) {
  if (!game.socket) return false;
  game.socket.on(SOCKET, onData);
  return true;
}

/**
 * One frame: handled if admitted, else logged (a frame for the relay on another page is not news).
 * @param {unknown} data
 * @param {unknown} sender
 * @param {Receipt} here
 * @param {(frame: Frame, sender: string) => void} handle
 * @returns {Admission}
 */
export function receive(data, sender, here, handle) {
  const admitted = admit(data, sender, here);
  if (admitted.ok) handle(admitted.frame, /** @type {string} */ (sender));
  else if (!admitted.quiet) console.warn(`${MODULE_ID} | ignored ${admitted.why}`);
  return admitted;
}
