// The module's client with a fake Foundry: who it believes, where its requests go across a relay handover,
// and what the relay answers a query whose asker it cannot name. No sidecar: the player's browser in local
// mode holds no connection, and the relay's answers are exercised without one.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { sha256 } from "../../vtt-module/scripts/lib/sha256.mjs";
import { SOCKET_VERSION } from "../../vtt-module/scripts/relay/relay.mjs";

/** A small Foundry: users (with `query` delivered to a handler table per user), settings, the socket. */
function world(me, { gmKeyFor = [], mode = "local" } = {}) {
  const emitted = [];
  const queries = [];
  const users = new Map();
  for (const [id, role] of [["gm1", 4], ["gm2", 3], ["p1", 1], ["p2", 1]]) {
    users.set(id, {
      id, role, isGM: role >= 3, active: true, name: id,
      query: (name, data) => new Promise((resolve, reject) => queries.push({ to: id, name, data, resolve, reject })),
    });
  }
  const collection = {
    get: (id) => users.get(id),
    get contents() { return [...users.values()]; },
    // Foundry's rule: the connected GM with the highest role, then the lowest id.
    get activeGM() {
      return [...users.values()].filter((u) => u.isGM && u.active).sort((a, b) => b.role - a.role || (a.id < b.id ? -1 : 1))[0] ?? null;
    },
    filter: (fn) => [...users.values()].filter(fn),
  };
  const values = { "verdict.mode": mode, "verdict.table": "T", "verdict.url": "http://localhost:8765", "verdict.playerKey": "pk",
    "verdict.gmKey": gmKeyFor.includes(me) ? "gk" : "", "verdict.system": "facets" };
  globalThis.game = {
    user: users.get(me), users: collection,
    settings: { get: (scope, key) => values[`${scope}.${key}`] },
    socket: { emit: (name, data) => emitted.push({ name, data }), on: () => {} },
    i18n: { localize: (k) => k, format: (k, data) => `${k} ${JSON.stringify(data)}` },
  };
  globalThis.ui = { notifications: { warn: () => {}, info: () => {}, error: () => {} } };
  globalThis.CONFIG = {};
  return { users, emitted, queries };
}

let VerdictClient;
beforeEach(async () => {
  world("p1");
  ({ VerdictClient } = await import("../../vtt-module/scripts/client.mjs"));
});

/** A player's client that has heard `gm` say it holds the GM key: its relay. */
function playerRelayedBy(gm) {
  const client = new VerdictClient();
  client.start();
  client._onSocket({ v: SOCKET_VERSION, t: "key", has: true }, gm);
  return client;
}

test("a player believes relay frames only from the relay's user id as Foundry names the sender", () => {
  const w = world("p1", { gmKeyFor: ["gm1"] });
  const client = playerRelayedBy("gm1");
  assert.equal(client.relayId, "gm1");
  const seen = { status: 0, snapshot: 0, message: 0 };
  client.on("status", () => seen.status++);
  client.on("snapshot", () => seen.snapshot++);
  client.on("message", () => seen.message++);
  const before = { ...client.status };
  // Another player forges every kind of relay frame, with a `from` naming the GM.
  for (const t of ["status", "snapshot", "bc"]) {
    client._onSocket({ v: SOCKET_VERSION, t, from: "gm1", status: { state: "open", reason: null }, snapshot: { seq: 99 }, msg: { type: "rolled", check: "x", result: { dice: [6] } } }, "p2");
  }
  // A frame without a sender, and an old-style reply.
  client._onSocket({ v: SOCKET_VERSION, t: "status", status: { state: "open" } }, null);
  client._onSocket({ v: SOCKET_VERSION, t: "rep", to: "p1", msg: { id: "r1", type: "rolled" } }, "gm1");
  assert.deepEqual(seen, { status: 0, snapshot: 0, message: 0 });
  assert.deepEqual(client.status, before);
  assert.equal(client.snapshot, null);
  // A player cannot make itself a key holder, nor the relay.
  client._onSocket({ v: SOCKET_VERSION, t: "key", has: true }, "p2");
  assert.equal(client.relayId, "gm1");
  // The real relay is believed.
  client._onSocket({ v: SOCKET_VERSION, t: "status", status: { state: "open", reason: null } }, "gm1");
  assert.equal(client.status.state, "open");
  client._onSocket({ v: SOCKET_VERSION, t: "snapshot", snapshot: { seq: 3 } }, "gm1");
  assert.equal(client.snapshot?.seq, 3);
  void w;
});

