// The module-socket protocol (relay/relay.mjs): every frame is versioned and declared; a page acts only on a
// frame of its version, of a declared type, from a user who may send it, with fields of the declared shapes,
// and takes nothing else from it. Every frame the module sends goes through the protocol.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FRAMES, SOCKET_VERSION, admit, frame, receive } from "../../vtt-module/scripts/relay/relay.mjs";

const USERS = { gm1: { isGM: true }, gm2: { isGM: true }, p1: { isGM: false }, p2: { isGM: false } };
/** What a player's page knows: gm1 relays. */
const PLAYER = { relay: "gm1", isRelay: false, user: (id) => USERS[id] };
/** What the relay's page knows. */
const RELAY = { relay: "gm1", isRelay: true, user: (id) => USERS[id] };

/** One valid frame of every declared type, and a user allowed to send it. */
const SAMPLES = {
  hello: [frame("hello", { commit: "a".repeat(64), fresh: true }), "p1"],
  key: [frame("key", { has: true }), "gm2"],
  status: [frame("status", { status: { state: "open", reason: null } }), "gm1"],
  snapshot: [frame("snapshot", { snapshot: { seq: 3, actors: {} } }), "gm1"],
  bc: [frame("bc", { msg: { type: "event", event: { kind: "roll" } } }), "gm1"],
  "request-rolled": [frame("request-rolled", { message: "m1", check: "c1", mode: "public", outcome: "success", system: "s" }), "p1"],
  defaults: [frame("defaults", { actor: "a1", system: "s", values: { pool: 2 } }), "p1"],
  apply: [frame("apply", { actors: ["a1", "a2"] }), "gm2"],
};

test("every declared type has a sample here, and each is admitted as sent, at the protocol's version", () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), Object.keys(FRAMES).sort());
  for (const [type, [data, sender]] of Object.entries(SAMPLES)) {
    assert.equal(data.v, SOCKET_VERSION);
    assert.equal(data.t, type);
    const got = admit(data, sender, RELAY);
    assert.ok(got.ok, `${type}: ${got.why}`);
    assert.deepEqual(got.frame, data, type);
    assert.equal(got.to, FRAMES[type].to);
  }
});

test("a frame of another version, or without one, is ignored whatever it says", () => {
  for (const [type, [data, sender]] of Object.entries(SAMPLES)) {
    for (const v of [undefined, 0, SOCKET_VERSION + 1, String(SOCKET_VERSION)]) {
      const got = admit({ ...data, v }, sender, RELAY);
      assert.equal(got.ok, false, `${type} v=${v}`);
      assert.match(got.why, /version/);
      assert.equal(got.quiet, false);
    }
  }
});

test("a frame of an unknown type is ignored, the frames of older modules among them", () => {
  for (const t of ["rep", "req", "roll", "", "constructor", "__proto__", "toString", undefined]) {
    const got = admit({ v: SOCKET_VERSION, t, to: "p1", msg: { type: "rolled" } }, "gm1", RELAY);
    assert.equal(got.ok, false, String(t));
    assert.match(got.why, /unknown type/);
  }
});

test("only the users a type names may send it: the relay's frames from the relay, a GM's from a GM", () => {
  for (const [type, [data]] of Object.entries(SAMPLES)) {
    const rule = FRAMES[type].from;
    for (const sender of ["gm1", "gm2", "p1", "p2"]) {
      const allowed = rule === "anyone" || (rule === "gm" && USERS[sender].isGM) || (rule === "relay" && sender === "gm1");
      assert.equal(admit(data, sender, RELAY).ok, allowed, `${type} from ${sender}`);
    }
    // Who sent it is the user Foundry names, never a field of the frame; nobody, or nobody known, is no one.
    assert.equal(admit({ ...data, from: "gm1", sender: "gm1", user: "gm1" }, "p2", RELAY).ok, rule === "anyone", type);
    for (const sender of [null, undefined, "", 7, "stranger"]) assert.equal(admit(data, sender, RELAY).ok, false, `${type} from ${sender}`);
  }
  // No relay elected: no page takes a relay frame from anyone.
  assert.equal(admit(SAMPLES.status[0], "gm1", { ...PLAYER, relay: null }).ok, false);
});

