// The connection state machine with a fake socket and fake timers: hello, welcome, backoff, resync
// from the last seq, heartbeat, fatal errors, and requests resent with their id after a reconnect.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Connection, KEY_REPLACED, backoffDelay } from "../../vtt-module/scripts/lib/connection.mjs";

class FakeTimers {
  constructor() { this.now = 0; this.queue = []; this.n = 0; }
  setTimeout(fn, ms) { const id = ++this.n; this.queue.push({ id, at: this.now + ms, fn }); return id; }
  clearTimeout(id) { this.queue = this.queue.filter((t) => t.id !== id); }
  advance(ms) {
    const end = this.now + ms;
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue[0];
      if (!next || next.at > end) break;
      this.queue.shift();
      this.now = next.at;
      next.fn();
    }
    this.now = end;
  }
}

function fakeSocketClass() {
  const sockets = [];
  class FakeSocket {
    constructor(url, protocol) { this.url = url; this.protocol = protocol; this.sent = []; this.closed = false; sockets.push(this); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { if (!this.closed) { this.closed = true; this.onclose?.({ code: 1000, reason: "" }); } }
    open() { this.onopen?.(); }
    receive(msg) { this.onmessage?.({ data: JSON.stringify(msg) }); }
    drop(reason = "") { this.closed = true; this.onclose?.({ code: 1006, reason }); }
    end(code, reason) { this.closed = true; this.onclose?.({ code, reason }); }
  }
  return { FakeSocket, sockets };
}

function make(extra = {}) {
  const timers = new FakeTimers();
  const { FakeSocket, sockets } = fakeSocketClass();
  const conn = new Connection({ url: "ws://x/ws", table: "t1", key: "k", client: "test", user: "u1", WebSocket: FakeSocket, timers, random: () => 0.5, ...extra });
  const states = [];
  conn.on("state", (s, r) => states.push([s, r]));
  return { conn, timers, sockets, states };
}

const welcome = (seq, extra = {}) => ({ type: "welcome", protocol: 1, server: "v", role: "gm", table: "t1", seq, events: [], snapshot: null, ...extra });

test("backoff doubles from the base up to the cap, with jitter around it", () => {
  const mid = () => 0.5;
  assert.deepEqual([0, 1, 2, 3, 10].map((a) => backoffDelay(a, { base: 500, factor: 2, max: 8000, jitter: 0.2 }, mid)), [500, 1000, 2000, 4000, 8000]);
  assert.equal(backoffDelay(0, { base: 1000, jitter: 0.2 }, () => 0), 800);
  assert.equal(backoffDelay(0, { base: 1000, jitter: 0.2 }, () => 0.999999), 1200);
});

test("hello carries the table, key, user and the subprotocol; welcome opens", () => {
  const { conn, sockets, states } = make();
  conn.start();
  assert.equal(sockets[0].protocol, "verdict.v1");
  sockets[0].open();
  assert.deepEqual(sockets[0].sent[0], { type: "hello", table: "t1", key: "k", protocol: 1, client: "test", since: null, user: "u1" });
  sockets[0].receive(welcome(7));
  assert.equal(conn.state, "open");
  assert.equal(conn.role, "gm");
  assert.equal(conn.lastSeq, 7);
  assert.deepEqual(states.map((s) => s[0]), ["connecting", "open"]);
});

test("a dropped socket reconnects with backoff and resyncs from the last seq", () => {
  const { conn, sockets, timers } = make();
  conn.start();
  sockets[0].open();
  sockets[0].receive(welcome(3));
  sockets[0].receive({ type: "event", seq: 5, event: { kind: "strain", actor: "a", delta: 1 } });
  sockets[0].drop();
  assert.equal(conn.state, "reconnecting");
  assert.equal(conn.reason, "connection lost");
  timers.advance(499);
  assert.equal(sockets.length, 1, "waits the backoff");
  timers.advance(1);
  assert.equal(sockets.length, 2);
  sockets[1].drop();            // refused again: the next wait doubles
  timers.advance(999);
  assert.equal(sockets.length, 2);
  timers.advance(1);
  assert.equal(sockets.length, 3);
  sockets[2].open();
  assert.equal(sockets[2].sent[0].since, 5, "resync from the newest seq seen");
  sockets[2].receive(welcome(6, { events: [{ seq: 6, event: { kind: "harm" } }] }));
  assert.equal(conn.state, "open");
  assert.equal(conn.attempt, 0, "backoff resets after a welcome");
});

test("requests wait while offline and are resent with the same id after the reconnect", async () => {
  const { conn, sockets, timers } = make();
  conn.start();
  sockets[0].open();
  sockets[0].receive(welcome(1));
  sockets[0].drop();
  const pending = conn.request({ type: "roll", id: "r-1", check: { system: "facets", pool: 2 } });
  timers.advance(500);
  sockets[1].open();
  sockets[1].receive(welcome(1));
  const resent = sockets[1].sent.filter((m) => m.type === "roll");
  assert.equal(resent.length, 1);
  assert.equal(resent[0].id, "r-1");
  sockets[1].receive({ type: "rolled", id: "r-1", check: "t1-2", seq: 2, result: { system: "facets", outcome: "success", dice: [6] }, by: "gm" });
  const reply = await pending;
  assert.equal(reply.check, "t1-2");
  assert.equal(conn.lastSeq, 2);
});

test("an error reply rejects its request with the sidecar's code", async () => {
  const { conn, sockets } = make();
  conn.start();
  sockets[0].open();
  sockets[0].receive(welcome(0));
  const p = conn.request({ type: "odds", check: { system: "facets", pool: 99 } });
  const id = sockets[0].sent.at(-1).id;
  sockets[0].receive({ type: "error", id, code: "too_many_dice", message: "a pool has at most 20 dice" });
  await assert.rejects(p, (e) => e.code === "too_many_dice" && /at most 20/.test(e.message));
});

test("a refused key is offline with the reason, and retries only at the longest wait", () => {
  const { conn, sockets, timers } = make({ backoff: { base: 500, max: 30000, jitter: 0 } });
  conn.start();
  sockets[0].open();
  sockets[0].receive({ type: "error", id: null, code: "bad_key", message: "the key does not open this table" });
  assert.equal(conn.state, "offline");
  assert.match(conn.reason, /does not open this table/);
  timers.advance(29999);
  assert.equal(sockets.length, 1);
  timers.advance(1);
  assert.equal(sockets.length, 2);
});

test("a session ended because its key was replaced stops for good, fails what waits and says so", async () => {
  const { conn, sockets, timers, states } = make();
  const replaced = [];
  conn.on("key-replaced", (reason) => replaced.push(reason));
  conn.start();
  sockets[0].open();
  sockets[0].receive(welcome(4));
  const p = conn.request({ type: "roll", check: { system: "facets", pool: 2 } });
  assert.equal(KEY_REPLACED, 4403);
  sockets[0].end(KEY_REPLACED, "the table's keys were rotated: connect with the new key");
  await assert.rejects(p, (e) => e.code === "key_replaced");
  assert.deepEqual(replaced, ["the table's keys were rotated: connect with the new key"]);
  assert.equal(conn.state, "offline");
  assert.equal(conn.keyReplaced, true);
  assert.deepEqual(states.at(-1), ["offline", "the table's keys were rotated: connect with the new key"]);
  timers.advance(10 * 60000);
  assert.equal(sockets.length, 1, "never reconnects with the replaced key");
  // any other close code still reconnects
  const other = make();
  other.conn.start();
  other.sockets[0].open();
  other.sockets[0].receive(welcome(0));
  other.sockets[0].end(4408, "no hello in time");
  assert.equal(other.conn.state, "reconnecting");
  other.timers.advance(60000);
  assert.equal(other.sockets.length, 2);
});

test("heartbeat: a ping after quiet, and a dead socket is dropped when no answer comes", () => {
  const { conn, sockets, timers } = make({ heartbeat: { interval: 1000, timeout: 500 } });
  conn.start();
  sockets[0].open();
  sockets[0].receive(welcome(0));
  timers.advance(1000);
  assert.equal(sockets[0].sent.at(-1).type, "ping");
  sockets[0].receive({ type: "pong", id: "" });
  timers.advance(1000);
  assert.equal(sockets[0].sent.filter((m) => m.type === "ping").length, 2);
  timers.advance(500);          // no pong this time
  assert.equal(conn.state, "reconnecting");
  assert.equal(conn.reason, "no heartbeat from the sidecar");
});

test("stop closes for good and rejects what is pending", async () => {
  const { conn, sockets, timers } = make();
  conn.start();
  sockets[0].open();
  sockets[0].receive(welcome(0));
  const p = conn.request({ type: "state" });
  conn.stop("bye");
  await assert.rejects(p, (e) => e.code === "offline");
  assert.equal(conn.state, "offline");
  timers.advance(60000);
  assert.equal(sockets.length, 1, "no reconnect after stop");
});

test("a socket's URL names its table, what a proxy routes by", async () => {
  const { tableUrl } = await import("../../vtt-module/scripts/lib/connection.mjs");
  assert.equal(tableUrl("ws://localhost:8765/ws", "t-1"), "ws://localhost:8765/ws?table=t-1");
  assert.equal(tableUrl("wss://v.example.org/ws?x=1", "a b"), "wss://v.example.org/ws?table=a+b");
});