test("a player's request goes to the relay alone, and moves to the next relay with the same id", async () => {
  const w = world("p1", { gmKeyFor: ["gm1", "gm2"] });
  const client = playerRelayedBy("gm1");
  client._onSocket({ v: SOCKET_VERSION, t: "key", has: true }, "gm2");
  assert.equal(client.relayId, "gm1");
  // The hello carries only the hash of the page's secret; the secret travels in queries to the relay.
  const hello = w.emitted.find((e) => e.data.t === "hello");
  assert.equal(hello.data.commit, sha256(client.secret));
  assert.ok(!JSON.stringify(w.emitted).includes(client.secret));

  const pending = client.roll({ check: { system: "facets", pool: 2 } });
  assert.equal(w.queries.length, 1);
  assert.equal(w.queries[0].to, "gm1");
  assert.equal(w.queries[0].name, "verdict.request");
  const id = w.queries[0].data.msg.id;
  // gm1 leaves before answering: Foundry names gm2 the active GM, and the request goes there unchanged.
  w.users.get("gm1").active = false;
  client.onUserConnected();
  assert.equal(client.relayId, "gm2");
  assert.equal(w.queries.length, 2);
  assert.equal(w.queries[1].to, "gm2");
  assert.equal(w.queries[1].data.msg.id, id);
  // The old relay's late answer is ignored; the new relay's is taken.
  w.queries[1].resolve({ type: "rolled", id, check: "T-1", seq: 1, result: { system: "facets", dice: [6, 2], outcome: "success" } });
  w.queries[0].resolve({ type: "rolled", id, check: "FORGED", seq: 1, result: { system: "facets", dice: [6, 6], outcome: "triumph" } });
  const reply = await pending;
  assert.equal(reply.check, "T-1");
  assert.equal(client.mine.get("T-1")?.result.outcome, "success");
  client.stop();
});

test("with no GM connected the player is told at once and a request is refused at once", async () => {
  const w = world("p1");
  for (const id of ["gm1", "gm2"]) w.users.get(id).active = false;
  const client = new VerdictClient();
  client.start();
  assert.equal(client.relayId, null);
  assert.equal(client.status.state, "offline");
  assert.equal(client.status.reason, "VERDICT.Status.gmAway");
  await assert.rejects(client.odds({ system: "facets", pool: 1 }), (err) => err.code === "offline");
  assert.equal(w.queries.length, 0);
});

test("the relay names a query's asker only by a secret whose hash that user's own frame announced", async () => {
  world("gm1");
  const relay = new VerdictClient();
  relay.relayId = "gm1";
  relay.started = true;
  const secret = "s".repeat(40);
  relay._onSocket({ v: SOCKET_VERSION, t: "hello", commit: sha256(secret) }, "p1");
  relay._onSocket({ v: SOCKET_VERSION, t: "hello", commit: sha256(secret) }, "p1");
  assert.equal(relay._asker(secret), "p1");
  // p2 cannot know p1's secret, only copy p1's hash: then the hash names nobody (p1 picks a new secret).
  const other = "o".repeat(40);
  relay._onSocket({ v: SOCKET_VERSION, t: "hello", commit: sha256(other) }, "p1");
  relay._onSocket({ v: SOCKET_VERSION, t: "hello", commit: sha256(other) }, "p2");
  assert.equal(relay._asker(other), null);
  assert.equal(relay._asker("x".repeat(40)), null);
  const unknown = await relay._answerRequest({ secret: "y".repeat(40), msg: { type: "roll", id: "r1" } });
  assert.equal(unknown.code, "unknown_sender");
  const gmOnly = await relay._answerRequest({ secret, msg: { type: "gm", id: "g1", op: { op: "undo", count: 1 } } });
  assert.equal(gmOnly.code, "forbidden");
  // A relay without the GM key refuses at once, saying why.
  const noKey = await relay._answerRequest({ secret, msg: { type: "roll", id: "r2", check: { system: "facets", pool: 1 } } });
  assert.equal(noKey.code, "offline");
  assert.equal(noKey.message, "VERDICT.Status.gmNeedsKey");
  // A browser that is not the relay says so (the asker then waits for the right one).
  relay.relayId = "gm2";
  const notRelay = await relay._answerRequest({ secret, msg: { type: "roll", id: "r3" } });
  assert.equal(notRelay.code, "not_relay");
});

