// Card view models from the golden `rolled` vectors, the odds bar, the dialog's checks, and every
// string the module shows present in lang/en.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { buildCard, complicationChoices, localizeCard } from "../../vtt-module/scripts/lib/card-model.mjs";
import { oddsSegments, percent, succeeds } from "../../vtt-module/scripts/lib/odds.mjs";
import { DIE_SIZE, TYPE_SIZES, FIELDS, OUTCOMES, SYSTEMS, TONES, buildCheck, defaults, rulesOf, valuesFromCheck } from "../../vtt-module/scripts/lib/systems.mjs";
import { VOCABULARY } from "../../vtt-module/scripts/generated/vocabulary.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const vector = (name) => JSON.parse(readFileSync(`${ROOT}protocol/vectors/${name}`, "utf8"));
const en = JSON.parse(readFileSync(`${ROOT}vtt-module/lang/en.json`, "utf8"));
const lookup = (key) => key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), en);
const localize = (key) => {
  const v = lookup(key);
  if (typeof v !== "string") throw new Error(`missing string ${key}`);
  return v;
};
const entryOf = (rolled) => ({ checkId: rolled.check, seq: rolled.seq, result: rolled.result, by: rolled.by, user: rolled.user, mode: rolled.mode, label: rolled.label });

for (const system of SYSTEMS) {
  test(`a ${system} card from the golden vector`, () => {
    const rolled = vector(`rolled_${system}.json`);
    const model = localizeCard(buildCard(entryOf(rolled), { isGM: true }), localize);
    assert.equal(model.system, system);
    assert.equal(model.outcome, rolled.result.outcome);
    assert.equal(model.outcomeLabel, localize(`VERDICT.Outcome.${system}.${rolled.result.outcome}`));
    assert.notEqual(model.tone, "neutral");
    assert.equal(model.dice.length, rolled.result.dice.length);
    for (const f of model.facts) assert.ok(!/@VERDICT|undefined|NaN/.test(f.text), `${system}: ${f.label} = ${f.text}`);
  });
}

test("facets: the die read is marked, harm is spelled out", () => {
  const model = localizeCard(buildCard({ checkId: "c", seq: 1, by: "player", result: {
    system: "facets", outcome: "costly_success", dice: [5, 1, 1], pool: 3, desperate: false, highest: 5, kind: "opposition",
    domain: "physical", harm: { opponent: ["scratch"], character: ["scratch"] }, facet: null, cost: true, discord: null, suggestion: "It takes longer",
  } }), localize);
  assert.deepEqual(model.dice.map((d) => d.cls.includes("read")), [true, false, false]);
  assert.ok(model.facts.some((f) => f.label === "Opponent takes" && f.text === "a scratch"));
  // The text's example, labelled as what it is: a cost for the GM to detail (never an unlabelled line).
  assert.match(model.suggestion, /^An example cost .*: It takes longer$/);
  assert.ok(model.facts.some((f) => f.label === "Cost" && f.text === "the GM details the cost"), "a fact says what it means, not \"yes\"");
  assert.equal(model.apply, false, "no actor: nothing to apply");
});

test("apply is offered where the result changes what the tokens mark, and says what it marks", () => {
  const r = { system: "challenge", outcome: "success", dice: [12], total: 12, level: 3, cl: 2, margin: 1, success: true, strain: 0, condition: false };
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", actor: "a1", result: r }).apply, false, "a plain success changes no marker");
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", actor: "a1", result: { ...r, strain: 2 } }).apply, true);
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", actor: "a1", result: { ...r, condition: true } }).apply, true);
  const harm = { system: "facets", outcome: "failure", dice: [2], harm: { opponent: null, character: ["wound"] } };
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", actor: "a1", result: harm }).apply, true);
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", actor: "a1", result: { ...harm, harm: { opponent: null, character: null } } }).apply, false);
  assert.match(localize("VERDICT.Card.apply"), /strain/i);
  const both = localizeCard(buildCard({ checkId: "c", seq: 1, by: "player", actor: "a1", result: { ...r, strain: 2, condition: true } }), localize);
  assert.equal(both.applyLabel, "Mark on the tokens: Strain, the Condition");
});

