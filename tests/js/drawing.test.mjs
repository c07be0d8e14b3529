import { test } from "node:test";
import assert from "node:assert/strict";
import { ACTIONS, ACTOR_VALUES, CONTROLS, ITEM_LISTS, PARTS, badgeView, controlShown, controlView, entryText, inputValue, markers, opOf, say, sheetRows, showsConditions } from "../../vtt-module/scripts/lib/drawing.mjs";
import { VOCABULARY } from "../../vtt-module/scripts/generated/vocabulary.mjs";

/** A localizer that knows no key: every word is the drawing's English. */
const none = (/** @type {string} */ key) => key;

/** @param {string} field */
const partOf = (field) => {
  const found = PARTS.find((d) => d.part.field === field);
  assert.ok(found, `${field} is drawn`);
  return found;
};

/** @param {string} op */
const controlOf = (op) => {
  const found = [...CONTROLS.entries()].find(([, c]) => c.control.op === op);
  assert.ok(found, `a control sends ${op}`);
  return found;
};

test("every part the vocabulary draws is a rule set's, with one key per control", () => {
  const drawn = Object.entries(VOCABULARY.systems).flatMap(([system, s]) => (s.drawing?.parts ?? []).map((p) => `${system}.${p.field}`));
  assert.deepEqual(PARTS.map((d) => `${d.system}.${d.part.field}`), drawn);
  assert.equal(ACTOR_VALUES.length + ITEM_LISTS.length, PARTS.length);
  for (const [key, { system, part }] of CONTROLS) assert.ok(key.startsWith(`${system}.${part.field}.`), key);
  assert.deepEqual(ACTIONS, [...new Set(ACTIONS)]);
});

test("a label is the language's word where it has the key, else the drawing's English", () => {
  const label = { key: "VERDICT.X.y", text: "English" };
  assert.equal(say(label, none), "English");
  assert.equal(say(label, (k) => (k === "VERDICT.X.y" ? "Deutsch" : k)), "Deutsch");
  assert.equal(say(null, none), "");
});

test("a control's op binds its arguments from the row: entry, actor, scene, input, constant", () => {
  const [, edit] = controlOf("complication_edit");
  assert.deepEqual(opOf(edit.control, { item: { id: "c7", text: "old" }, scene: "s1" }, { edit: "new" }), { op: "complication_edit", complication: "c7", text: "new" });
  const [, heal] = controlOf("harm_heal");
  assert.deepEqual(opOf(heal.control, { actor: "a1", scene: null }, {}), { op: "harm_heal", actor: "a1", harm: heal.control.args.find((a) => a.name === "harm").value, count: 1 });
  const [, add] = controlOf("complication_add");
  assert.deepEqual(opOf(add.control, { scene: "s1" }, { text: "Fog", hidden: false }), { op: "complication_add", scene: "s1", text: "Fog", hidden: false });
  assert.equal(opOf(add.control, { scene: null }, { text: "Fog", hidden: true }), null, "no scene shown: nothing sent");
  const [, lurking] = controlOf("lurking_set");
  assert.deepEqual(opOf(lurking.control, { scene: null }, { trial: ["loud"] }), { op: "lurking_set", trials: ["loud"], scene: null, actor: null }, "a scene that may be null");
});

test("a form's owner sends the actor chosen, or the scene shown when the GM chose the scene", () => {
  const [, add] = controlOf("facet_add");
  const on = (/** @type {string} */ owner, /** @type {string|null} */ scene) => opOf(add.control, { scene }, { facet: "Dust", nature: "detrimental", owner });
  assert.deepEqual(on("a1", null), { op: "facet_add", facet: "Dust", nature: "detrimental", actor: "a1", scene: null });
  assert.deepEqual(on("", "s1"), { op: "facet_add", facet: "Dust", nature: "detrimental", actor: null, scene: "s1" });
  assert.equal(on("", null), null);
});

