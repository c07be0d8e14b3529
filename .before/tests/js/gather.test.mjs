// Gathered checks on the module side: the whole check a request starts, each part's prefilled values,
// what the request card records and draws. The sidecar decides the parts and the outcome; these check
// that the module sends and draws what it says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gatherCheck, gatherModel, gatherable, partRoll, partValues, resolvedOf } from "../../vtt-module/scripts/lib/gather.mjs";
import { buildCheck, coerce, FIELDS } from "../../vtt-module/scripts/lib/systems.mjs";

const party = [
  { name: "Ash", user: "u1", rank: 2, edges: 0, cuts: 0 },
  { name: "Bree", user: "u2", rank: "1", edges: "1", cuts: "" },
];

test("which requests gather", () => {
  assert.equal(gatherable("flairs", {}), true);
  assert.equal(gatherable("boons", { check_type: "opposed" }), true);
  assert.equal(gatherable("boons", { check_type: "simple" }), false);
  assert.equal(gatherable("facets", {}), false);
});

test("a flairs group check names each participant with their own pool", () => {
  const check = gatherCheck("flairs", { rank: 4, edges: 2 }, party, true);
  assert.deepEqual(check, {
    system: "flairs",
    group: [{ name: "Ash", rank: 2, edges: 0, cuts: 0 }, { name: "Bree", rank: 1, edges: 1, cuts: 0 }],
    trap: true,
  });
  // The request's own rank and edges are not the group's: each participant's pool is.
  assert.equal("rank" in check, false);
});

test("a boons opposed check carries the defender's pool", () => {
  const check = gatherCheck("boons", { check_type: "simple", ability: 1, trial: 0, opponent_ability: 1 }, []);
  assert.deepEqual(check.opponent, { ability: 1, boon: 0, bane: 0 });
  assert.equal(check.ability, 1);
  assert.throws(() => gatherCheck("facets", {}, []), /does not gather/);
});

test("each part's dialog starts from the GM's part", () => {
  const flairs = gatherCheck("flairs", {}, party);
  assert.deepEqual(
    { ...partValues(flairs, "Bree") },
    { rank: 1, edges: 1, cuts: 0, simple: true, lurking: 0, darkness: false },
  );
  const boons = { system: "boons", ability: 3, boon: 1, bane: 0, trial: 2, crisis: 0, upgrade: 0, opponent: { ability: 2, boon: 0, bane: 1 } };
  const actor = partValues(boons, "actor");
  assert.equal(actor.check_type, "simple");
  assert.deepEqual(buildCheck("boons", actor), { system: "boons", ability: 3, boon: 1, bane: 0, trial: 2, crisis: 0, upgrade: 0 });
  const defender = partValues(boons, "defender");
  assert.deepEqual(buildCheck("boons", defender), { system: "boons", ability: 2, boon: 0, bane: 1, trial: 0, crisis: 0, upgrade: 0 });
});

test("a part's roll and the whole result, from the GM's rolled", () => {
  const rolled = {
    type: "rolled", check: "t-7", gather: "g1", part: "Bree", user: "u2",
    result: { system: "flairs", outcome: "failure", dice: [2, 1] },
    events: [
      { seq: 8, event: { kind: "gather_part", gather: "g1", part: "Bree" } },
      { seq: 9, event: { kind: "gather_resolved", gather: "g1", result: { system: "flairs", outcome: "failure", springs: ["Bree"] } } },
    ],
  };
  assert.deepEqual(partRoll(rolled), { check: "t-7", user: "u2", outcome: "failure", dice: [2, 1] });
  assert.deepEqual(resolvedOf(rolled)?.springs, ["Bree"]);
  assert.equal(resolvedOf({ ...rolled, events: rolled.events.slice(0, 1) }), null);
  // Another gather's resolution is not this one's.
  assert.equal(resolvedOf({ ...rolled, gather: "g2" }), null);
  const boons = partRoll({ check: "t-8", gather: "g2", part: "actor", result: { system: "boons", outcome: "success", dice: [4], symbols: ["SS"], net_successes: 2 } });
  assert.deepEqual(boons.symbols, ["SS"]);
  assert.equal(boons.net, 2);
});

test("the card model: parts waiting, parts rolled, the outcome and who springs the trap", () => {
  const request = {
    system: "flairs", parts: [{ name: "Ash", user: "u1" }, { name: "Bree", user: "u2" }],
    partRolls: { Ash: { check: "c1", user: "u1", outcome: "success", dice: [6, 4, 4] } }, result: null,
  };
  const names = (id) => ({ u1: "Ash's player", u2: "Bree's player" })[id];
  let m = gatherModel(request, names);
  assert.equal(m.waiting, 1);
  assert.equal(m.outcomeKey, null);
  assert.deepEqual(m.rows.map((r) => [r.part, r.rolled, r.outcomeKey]), [["Ash", true, "VERDICT.Outcome.flairs.success"], ["Bree", false, null]]);
  m = gatherModel({
    ...request,
    partRolls: { ...request.partRolls, Bree: { check: "c2", user: "u2", outcome: "failure", dice: [3, 2] } },
    result: {
      system: "flairs", outcome: "failure", springs: ["Bree"],
      group: [{ name: "Ash", outcome: "success", removed: [6], kept: [4, 4] }, { name: "Bree", outcome: "failure", removed: [], kept: [3, 2] }],
    },
  }, names);
  assert.equal(m.waiting, 0);
  assert.equal(m.outcomeKey, "VERDICT.Outcome.flairs.failure");
  assert.equal(m.tone, "bad");
  assert.deepEqual(m.springs, ["Bree"]);
  assert.deepEqual(m.rows.map((r) => r.springs), [false, true]);
  // The die a cut removed is drawn struck through.
  assert.deepEqual(m.rows[0].dice.map((d) => d.cls), ["removed", "", ""]);
  const opposed = gatherModel({
    system: "boons", parts: [{ name: "actor", user: "u1" }, { name: "defender", user: "gm" }],
    partRolls: { actor: { check: "c", user: "u1", outcome: "success", dice: [2], symbols: ["S"], net: 1 } },
    result: { system: "boons", outcome: "failure", winner: "defender", net_successes: 1 },
  }, names);
  assert.equal(opposed.winnerKey, "VERDICT.Winner.defender");
  assert.equal(opposed.rows[0].partKey, "VERDICT.Request.part.actor");
  assert.equal(opposed.rows[0].dice[0].face, "S");
  assert.equal(opposed.rows[0].net, 1);
});

test("feats: the Wyrd dice are some of the three, in die order, or unset", () => {
  const field = FIELDS.feats.find((f) => f.name === "wyrd_dice");
  assert.deepEqual(coerce(field, ["blue", "white"]), ["white", "blue"]);
  assert.equal(coerce(field, []), null);
  assert.deepEqual(buildCheck("feats", { ability: 10, difficulty: 13, wyrd: 1, wyrd_dice: ["red"] }), {
    system: "feats", ability: 10, difficulty: 13, wyrd: 1, wyrd_dice: ["red"], wyrd_feat: false,
  });
  assert.deepEqual(buildCheck("feats", { ability: 10, difficulty: 13, wyrd: 0 }), { system: "feats", ability: 10, difficulty: 13, wyrd: 0, wyrd_feat: false });
});