test("boons: the dice's symbols come with a legend in words, and each die names its type", () => {
  const r = { system: "boons", outcome: "success", dice: [4, 3, 8], types: ["ability", "boon", "trial"], symbols: ["SS", "-", "FN"], net_successes: 1 };
  const model = localizeCard(buildCard({ checkId: "c", seq: 1, by: "player", result: r }), localize);
  const legend = model.facts.find((f) => f.label === "Symbols");
  assert.equal(legend.text, "S Success · – blank · F Failure · N Bane");
  assert.deepEqual(model.dice.map((d) => d.title), ["Ability die: Success, Success", "Boon die: blank", "Trial die: Failure, Bane"]);
});

test("facts speak the rule text's words, with their values", () => {
  const r = { system: "challenge", outcome: "epic_failure", dice: [1], total: 1, level: 0, cl: 2, margin: -2, success: false, strain: 0, condition: true, complication: "add", natural: 1 };
  const model = localizeCard(buildCard({ checkId: "c", seq: 1, by: "player", result: r }), localize);
  const said = Object.fromEntries(model.facts.map((f) => [f.label, f.text]));
  assert.equal(said["New Condition"], "one more Condition (the GM names it)");
  assert.equal(said["Natural roll"], "1");
  assert.equal(said["Level reached / CL"], "0 / 2");
  for (const f of model.facts) assert.notEqual(f.text, "yes", f.label);
});

test("challenge: the choice's buttons come from the open list the viewer received, never from the result", () => {
  const r = { system: "challenge", outcome: "success", dice: [12], total: 12, level: 3, cl: 1, margin: 2, success: true, strain: 0, choice: ["game_changer", "strain"], chosen: null };
  const open = [{ action: "challenge_choice", options: ["game_changer", "strain"] }];
  const model = buildCard({ checkId: "c", seq: 1, by: "player", result: r, open });
  assert.deepEqual(model.followups.map((b) => b.action), [{ action: "challenge_choice", option: "game_changer" }, { action: "challenge_choice", option: "strain" }]);
  assert.deepEqual(model.gmFollowups, []);
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", result: r }).followups.length, 0, "no list (the document, an old card): nothing offered");
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", result: r, open: [] }).followups.length, 0, "an empty list: nothing open to this viewer");
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", result: r, open }, { canFollow: false }).followups.length, 0);
  const one = buildCard({ checkId: "c", seq: 1, by: "player", result: r, open: [{ action: "challenge_choice", options: ["strain"] }] });
  assert.deepEqual(one.followups.map((b) => b.action.option), ["strain"], "only the options the sidecar lists");
});

test("flairs: the bargain and the choice are forms drawn from the open list; the Judge's buttons are the GM's", () => {
  const base = { system: "flairs", outcome: "failure", dice: [3, 3, 2], kept: [3, 3, 2], removed: [], flairs: 0, trials: 1, tainted: 0, desperate: false, simple: false,
    standing: [{ source: "pair", name: null, tainted: false }, { source: "lurking", name: null, tainted: false }], lurking: 1, lurking_trials: null, revealed: false, chosen: false, named: false, bargain: null };
  const roller = [{ action: "flairs_bargain", trials: ["costly", "slow", "loud", "harmful", "foolish", "chaotic"] }, { action: "flairs_choose", flairs: 0 }];
  const fail = localizeCard(buildCard({ checkId: "c", seq: 1, by: "player", result: base, open: roller }), localize);
  assert.equal(fail.bargain.trials.length, 6);
  assert.ok(fail.bargain.trials.every((x) => x.label && !x.label.startsWith("VERDICT.")));
  assert.equal(fail.choose.max, 0, "lurking trials ask for the (possibly empty) flair choice");
  assert.equal(fail.choose.flairs.length, 6);
  assert.deepEqual(fail.gmFollowups, [], "the roller's list holds nothing of the Judge's");
  assert.ok(fail.facts.some((f) => f.label === "Lurking trials" && f.text === "1 (secret)"));
  const judge = [{ action: "flairs_reveal", gm: true }, { action: "flairs_name_trials", gm: true, count: 1 }, { action: "flairs_set_lurking", gm: true, count: 1 }];
  const gm = localizeCard(buildCard({ checkId: "c", seq: 1, by: "player", result: base, open: judge }), localize);
  assert.deepEqual(gm.gmFollowups.map((b) => b.action), [
    { action: "flairs_reveal" }, { action: "flairs_name_trials", trials: null, dice: null }, { action: "flairs_set_lurking", trials: null, dice: null },
  ]);
  assert.ok(gm.gmFollowups.every((b) => b.label && !b.label.startsWith("VERDICT.")));
  assert.equal(gm.bargain, null);
  assert.equal(gm.choose, null);
  const none = buildCard({ checkId: "c", seq: 1, by: "player", result: base });
  assert.equal(none.bargain, null, "no list: no bargain, whatever the result says");
  assert.equal(none.choose, null);
  assert.equal(none.gmFollowups.length, 0);
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", result: base, open: roller }, { canFollow: false }).bargain, null);
});

