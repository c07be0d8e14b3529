// Who relays, who may send relay frames, the commitment hash, literal card text, status registration
// for both shapes of CONFIG.statusEffects, and DOM helpers for elements of another window.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Election, fromRelay, pickRelay } from "../../vtt-module/scripts/relay/relay.mjs";
import { sha256 } from "../../vtt-module/scripts/lib/sha256.mjs";
import { SPLIT, escapeHTML, inert } from "../../vtt-module/scripts/lib/inert.mjs";
import { elementOf, fromMarkup, isElement, make } from "../../vtt-module/scripts/lib/dom.mjs";

const GM = (id, role = 4, active = true) => ({ id, isGM: true, active, role });
const PL = (id, active = true) => ({ id, isGM: false, active, role: 1 });

test("the relay is a connected GM with the key, by role then id; else Foundry's active GM", () => {
  const users = [GM("gm1"), GM("gm2", 3), PL("p1")];
  assert.equal(pickRelay(users, new Set(["gm1", "gm2"]), "gm1"), "gm1");
  // The full GM has no key: the assistant with the key relays, though Foundry's active GM is gm1.
  assert.equal(pickRelay(users, new Set(["gm2"]), "gm1"), "gm2");
  // Nobody has the key: Foundry's active GM relays (and is told how to connect).
  assert.equal(pickRelay(users, new Set(), "gm1"), "gm1");
  // The GM with the key left.
  assert.equal(pickRelay([GM("gm1", 4, false), GM("gm2", 3), PL("p1")], new Set(["gm1", "gm2"]), "gm2"), "gm2");
  // Same role: the lowest id, as Foundry's own rule.
  assert.equal(pickRelay([GM("b"), GM("a"), GM("c")], new Set(["c", "b"]), "a"), "b");
  // A player listed as a holder is never chosen.
  assert.equal(pickRelay([PL("p1"), GM("gm1")], new Set(["p1"]), "gm1"), "gm1");
  assert.equal(pickRelay([PL("p1")], new Set(), null), null);
});

test("an election remembers who said they hold the key, forgets who left, and says when the relay changed", () => {
  const election = new Election();
  assert.equal(election.holds("gm2", true), true);
  assert.equal(election.holds("gm2", true), false, "said again: no news");
  const users = [GM("gm1"), GM("gm2", 3), PL("p1")];
  assert.equal(election.elect(users, "gm1"), true);
  assert.equal(election.relayId, "gm2");
  assert.equal(election.elect(users, "gm1"), false);
  // gm2 leaves: forgotten as a holder, and Foundry's active GM relays.
  assert.equal(election.elect([GM("gm1"), GM("gm2", 3, false), PL("p1")], "gm1"), true);
  assert.equal(election.relayId, "gm1");
  assert.deepEqual([...election.holders], []);
  // A player who claims the key is never elected, and is forgotten at the next election.
  election.holds("p1", true);
  assert.equal(election.elect(users, "gm1"), false);
  assert.deepEqual([...election.holders], []);
});

test("relay frames count only from the relay's user id as Foundry names the sender", () => {
  assert.equal(fromRelay("gm1", "gm1"), true);
  assert.equal(fromRelay("p2", "gm1"), false);
  assert.equal(fromRelay(null, "gm1"), false);
  assert.equal(fromRelay(undefined, "gm1"), false);
  assert.equal(fromRelay("", ""), false);
  assert.equal(fromRelay("gm1", null), false);
});

test("sha256 agrees with node's for texts of every padding length", () => {
  for (let n = 0; n < 130; n++) {
    const s = randomBytes(n).toString("base64").slice(0, n) + (n % 7 === 0 ? "é✓" : "");
    assert.equal(sha256(s), createHash("sha256").update(s).digest("hex"), `length ${n}`);
  }
});

test("typed text cannot become an inline roll or a content link, and reads the same", () => {
  const label = escapeHTML("[[/r 1d20]] @UUID[Actor.abc]{Bob} &Reference[x] <b>");
  const html = inert(`<div class="verdict-card" data-verdict-follow="[[1]]"><h3>${label}</h3></div>`);
  // No enricher pattern survives in any text node (the text between tags).
  const texts = html.split(/<[^>]*>/);
  for (const text of texts) {
    assert.ok(!/\[\[/.test(text), text);
    assert.ok(!/@[A-Za-z]+\[/.test(text), text);
    assert.ok(!/&amp;[A-Za-z]+\[/.test(text), text);
  }
  // Attributes are untouched; the visible characters are the same once the empty elements are gone.
  assert.ok(html.includes('data-verdict-follow="[[1]]"'));
  assert.equal(html.split(SPLIT).join(""), `<div class="verdict-card" data-verdict-follow="[[1]]"><h3>${label}</h3></div>`);
  assert.equal(escapeHTML(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
});

test("status effects: added once to a v13 array or a v14 object, with hud off", async () => {
  globalThis.game = {};
  const { addStatuses, hasStatus } = await import("../../vtt-module/scripts/tokens.mjs");
  const list = [{ id: "dead", name: "Dead", img: "x.svg" }];
  assert.equal(addStatuses(list), 4);
  assert.equal(addStatuses(list), 0);
  assert.equal(list.length, 5);
  assert.ok(list.filter((e) => e.id.startsWith("verdict-")).every((e) => e.hud === false));
  const rebuilt = { dead: { id: "dead", name: "Dead", img: "x.svg" } };
  assert.equal(hasStatus(rebuilt, "verdict-wound"), false);
  assert.equal(addStatuses(rebuilt), 4);
  assert.equal(rebuilt["verdict-wound"].id, "verdict-wound");
  assert.equal(rebuilt["verdict-wound"].hud, false);
  assert.equal(hasStatus(rebuilt, "verdict-wound"), true);
});

test("DOM helpers take elements of any window by shape and make nodes in the element's own document", () => {
  const made = [];
  const doc = {
    createElement(tag) {
      const el = { nodeType: 1, tagName: tag.toUpperCase(), ownerDocument: doc, querySelector: () => null, innerHTML: "", firstElementChild: null };
      Object.defineProperty(el, "innerHTML", { set(v) { this._html = v; this.firstElementChild = v ? { nodeType: 1, querySelector: () => null, ownerDocument: doc, html: v } : null; }, get() { return this._html; } });
      made.push(el);
      return el;
    },
  };
  const host = doc.createElement("section");
  assert.equal(isElement(host), true);
  assert.equal(isElement({ nodeType: 3 }), false);
  assert.equal(elementOf(host), host);
  assert.equal(elementOf([host]), host);
  assert.equal(elementOf(null), null);
  const button = make(host, "button");
  assert.equal(button.ownerDocument, doc);
  const fresh = fromMarkup(host, "<div>x</div>");
  assert.equal(fresh?.ownerDocument, doc);
  assert.equal(made.length, 3);
});