test("a user's own copy of a check: its replies and what its own connection hears of it, never a relayed broadcast", () => {
  world("p1", { mode: "server" });
  const client = new VerdictClient();
  const open = [{ action: "flairs_bargain", trials: ["loud"] }];
  client._onMessage({ type: "rolled", check: "c1", seq: 1, result: { dice: [3] }, label: "Ford", open }, "own", true);
  assert.deepEqual(client.mine.get("c1").open, open);
  // the GM named the trials: this user's own connection hears it with the list open to this user now
  client._onMessage({ type: "followed", check: "c1", seq: 2, result: { dice: [3] }, open: [] }, "own", false);
  assert.deepEqual(client.mine.get("c1").open, []);
  assert.equal(client.mine.get("c1").seq, 2);
  assert.equal(client.mine.get("c1").label, "Ford");
  // a broadcast relayed from the player view (the table-wide key's list) never becomes this user's copy
  client._onMessage({ type: "followed", check: "c1", seq: 3, result: { dice: [3] }, open: [] }, "relay", false);
  assert.equal(client.mine.get("c1").seq, 2);
  // nor does anyone else's check heard on this user's connection
  client._onMessage({ type: "rolled", check: "c2", seq: 4, result: { dice: [1] }, open: [] }, "own", false);
  assert.equal(client.mine.has("c2"), false);
  // a message without a list (an older sidecar) leaves none rather than the old one
  client._onMessage({ type: "followed", check: "c1", seq: 5, result: { dice: [3] } }, "own", true);
  assert.equal(client.mine.get("c1").open, undefined);
});

test("the ledger is asked about a check once per card seq", async () => {
  world("p1", { mode: "server" });
  const client = new VerdictClient();
  const asked = [];
  client.request = (msg) => { asked.push(msg); return Promise.resolve({ type: "verified", check: msg.check, found: true, open: [] }); };
  await client.verify("c1");
  await client.verify("c1", 0);
  assert.equal(asked.length, 1);
  await client.verify("c1", 3);
  assert.equal(asked.length, 2, "the card changed since: asked again");
  await client.verify("c1", 3);
  await client.verify("c1");
  assert.equal(asked.length, 2);
});

/** Let the client's promise chains and timers run until `cond` holds (a retry waits 300 ms). */
async function until(cond) {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), "the condition never held");
}

