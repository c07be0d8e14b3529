import { test } from "node:test";
import assert from "node:assert/strict";
import { Drawn } from "../../vtt-module/scripts/lib/drawn.mjs";

const el = (connected = false) => ({ isConnected: connected });

test("every element of a message is kept while on screen or about to be inserted", () => {
  const drawn = new Drawn();
  const log = el(false);
  const pane = el(false);
  drawn.add("m1", log, "log");
  drawn.add("m1", pane, "pane");
  assert.deepEqual(drawn.live("m1").map((e) => e.value), ["log", "pane"]);
  log.isConnected = true;
  pane.isConnected = true;
  assert.equal(drawn.live("m1").length, 2);
  // the log replaces its copy (an update): the old element leaves the document and is forgotten
  log.isConnected = false;
  const fresh = el(false);
  drawn.add("m1", fresh, "log again");
  assert.deepEqual(drawn.live("m1").map((e) => e.value), ["pane", "log again"]);
  assert.deepEqual(drawn.keys(), ["m1"]);
});

test("the same element drawn again replaces its entry, and a key whose elements all left is gone", () => {
  const drawn = new Drawn();
  const a = el(true);
  drawn.add("m", a, 1);
  drawn.add("m", a, 2);
  assert.deepEqual(drawn.live("m").map((e) => e.value), [2]);
  a.isConnected = false;
  assert.deepEqual(drawn.live("m"), []);
  assert.deepEqual(drawn.keys(), []);
});