test("a field of the wrong shape, or missing, drops the frame; fields not declared never reach the page", () => {
  const bad = [
    frame("hello", { commit: "not a hash" }), { ...SAMPLES.hello[0], fresh: "yes" },
    { v: SOCKET_VERSION, t: "key" }, { ...SAMPLES.key[0], has: 1 },
    { ...SAMPLES.status[0], status: { state: 3 } }, { ...SAMPLES.status[0], status: "open" },
    { ...SAMPLES.snapshot[0], snapshot: [1] }, { ...SAMPLES.bc[0], msg: null },
    { ...SAMPLES["request-rolled"][0], check: "" }, { ...SAMPLES["request-rolled"][0], outcome: 1 },
    { ...SAMPLES.defaults[0], values: "x" }, { ...SAMPLES.apply[0], actors: ["a1", 2] },
  ];
  for (const data of bad) {
    const sender = SAMPLES[data.t][1];
    const got = admit(data, sender, RELAY);
    assert.equal(got.ok, false, JSON.stringify(data));
    assert.match(got.why, /bad "/);
  }
  const extra = admit({ ...SAMPLES.status[0], from: "gm1", msg: { forged: true } }, "gm1", RELAY);
  assert.ok(extra.ok);
  assert.deepEqual(Object.keys(extra.frame).sort(), ["status", "t", "v"]);
  // The optional fields of a frame may be left out.
  assert.ok(admit(frame("hello", { commit: "b".repeat(64) }), "p2", PLAYER).ok);
  assert.ok(admit(frame("request-rolled", { message: "m1", check: "c1", mode: "blind" }), "p1", RELAY).ok);
});

test("a frame for the relay is acted on by the relay's page alone, and another page ignores it without a word", () => {
  for (const [type, [data, sender]] of Object.entries(SAMPLES)) {
    const got = admit(data, sender, PLAYER);
    if (FRAMES[type].to === "relay") {
      assert.equal(got.ok, false, type);
      assert.equal(got.quiet, true, type);
    } else {
      assert.ok(got.ok, type);
    }
  }
});

test("receive hands an admitted frame on with its sender, and logs any other without handing it on", (t) => {
  const warned = [];
  t.mock.method(console, "warn", (...args) => warned.push(args.join(" ")));
  const handled = [];
  const handle = (f, sender) => handled.push([f.t, sender]);
  receive(SAMPLES.status[0], "gm1", PLAYER, handle);
  receive({ ...SAMPLES.status[0], v: 2 }, "gm1", PLAYER, handle);
  receive({ v: SOCKET_VERSION, t: "rep" }, "gm1", PLAYER, handle);
  receive(SAMPLES.status[0], "p2", PLAYER, handle);
  receive(SAMPLES.apply[0], "gm2", PLAYER, handle);
  receive("junk", "gm1", PLAYER, handle);
  assert.deepEqual(handled, [["status", "gm1"]]);
  assert.equal(warned.length, 4, warned.join("\n"));
  assert.match(warned[0], /version 2/);
  assert.match(warned[1], /unknown type "rep"/);
  assert.match(warned[2], /only the relay \(gm1\)/);
  assert.match(warned[3], /not a frame/);
});

test("the module sends frames through the protocol only, each of a declared type", () => {
  const root = new URL("../../vtt-module/scripts/", import.meta.url).pathname;
  const files = readdirSync(root, { recursive: true }).filter((f) => String(f).endsWith(".mjs")).map(String);
  const sent = new Set();
  for (const file of files) {
    const source = readFileSync(join(root, file), "utf8");
    if (file !== join("relay", "relay.mjs")) assert.doesNotMatch(source, /socket\??\.emit\(/, `${file} emits on the socket itself`);
    for (const m of source.matchAll(/sendFrame\("([^"]+)"/g)) sent.add(m[1]);
  }
  for (const type of sent) assert.ok(Object.hasOwn(FRAMES, type), `${type} is sent but not declared`);
  assert.deepEqual([...sent].sort(), Object.keys(FRAMES).sort(), "a declared type nobody sends");
});
