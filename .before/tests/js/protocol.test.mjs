// Protocol encoding against the golden vectors in protocol/vectors/: the module decodes every server
// message and re-encodes every client message byte for byte as the Python side does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_FIELDS, SERVER_TYPES, decodeServer, encodeClient, maxSeq, normalizeClient, wsUrl } from "../../vtt-module/scripts/lib/protocol.mjs";

const DIR = new URL("../../protocol/vectors/", import.meta.url).pathname;
const vectors = readdirSync(DIR).filter((f) => f.endsWith(".json")).map((f) => ({ name: f, text: readFileSync(join(DIR, f), "utf8").trim() }));

test("there are vectors to check", () => {
  assert.ok(vectors.length >= 10, `only ${vectors.length} vectors`);
});

for (const v of vectors) {
  test(`vector ${v.name} round-trips`, () => {
    const msg = JSON.parse(v.text);
    if (msg.type in CLIENT_FIELDS) {
      assert.equal(encodeClient(msg), JSON.stringify(msg), "client message re-encodes identically");
      assert.deepEqual(Object.keys(normalizeClient(msg)).slice(0, CLIENT_FIELDS[msg.type].length + 1), ["type", ...CLIENT_FIELDS[msg.type].map(([n]) => n)]);
    } else {
      assert.ok(SERVER_TYPES.has(msg.type), `unknown server type ${msg.type}`);
      const decoded = decodeServer(v.text);
      assert.equal(JSON.stringify(decoded), JSON.stringify(msg));
    }
  });
}

test("client defaults are filled in wire order", () => {
  const text = encodeClient({ type: "roll", id: "r1", check: { system: "facets", pool: 2 } });
  assert.equal(text, '{"type":"roll","id":"r1","check":{"system":"facets","pool":2},"actor":null,"target":null,"scene":null,"mode":"public","label":null,"extended":null,"gather":null,"part":null,"user":null}');
});

test("a missing required field is refused", () => {
  assert.throws(() => encodeClient({ type: "follow", id: "x" }), /needs `check`/);
  assert.throws(() => encodeClient({ type: "nope" }), /unknown client message type/);
});

test("server frames: garbage is an error, unknown types are skipped", () => {
  assert.throws(() => decodeServer("not json"), (e) => e.code === "bad_frame");
  assert.throws(() => decodeServer("[1]"), (e) => e.code === "bad_frame");
  assert.throws(() => decodeServer("{}"), (e) => e.code === "bad_message");
  assert.equal(decodeServer('{"type":"from_the_future"}'), null);
});

test("maxSeq reads the message, its events and its snapshot", () => {
  assert.equal(maxSeq({ seq: 3, events: [{ seq: 5 }, { seq: 4 }] }), 5);
  assert.equal(maxSeq({ type: "welcome", seq: 2, snapshot: { seq: 9 } }), 9);
  assert.equal(maxSeq({ type: "pong" }), null);
});

test("wsUrl maps http to ws and https to wss", () => {
  assert.equal(wsUrl("http://localhost:8765"), "ws://localhost:8765/ws");
  assert.equal(wsUrl("https://verdict.example.org/"), "wss://verdict.example.org/ws");
  assert.equal(wsUrl("https://example.org/verdict/ws"), "wss://example.org/verdict/ws");
});