test("challenge: an epic success's removal is open to the GM alone, its choices drawn from the GM's snapshot", () => {
  const r = { system: "challenge", outcome: "epic_success", dice: [20], total: 25, level: 5, cl: 1, margin: 4, success: true, strain: -2, choice: null, chosen: null, complication: "remove" };
  const entry = { checkId: "c", seq: 1, by: "player", scene: "s1", result: r, open: [{ action: "challenge_remove_complication", gm: true }] };
  const model = localizeCard(buildCard(entry), localize);
  assert.equal(model.removeComplication, true);
  assert.ok(model.facts.some((f) => f.label === "Complication" && f.text === "the GM removes one"));
  assert.equal(model.followups.length, 0, "nothing for the roller: the removal is the GM's");
  assert.equal(buildCard({ ...entry, open: [] }).removeComplication, false, "the roller's list: no removal");
  const snapshot = { scenes: {
    s1: { complications: [{ id: "k1", text: "Rising water", hidden: false, origin: "gm", scene: "s1" }, { id: "k2", text: "Guards", hidden: true, origin: "gm", scene: "s1" }] },
    s2: { complications: [{ id: "k3", text: "Elsewhere", hidden: false, origin: "gm", scene: "s2" }] },
  } };
  assert.deepEqual(complicationChoices(entry, snapshot), [{ value: "k1", text: "Rising water", hidden: false }, { value: "k2", text: "Guards", hidden: true }]);
  assert.deepEqual(complicationChoices({ ...entry, scene: null }, snapshot), [], "a roll with no scene names none");
  assert.deepEqual(complicationChoices(entry, null), []);
  const removed = { ...entry, seq: 2, result: { ...r, complication: "removed" }, open: [] };
  const after = localizeCard(buildCard(removed), localize);
  assert.equal(after.removeComplication, false, "made once");
  assert.deepEqual(complicationChoices(removed, snapshot), []);
  assert.ok(after.facts.some((f) => f.label === "Complication" && f.text === "the GM removed one"));
});

test("boons: the next extended roll is a button that names the extended check", () => {
  const r = { system: "boons", outcome: "success", dice: [5], types: ["ability"], net_successes: 1, extended: { progress: 1, threshold: 4, attempts: 1, limit: null, status: "in_progress" } };
  const model = buildCard({ checkId: "c", seq: 1, by: "player", result: r, extended: "x1", open: [{ action: "extended_next", extended: "x1" }] });
  assert.deepEqual(model.followups.map((b) => b.action), [{ action: "extended_next", extended: "x1" }]);
  assert.equal(model.extendedNext, true);
  assert.equal(buildCard({ checkId: "c", seq: 1, by: "player", result: r, extended: "x1" }).extendedNext, false, "no list: no next roll");
});

