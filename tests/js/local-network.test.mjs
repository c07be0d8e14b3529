import { test } from "node:test";
import assert from "node:assert/strict";
import { addressSpace, diagnose, gated } from "../../vtt-module/scripts/lib/local-network.mjs";

test("address spaces", () => {
  assert.equal(addressSpace("localhost"), "loopback");
  assert.equal(addressSpace("127.0.0.1"), "loopback");
  assert.equal(addressSpace("[::1]"), "loopback");
  assert.equal(addressSpace("192.168.1.20"), "private");
  assert.equal(addressSpace("10.0.0.5"), "private");
  assert.equal(addressSpace("172.20.1.1"), "private");
  assert.equal(addressSpace("172.32.1.1"), "public");
  assert.equal(addressSpace("example.forge-vtt.com"), "public");
});

test("local network access gates public to local and private to loopback, not the other way", () => {
  assert.equal(gated("https://table.forge-vtt.com/game", "ws://localhost:8765/ws"), true);
  assert.equal(gated("http://192.168.1.5:30000/game", "ws://127.0.0.1:8765/ws"), true);
  assert.equal(gated("http://localhost:30000/game", "ws://localhost:8765/ws"), false);
  assert.equal(gated("https://table.forge-vtt.com/game", "wss://verdict.example.org/ws"), false);
});

test("a public https page: the prompt pending, denied, or granted and the sidecar down", () => {
  const base = { page: "https://table.forge-vtt.com/game", target: "ws://localhost:8765/ws", secure: true };
  assert.equal(diagnose({ ...base, permission: "prompt" }), "lna-prompt");
  assert.equal(diagnose({ ...base, permission: "denied" }), "lna-denied");
  assert.equal(diagnose({ ...base, permission: "granted" }), "refused");
});

test("a public plain-http page cannot even ask", () => {
  assert.equal(
    diagnose({ page: "http://203.0.113.7:30000/game", target: "ws://localhost:8765/ws", secure: false, permission: "prompt" }),
    "lna-insecure",
  );
});

test("mixed content: an https page and a plain ws:// sidecar on another host", () => {
  assert.equal(
    diagnose({ page: "https://vtt.example.org/game", target: "ws://verdict.example.org:8765/ws", secure: true, permission: null }),
    "mixed-content",
  );
});

test("a browser without the permission, or a local page: the sidecar is not there", () => {
  assert.equal(diagnose({ page: "https://table.forge-vtt.com/game", target: "ws://localhost:8765/ws", secure: true, permission: null }), "refused");
  assert.equal(diagnose({ page: "http://localhost:30000/game", target: "ws://localhost:8765/ws", secure: true, permission: "prompt" }), "refused");
});
