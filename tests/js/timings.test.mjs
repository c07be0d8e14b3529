// The module's waits: what ships, and how a world's CONFIG changes them (the browser tests' worlds do).
import { test } from "node:test";
import assert from "node:assert/strict";

import { TIMINGS, relayBudget, timing } from "../../vtt-module/scripts/lib/timings.mjs";

test("the waits that ship", () => {
  assert.deepEqual({ ...TIMINGS }, {
    pair: 800, takeover: 1200, reconnectBase: 500, reconnectMax: 30000, request: 45000, queryTravel: 5000, relayOpen: 8000,
    verifyRecheck: 1500, diceLanding: 10000,
  });
  assert.ok(Object.isFrozen(TIMINGS));
});

test("the relay's budget for an answer ends before the player stops waiting, with room for the query's travel", () => {
  const budget = relayBudget(TIMINGS.request, TIMINGS.queryTravel);
  assert.ok(budget < TIMINGS.request);
  assert.ok(TIMINGS.request - budget >= 2000, "a query crossing a slow server both ways still lands in time");
  assert.ok(TIMINGS.relayOpen < budget, "the relay's first step leaves time for the others");
  const saved = globalThis.CONFIG;
  try {
    delete globalThis.CONFIG;
    assert.equal(relayBudget(), budget);
    // A world that shortens the player's wait shortens the relay's budget with it.
    globalThis.CONFIG = { verdict: { timings: { request: 9000 } } };
    assert.equal(relayBudget(), 9000 - TIMINGS.queryTravel);
    globalThis.CONFIG.verdict.timings.request = 1000;
    globalThis.CONFIG.verdict.timings.queryTravel = 300;
    assert.equal(relayBudget(), 700);
    assert.equal(relayBudget(250), 0, "a player with less time left than the travel gives the relay none");
  } finally {
    globalThis.CONFIG = saved;
  }
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