test("the golden vectors with an open list: the buttons the receiver of that message gets", () => {
  const rolled = vector("rolled_challenge_open.json");
  const model = buildCard({ ...entryOf(rolled), open: rolled.open });
  assert.deepEqual(model.followups.map((b) => b.action.option), ["game_changer", "strain"]);
  const followed = vector("followed_flairs_open.json");
  const after = buildCard({ checkId: followed.check, seq: followed.seq, by: followed.by, result: followed.result, open: followed.open });
  assert.deepEqual(after.bargain.trials.map((x) => x.value), followed.open[0].trials);
  assert.equal(after.choose, null);
  assert.equal(after.gmFollowups.length, 0);
});

test("the card draws every follow-up the protocol may list", () => {
  const schema = JSON.parse(readFileSync(`${ROOT}protocol/schema/v1.json`, "utf8"));
  const tags = schema.$defs.OpenFollowup.properties.action.enum;
  assert.ok(tags.length >= 8);
  const entry = { checkId: "c", seq: 1, by: "player", scene: "s1", result: { system: "flairs", outcome: "failure", dice: [1] } };
  for (const action of tags) {
    const o = { action, options: ["strain"], flairs: 1, trials: ["loud"], count: 1, extended: "x1" };
    const model = localizeCard(buildCard({ ...entry, open: [o] }), localize);
    const drawn = model.followups.length + model.gmFollowups.length + (model.choose ? 1 : 0) + (model.bargain ? 1 : 0) + (model.removeComplication ? 1 : 0);
    assert.equal(drawn, 1, `${action} is drawn once`);
    for (const b of [...model.followups, ...model.gmFollowups]) assert.ok(b.label && !b.label.startsWith("VERDICT."), `${action}: ${b.label}`);
  }
});

test("the odds bar reads the sidecar's outcome list in the rule set's order", () => {
  const odds = { system: "facets", outcome: [
    { value: "triumph", chance: { num: 2, den: 27, p: 2 / 27 } }, { value: "success", chance: { num: 25, den: 72, p: 25 / 72 } },
    { value: "costly_success", chance: { num: 49, den: 108, p: 49 / 108 } }, { value: "failure", chance: { num: 5, den: 54, p: 5 / 54 } },
    { value: "catastrophe", chance: { num: 7, den: 216, p: 7 / 216 } }], succeeds: { num: 7, den: 8, p: 0.875 }, pool: 3 };
  const segs = oddsSegments("facets", odds);
  assert.deepEqual(segs.map((s) => s.outcome), OUTCOMES.facets.map(([o]) => o));
  assert.equal(segs[0].exact, "2/27");
  assert.equal(segs[2].pct, "45.4%");
  assert.ok(Math.abs(segs.reduce((a, s) => a + s.width, 0) - 100) < 0.05);
  assert.equal(succeeds(odds), "87.5%");
  assert.equal(percent(0), "0%");
  assert.equal(percent(0.00001), "<0.1%");
  assert.deepEqual(oddsSegments("facets", null), []);
  assert.deepEqual(oddsSegments("feats", { success: { num: 1, den: 4, p: 0.25 }, failure: 0.75 }).map((s) => s.pct), ["25.0%", "75.0%"]);
});

test("dialog values become checks in the Struct's field order, and back", () => {
  assert.deepEqual(buildCheck("facets", defaults("facets")), { system: "facets", pool: 1, helping: 0, hindering: 0, kind: "obstacle", domain: "physical" });
  const opposed = buildCheck("boons", { ...defaults("boons"), check_type: "opposed", opponent_ability: 3 });
  assert.deepEqual(opposed.opponent, { ability: 3, boon: 0, bane: 0 });
  assert.equal("threshold" in opposed, false);
  assert.equal(valuesFromCheck(opposed).check_type, "opposed");
  const assisted = buildCheck("boons", { ...defaults("boons"), check_type: "assisted", rank: "2", assists: "1, 3" });
  assert.deepEqual(assisted.assists, [1, 3]);
  assert.equal(assisted.rank, 2);
  assert.equal("level" in buildCheck("feats", defaults("feats")), false, "an empty optional level is left to the sidecar");
});