/** Run `fn` with the client's expected warnings (a relay that did not answer) kept out of the output. */
async function quietly(fn) {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

test("the relay says what each request it answers waits for, step by step, until it answers", async () => {
  world("gm1", { gmKeyFor: ["gm1"] });
  const relay = new VerdictClient();
  relay.relayId = "gm1";
  relay.started = true;
  const secret = "s".repeat(40);
  relay._onSocket({ v: SOCKET_VERSION, t: "hello", commit: sha256(secret) }, "p1");
  // Connections that hold each request until the test answers it.
  const asked = [];
  const conn = (state) => ({ state, reason: null, start() {}, on() {}, request: (m) => new Promise((resolve) => asked.push({ m, resolve })) });
  relay.own = conn("open");
  relay.playerView = conn("open");
  relay._make = () => conn("connecting");
  const answer = relay._answerRequest({ secret, msg: { type: "roll", id: "r1", check: { system: "facets", pool: 1 } } });
  await until(() => asked.length === 1);
  assert.equal(asked[0].m.type, "user_key");
  assert.deepEqual([...relay.answering.keys()], ["p1:r1"]);
  assert.equal(relay.answering.get("p1:r1").waits, "VERDICT.Relay.userKey");
  assert.equal(relay.answering.get("p1:r1").type, "roll");
  asked[0].resolve({ type: "user_key", key: "uk" });
  await until(() => asked.length === 2);
  assert.equal(asked[1].m.id, "r1");
  assert.equal(relay.answering.get("p1:r1").waits, "VERDICT.Relay.userReply");
  asked[1].resolve({ type: "rolled", id: "r1", check: "c1" });
  assert.equal((await answer).check, "c1");
  assert.equal(relay.answering.size, 0, "an answered request waits for nothing");
});

test("a player's request says whom it asked, how often, and what the relay last said", async () => {
  const w = world("p1", { gmKeyFor: ["gm1"] });
  const client = playerRelayedBy("gm1");
  const pending = client.roll({ check: { system: "facets", pool: 2 } });
  const entry = [...client.relayed.values()][0];
  assert.deepEqual([entry.sentTo, entry.tries, entry.last], ["gm1", 1, "asked gm1"]);
  // The relay did not know this page yet: it is asked again with a new secret.
  w.queries[0].resolve({ type: "error", id: entry.msg.id, code: "unknown_sender", message: "say hello" });
  await until(() => entry.last === "gm1 answered unknown_sender; asking again");
  await until(() => w.queries.length === 2);
  assert.deepEqual([entry.sentTo, entry.tries, entry.last], ["gm1", 2, "asked gm1"]);
  // Foundry could not deliver the query: the request waits for the next relay, and says why.
  await quietly(async () => {
    w.queries[1].reject(new Error("User gm1 is not active"));
    await until(() => entry.sentTo === null);
  });
  assert.equal(entry.last, "gm1 did not answer: User gm1 is not active");
  client.stop();
  await assert.rejects(pending, (err) => err.code === "offline");
});

test("a query the relay's page could not take is asked again while that page stays the relay", async () => {
  const w = world("p1", { gmKeyFor: ["gm1"] });
  const client = playerRelayedBy("gm1");
  const pending = client.roll({ check: { system: "facets", pool: 2 } });
  const id = w.queries[0].data.msg.id;
  // The GM's page has just loaded again: Foundry hands it the query before the module has registered its
  // handler, and no other relay is named to send it to.
  await quietly(async () => {
    w.queries[0].reject(new Error('Unknown query "verdict.request"'));
    await until(() => w.queries.length === 2);
  });
  assert.equal(w.queries[1].to, "gm1");
  assert.equal(w.queries[1].data.msg.id, id, "the same request, so the sidecar never rolls it twice");
  w.queries[1].resolve({ type: "rolled", id, check: "T-1", seq: 1, result: { system: "facets", dice: [6, 2], outcome: "success" } });
  assert.equal((await pending).check, "T-1");
});

/**
 * A player p1 relayed by gm1, and gm1's relay on the same fake Foundry: gm1's `User#query` runs the relay's
 * handler (on a copy of the data, as Foundry's server passes it), and the relay's connections to the sidecar
 * are open but never answer. `deliver(n)` says whether the n-th query (from 1) reaches the relay.
 */
function silentSidecar(w, deliver = () => true) {
  const player = playerRelayedBy("gm1");
  const relay = new VerdictClient();
  Object.defineProperties(relay, { isRelay: { value: true }, hasGmKey: { value: true } });
  relay.started = true;
  relay.commits.set(player.commit, "p1");
  const silent = (state) => ({ state, reason: null, start() {}, stop() {}, request: () => new Promise(() => {}) });
  relay.own = silent("open");
  relay.playerView = silent("open");
  relay._make = () => silent("connecting");
  let asked = 0;
  w.users.get("gm1").query = (name, data) => {
    asked += 1;
    if (!deliver(asked)) return Promise.reject(new Error('Unknown query "verdict.request"'));
    assert.equal(name, "verdict.request");
    return relay._answerRequest(structuredClone(data));
  };
  return { player, relay };
}

/**
 * What the player heard of a roll: the relay's answer, or its own timeout (the player's timer always ends the
 * wait, so this waits for no clock of its own). Whose words they are says who answered first: the relay's
 * `VERDICT.Relay.gaveUp`, or the player's own `VERDICT.Status.noAnswer`.
 */
function heard(player) {
  return player.roll({ check: { system: "facets", pool: 2 } }).then(() => ({ code: "answered" }), (err) => err);
}

test("a relay whose sidecar never answers tells the player which step it waited for, before the player stops waiting", async () => {
  const w = world("p1", { gmKeyFor: ["gm1"] });
  // This world's player waits 1 s; the relay keeps 300 ms of it for the query's travel.
  globalThis.CONFIG = { verdict: { timings: { request: 1000, queryTravel: 300 } } };
  const { player, relay } = silentSidecar(w);
  try {
    const answer = await heard(player);
    assert.equal(answer.code, "timeout");
    assert.match(answer.message, /^VERDICT\.Relay\.gaveUp .*VERDICT\.Relay\.userKey/, "the relay's answer, naming the step it waited for, came before the player's own timeout");
    assert.equal(relay.answering.size, 0);
  } finally {
    player.stop();
  }
});

test("a query asked again late gives the relay only what is left of the player's wait", async () => {
  const w = world("p1", { gmKeyFor: ["gm1"] });
  globalThis.CONFIG = { verdict: { timings: { request: 2000, queryTravel: 300 } } };
  // The relay's page could not take the first query: the player asks again 0.5 s later, the same request.
  const { player } = silentSidecar(w, (n) => n > 1);
  try {
    const answer = await quietly(() => heard(player));
    assert.equal(answer.code, "timeout");
    assert.match(answer.message, /^VERDICT\.Relay\.gaveUp .*VERDICT\.Relay\.userKey/, "the relay's answer came before the player's own timeout");
  } finally {
    player.stop();
  }
});

/** Sockets the client opens, answered by hand: each records its hello; `end` closes it as the sidecar would. */
function fakeSockets() {
  const sockets = [];
  globalThis.WebSocket = class {
    constructor(url) { this.url = url; this.sent = []; sockets.push(this); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() {}
    get key() { return this.sent.find((m) => m.type === "hello")?.key; }
    welcome(role) {
      this.onopen?.();
      this.onmessage?.({ data: JSON.stringify({ type: "welcome", protocol: 1, server: "v", role, table: "T", seq: 0, events: [], snapshot: null }) });
    }
    end(code, reason) { this.onclose?.({ code, reason }); }
  };
  return sockets;
}

/** What the module told the user, and the settings it changed. */
function watchUser() {
  const said = [];
  const set = [];
  for (const level of ["warn", "info", "error"]) globalThis.ui.notifications[level] = (text) => said.push([level, text]);
  globalThis.game.settings.set = (scope, key, value) => { set.push([`${scope}.${key}`, value]); return Promise.resolve(value); };
  return { said, set };
}

const ROTATED = "the table's keys were rotated: connect with the new key";

test("a GM whose session ends because the keys were rotated forgets the GM key and is asked for the new one, no reconnect loop", async () => {
  world("gm1", { gmKeyFor: ["gm1"], mode: "server" });
  const sockets = fakeSockets();
  const { said, set } = watchUser();
  const client = new VerdictClient();
  client.start();
  const gm = sockets.find((s) => { s.onopen?.(); return s.key === "gk"; });
  assert.ok(gm, "the GM connects with its key");
  gm.welcome("gm");
  const before = sockets.length;
  gm.end(4403, ROTATED);
  assert.deepEqual(set, [["verdict.gmKey", ""]]);  // its settings change reconnects everything, without the key
  assert.ok(said.some(([level, text]) => level === "error" && text === "VERDICT.Status.keyReplaced"));
  assert.equal(client.status.state, "offline");
  await new Promise((r) => setTimeout(r, 700));  // longer than the first reconnect's wait
  assert.equal(sockets.filter((s) => s.key === "gk").length, 1, "never opened again with the replaced key");
  assert.equal(sockets.length, before);
  client.stop();
});

test("a player whose user key was replaced forgets it and asks the relay for the new one", async () => {
  const w = world("p1", { gmKeyFor: ["gm1"], mode: "server" });
  const store = new Map([["verdict.userKey.T.p1", "old-user-key"]]);
  globalThis.localStorage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v), removeItem: (k) => store.delete(k) };
  const sockets = fakeSockets();
  watchUser();
  try {
    const client = playerRelayedBy("gm1");
    await new Promise((r) => setTimeout(r, 0));
    const mine = sockets.find((s) => { s.onopen?.(); return s.key === "old-user-key"; });
    assert.ok(mine, "the player connects with its stored user key");
    mine.welcome("player");
    assert.equal(w.queries.filter((q) => q.name === "verdict.userKey").length, 0);
    mine.end(4403, ROTATED);
    assert.equal(store.has("verdict.userKey.T.p1"), false, "the replaced key is forgotten");
    await new Promise((r) => setTimeout(r, 0));
    const asked = w.queries.filter((q) => q.name === "verdict.userKey");
    assert.equal(asked.length, 1, "the relay is asked for the new key");
    assert.equal(asked[0].to, "gm1");
    asked[0].resolve({ key: "new-user-key" });
    await new Promise((r) => setTimeout(r, 0));
    const again = sockets.find((s) => { s.onopen?.(); return s.key === "new-user-key"; });
    assert.ok(again, "and connects with it");
    assert.equal(store.get("verdict.userKey.T.p1"), "new-user-key");
    client.stop();
  } finally {
    delete globalThis.localStorage;
  }
});
