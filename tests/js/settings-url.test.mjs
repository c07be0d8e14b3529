import { test } from "node:test";
import assert from "node:assert/strict";
import { normaliseSidecarUrl } from "../../vtt-module/scripts/lib/sidecar-url.mjs";

const url = (text) => {
  const out = normaliseSidecarUrl(text);
  assert.ok(out.ok, `${text}: ${JSON.stringify(out)}`);
  return out.url;
};

test("what verdict serve prints is kept as it is", () => {
  assert.equal(url("http://127.0.0.1:8765"), "http://127.0.0.1:8765");
  assert.equal(url("https://verdict.example.org"), "https://verdict.example.org");
  assert.equal(url("  http://localhost:8765/  "), "http://localhost:8765");
  assert.equal(url("https://example.org/verdict/"), "https://example.org/verdict");
});

test("host:port and a bare host get a scheme: plain on this machine or the local network, TLS elsewhere", () => {
  assert.equal(url("127.0.0.1:8765"), "http://127.0.0.1:8765");
  assert.equal(url("localhost:8765"), "http://localhost:8765");
  assert.equal(url("192.168.1.20:8765"), "http://192.168.1.20:8765");
  assert.equal(url("[::1]:8765"), "http://[::1]:8765");
  assert.equal(url("verdict.example.org"), "https://verdict.example.org");
  assert.equal(url("verdict.example.org/prefix"), "https://verdict.example.org/prefix");
  assert.equal(url("nas.local"), "http://nas.local");
});

test("the manifest's and the websocket's URLs are taken for the sidecar's", () => {
  assert.equal(url("http://localhost:8765/module/module.json"), "http://localhost:8765");
  assert.equal(url("https://verdict.example.org/module/module.json"), "https://verdict.example.org");
  assert.equal(url("https://verdict.example.org/module/verdict.zip"), "https://verdict.example.org");
  assert.equal(url("ws://localhost:8765/ws"), "http://localhost:8765");
  assert.equal(url("wss://verdict.example.org/ws"), "https://verdict.example.org");
  assert.equal(url("wss://example.org/verdict/ws/"), "https://example.org/verdict");
  assert.equal(url("HTTP://LOCALHOST:8765"), "http://localhost:8765");
});

test("what cannot be a sidecar's address says why", () => {
  assert.deepEqual(normaliseSidecarUrl(""), { ok: false, reason: "empty" });
  assert.deepEqual(normaliseSidecarUrl("   "), { ok: false, reason: "empty" });
  assert.deepEqual(normaliseSidecarUrl("ftp://example.org"), { ok: false, reason: "scheme" });
  assert.deepEqual(normaliseSidecarUrl("mailto:gm@example.org"), { ok: false, reason: "scheme" });
  assert.deepEqual(normaliseSidecarUrl("http://"), { ok: false, reason: "invalid" });
  assert.deepEqual(normaliseSidecarUrl("http://a b"), { ok: false, reason: "invalid" });
  assert.deepEqual(normaliseSidecarUrl("http://gm:secret@localhost:8765"), { ok: false, reason: "invalid" });
  assert.deepEqual(normaliseSidecarUrl("http://localhost:8765/ws?table=abc"), { ok: false, reason: "query" });
});