test("an input reads what the GM entered as its kind does, a missing required one as undefined", () => {
  const label = { key: "k", text: "t" };
  assert.equal(inputValue({ name: "t", kind: "text", label }, { value: "  Fog " }), "Fog");
  assert.equal(inputValue({ name: "t", kind: "text", label }, { value: "  " }), undefined);
  assert.equal(inputValue({ name: "n", kind: "number", label, default: 2, min: 1, max: 20 }, { value: "" }), 2);
  assert.equal(inputValue({ name: "n", kind: "number", label, default: 2, min: 1, max: 20 }, { value: "7" }), 7);
  assert.equal(inputValue({ name: "n", kind: "number", label, min: 1, max: 20 }, { value: "99" }), undefined, "past its bound");
  assert.equal(inputValue({ name: "f", kind: "flag", label }, { checked: false }), false);
  assert.deepEqual(inputValue({ name: "c", kind: "choices", label }, { values: ["a", "b"] }), ["a", "b"]);
  assert.equal(inputValue({ name: "c", kind: "choices", label }, { values: [] }), undefined);
  assert.equal(inputValue({ name: "c", kind: "choice", label, default: "x" }, { value: "" }), "x");
});

test("a control shows by its row's fields and names its row in its accessible name", () => {
  const [key, reveal] = controlOf("complication_reveal");
  assert.equal(controlShown(reveal.control, { hidden: true }), true);
  assert.equal(controlShown(reveal.control, { hidden: false }), false);
  const view = controlView(key, reveal.control, none, {}, "A ward");
  assert.equal(view.aria, "Reveal: A ward");
  const [ckey, convert] = controlOf("complication_convert");
  assert.equal(controlView(ckey, convert.control, none, { cl: null }, "x").label, "Make it a challenge");
  assert.equal(controlView(ckey, convert.control, none, { cl: 3 }, "x").label, "Set the CL");
  assert.equal(controlView(ckey, convert.control, none, { cl: 3 }, "x").inputs[0].value, 3, "prefilled from the entry");
});

test("an entry's text, its values' labels, and the secret in place of a text the viewer may not see", () => {
  const { part } = partOf("lurking");
  assert.equal(part.type, "items");
  if (part.type !== "items") return;
  assert.deepEqual(entryText(part, { trials: ["loud", "slow"] }, none), { text: "Loud, Slow", secret: false });
  assert.deepEqual(entryText(part, { trials: null }, none), { text: "secret trials wait", secret: true });
  const badge = (part.badges ?? [])[0];
  assert.deepEqual(badgeView(badge, { count: 2 }, none), { text: "2", css: "count" });
});

test("the sheet shows the world's numbers, others only where held, flags while set", () => {
  const rows = (/** @type {Record<string, any>} */ state, /** @type {string} */ world) => sheetRows(state, world, (k) => (k === "VERDICT.Yes" ? "yes" : k)).map((r) => `${r.stat}=${r.text}`);
  const strain = partOf("strain").system;
  assert.ok(rows({}, strain).includes("strain=0"));
  assert.ok(!rows({}, partOf("lurking").system).includes("strain=0"));
  assert.ok(rows({ strain: 2 }, partOf("lurking").system).includes("strain=2"));
  assert.ok(rows({ taken_down: true }, strain).includes("taken_down=yes"));
  assert.ok(!rows({ taken_down: false }, strain).some((r) => r.startsWith("taken_down")));
  assert.ok(rows({ facets: [{ facet: "Sure footing", nature: "beneficial", id: "f1" }] }, strain).includes("facets=Sure footing"));
  assert.equal(showsConditions(strain), true);
  assert.equal(showsConditions(partOf("lurking").system), false);
});

test("the token markers are the drawings': statuses with their icons, badges with their words", () => {
  const { statuses, badges } = markers();
  assert.ok(statuses.length > 0 && badges.length > 0);
  for (const { marker } of statuses) assert.ok(marker.id && marker.icon, marker.id);
  assert.equal(statuses.filter((s) => s.marker.defeated).length, 1);
  for (const { marker } of badges) assert.ok(marker.id && marker.label.text, marker.id);
});

test("each typed or coloured die is painted as its rule set's drawing says, by the class its card gives it", async () => {
  const { diceColours } = await import("../../vtt-module/scripts/lib/card-model.mjs");
  const css = diceColours();
  for (const [system, s] of Object.entries(VOCABULARY.systems)) {
    for (const [die, paint] of Object.entries(s.drawing?.dice ?? {})) {
      const cls = s.dice.sizes ? `${system}-${die}` : String(s.dice.colour_class).replace("{colour}", die);
      assert.ok(css.includes(`.verdict-dice .die.${cls} { background: ${paint.background}; color: ${paint.colour}; }`), cls);
    }
  }
  assert.ok(css.split("\n").length >= 8, "the shipped typed and coloured dice");
});