test("the dialog's fields exist on the protocol's check Structs", () => {
  for (const system of SYSTEMS) {
    const src = readFileSync(`${ROOT}protocol/v1/${system}.py`, "utf8");
    const cls = src.slice(src.indexOf(`class ${system[0].toUpperCase()}${system.slice(1)}Check(`));
    const body = cls.slice(0, cls.indexOf("\nclass ") > 0 ? cls.indexOf("\nclass ") : undefined);
    for (const f of FIELDS[system]) {
      if (f.wire === false) continue;
      const name = f.group ?? f.name;
      assert.match(body, new RegExp(`\\n    ${name}:`), `${system}.${name} is not a field of the check`);
    }
  }
});

test("the module's rule vocabulary is the engine's: outcomes, trials, dice, limits and wire defaults", () => {
  assert.deepEqual(SYSTEMS, Object.keys(VOCABULARY.systems));
  for (const system of SYSTEMS) {
    const engine = VOCABULARY.systems[system].outcomes;
    assert.deepEqual(OUTCOMES[system].map(([o]) => o).sort(), [...engine].sort(), `${system}: every outcome of the engine, and no other`);
    assert.deepEqual(Object.keys(TONES[system]).sort(), [...engine].sort(), `${system}: a tone for each outcome`);
    const wire = new Map(VOCABULARY.systems[system].check.map((f) => [f.name, f]));
    for (const f of FIELDS[system]) {
      if (f.wire === false || f.group) continue;
      const w = wire.get(f.name);
      assert.ok(w, `${system}.${f.name} is a field of the check`);
      if (w.options) assert.deepEqual(f.options, w.options, `${system}.${f.name}: the Struct's options`);
    }
  }
  assert.equal(FIELDS.facets.find((f) => f.name === "pool").max, rulesOf("facets").max_dice);
  assert.equal(FIELDS.flairs.find((f) => f.name === "lurking").max, rulesOf("flairs").max_lurking);
  assert.equal(FIELDS.boons.find((f) => f.name === "crisis").max, rulesOf("boons").max_dice);
  assert.deepEqual(DIE_SIZE, { facets: 6, challenge: 20, flairs: 6, feats: 8 });
  assert.deepEqual(TYPE_SIZES.boons, { ability: 8, boon: 6, bane: 6, trial: 8, crisis: 12 });
  // No hand copy of the vocabulary left in the module's scripts.
  const scan = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? (e.name === "generated" ? [] : scan(`${dir}/${e.name}`)) : [`${dir}/${e.name}`]);
  for (const file of scan(`${ROOT}vtt-module/scripts`)) {
    const src = readFileSync(file, "utf8");
    assert.ok(!/"costly",\s*"slow"|"careful",\s*"swift"|"white",\s*"red",\s*"blue"/.test(src), `${file} copies the vocabulary by hand`);
  }
});

test("every string the module shows is in lang/en.json", () => {
  const keys = new Set();
  const scan = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) scan(p);
      else if (/\.(mjs|hbs)$/.test(e.name)) for (const m of readFileSync(p, "utf8").matchAll(/["'`](VERDICT\.[A-Za-z_.]+[A-Za-z_])["'`]/g)) keys.add(m[1]);
    }
  };
  scan(`${ROOT}vtt-module/scripts`);
  scan(`${ROOT}vtt-module/templates`);
  for (const system of SYSTEMS) {
    for (const [o] of OUTCOMES[system]) keys.add(`VERDICT.Outcome.${system}.${o}`);
    for (const f of FIELDS[system]) {
      keys.add(`VERDICT.Field.${system}.${f.name}`);
      for (const o of f.options ?? []) keys.add(`VERDICT.Option.${f.name}.${o}`);
    }
    keys.add(`VERDICT.System.${system}`);
  }
  for (const m of ["public", "gm", "blind", "self"]) keys.add(`VERDICT.Mode.${m}`);
  const missing = [...keys].filter((k) => typeof lookup(k) !== "string");
  assert.deepEqual(missing, []);
});
