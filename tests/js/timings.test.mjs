// The module's waits: what ships, and how a world's CONFIG changes them (the browser tests' worlds do).
import { test } from "node:test";
import assert from "node:assert/strict";

import { TIMINGS, timing } from "../../vtt-module/scripts/lib/timings.mjs";

test("the waits that ship", () => {
  assert.deepEqual({ ...TIMINGS }, { pair: 800, takeover: 1200, reconnectBase: 500, reconnectMax: 30000 });
  assert.ok(Object.isFrozen(TIMINGS));
});

test("without CONFIG.verdict.timings every wait is the shipped one", () => {
  const saved = globalThis.CONFIG;
  try {
    delete globalThis.CONFIG;
    for (const name of Object.keys(TIMINGS)) assert.equal(timing(name), TIMINGS[name]);
    globalThis.CONFIG = { verdict: {} };
    for (const name of Object.keys(TIMINGS)) assert.equal(timing(name), TIMINGS[name]);
  } finally {
    globalThis.CONFIG = saved;
  }
});

test("a world's CONFIG.verdict.timings changes a wait; an unusable value keeps the shipped one", () => {
  const saved = globalThis.CONFIG;
  try {
    globalThis.CONFIG = { verdict: { timings: { takeover: 100, reconnectBase: 0, pair: -1, reconnectMax: "5" } } };
    assert.equal(timing("takeover"), 100);
    assert.equal(timing("reconnectBase"), 0);
    assert.equal(timing("pair"), 800);
    assert.equal(timing("reconnectMax"), 30000);
    globalThis.CONFIG.verdict.timings.pair = Number.NaN;
    assert.equal(timing("pair"), 800);
  } finally {
    globalThis.CONFIG = saved;
  }
});
