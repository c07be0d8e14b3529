import { test } from "node:test";
import assert from "node:assert/strict";
import { arithmetic, leftToCharacter, mappedValues, numericPaths, presetMapping, requestForCharacter, resolveMapping } from "../../vtt-module/scripts/lib/mapping.mjs";
import { FIELDS } from "../../vtt-module/scripts/lib/systems.mjs";

const DATA = { rank: 2, skills: { athletics: { value: 3, label: "Athletics" }, stealth: { value: "4" } }, bonus: 1, name: "Ayla", list: [1, 2] };

test("a path resolves to the roll data's number", () => {
  assert.deepEqual(resolveMapping("@skills.athletics.value", DATA), { value: 3, error: null });
  assert.deepEqual(resolveMapping("@rank", DATA), { value: 2, error: null });
  assert.deepEqual(resolveMapping("@skills.stealth.value", DATA), { value: 4, error: null }); // a numeric string
});

test("a formula over the roll data, with Foundry's replacement or without", () => {
  assert.equal(resolveMapping("@skills.athletics.value + @bonus", DATA).value, 4);
  assert.equal(resolveMapping("floor((@rank + @bonus) / 2)", DATA).value, 1);
  assert.equal(resolveMapping("(@rank + @bonus) / 2", DATA).value, 1); // fractions round down
  const replace = (/** @type {string} */ f) => f.replace("@skills.athletics.value", "3").replace("@bonus", "1");
  assert.equal(resolveMapping("@skills.athletics.value + @bonus", DATA, {}, replace).value, 4);
});

test("missing keys and non-numbers are said, naming the paths", () => {
  assert.deepEqual(resolveMapping("@skills.climb.value + @bonus", DATA), { value: null, error: "missing", detail: "@skills.climb.value" });
  assert.equal(resolveMapping("@name", DATA).error, "not_number");
  assert.equal(resolveMapping("@skills.athletics", DATA).error, "not_number");
  assert.equal(resolveMapping("@rank +", DATA).error, "syntax");
  assert.equal(resolveMapping("alert(1)", DATA).error, "syntax");
});

test("limits come from the vocabulary's fields", () => {
  const rank = FIELDS.flairs.find((f) => f.name === "rank");
  assert.ok(rank && rank.max !== undefined);
  const r = resolveMapping("@rank * 100", DATA, { min: rank.min, max: rank.max });
  assert.equal(r.error, "out_of_range");
  const { values, problems } = mappedValues(FIELDS.flairs, { rank: "@skills.athletics.value", edges: "@nope", simple: "@rank" }, DATA);
  assert.deepEqual(values, { rank: 3 });
  assert.deepEqual(Object.keys(problems), ["edges"]); // a boolean field is never mapped
});

test("numeric keys to pick from, and the presets", () => {
  assert.deepEqual(numericPaths(DATA).map((p) => p.path), ["bonus", "rank", "skills.athletics.value"]);
  assert.deepEqual(presetMapping("worldbuilding", FIELDS.flairs), { rank: "@rank", edges: "@edges", cuts: "@cuts", lurking: "@lurking" });
  assert.deepEqual(presetMapping("none", FIELDS.flairs), {});
  assert.equal(arithmetic("max(1, 2) + min(3, 4) * 2"), 8);
});

test("a request leaves to the character the mapped numbers the GM did not set", () => {
  const fields = FIELDS.flairs;
  const mapping = { rank: "@skills.athletics.value", edges: "@skills.climb.value", cuts: "  " };
  assert.deepEqual(leftToCharacter(fields, mapping, new Set()), ["rank", "edges"]);
  assert.deepEqual(leftToCharacter(fields, mapping, new Set(["edges"])), ["rank"]); // the GM's edges stay the GM's
  assert.deepEqual(leftToCharacter(fields, undefined, new Set()), []); // a world that maps nothing: all the GM's
  assert.deepEqual(leftToCharacter(fields.filter((f) => f.name !== "rank"), mapping, new Set()), ["edges"]); // shown fields only
});

test("the player's dialog gets the GM's values, without the character's fields, and those not locked", () => {
  const own = requestForCharacter({ rank: 1, edges: 2, lurking: true }, ["rank"], ["system", "rank", "edges", "lurking"]);
  assert.deepEqual(own, { values: { edges: 2, lurking: true }, locked: ["system", "edges", "lurking"] });
  // a card posted before requests could leave fields to the character: everything is the GM's
  assert.deepEqual(requestForCharacter({ rank: 1 }, undefined, ["system", "rank"]), { values: { rank: 1 }, locked: ["system", "rank"] });
});
