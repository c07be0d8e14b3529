/**
 * The chat card's view model: from a `rolled` (and later `followed`) message to what the card template
 * draws. Pure: the template localizes the keys; node --test checks the model.
 * @module
 */

import { DIE_SIZE, TYPE_SIZES, followupOf, systemOf, toneOf } from "./systems.mjs";
import { drawingOf } from "./drawing.mjs";
import { VOCABULARY } from "../generated/vocabulary.mjs";

/**
 * @typedef {object} CardEntry  what a chat message's flags hold for a card
 * @property {string} checkId
 * @property {number} seq
 * @property {Record<string, any>|null} result
 * @property {Record<string, any>} [check]   the wire check, when the roller's client knows it
 * @property {string} by
 * @property {string|null} [user]
 * @property {string|null} [actor]
 * @property {string|null} [target]
 * @property {string|null} [scene]
 * @property {string} [mode]
 * @property {string|null} [label]
 * @property {string|null} [extended]
 * @property {Array<Record<string, any>>} [actions]  follow-up actions applied, in order
 * @property {boolean} [redacted]  the stored result is the player-safe copy
 * @property {string|null} [gather]  the gathered check this roll is a part of
 * @property {OpenFollowup[]} [open]  the follow-ups open to this viewer (its own copy's list; never the document's)
 */

/**
 * @typedef {object} Fact
 * @property {string} key           i18n key of the label
 * @property {string|number} [value]
 * @property {string} [valueKey]    i18n key of the value, instead of `value`
 * @property {string} [tone]
 * @property {string} [title]       the label where the language has no `key` (a rule set's own fact)
 * @property {boolean} [plain]      `value` is typed text, drawn as it is (no `@KEY` token in it is resolved)
 */

/**
 * @typedef {object} FollowButton
 * @property {string} labelKey
 * @property {Record<string, any>} action   the wire action
 * @property {string} [tone]
 * @property {boolean} [gmOnly]
 */

const K = "VERDICT";

/**
 * @param {number} n
 * @returns {string} with an explicit sign
 */
export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/**
 * The value at a path of a result: `a.b` walks objects, `a[].b` maps a list (leaving out empty values).
 * @param {any} obj
 * @param {string} path
 * @returns {any}
 */
function at(obj, path) {
  let v = obj;
  const parts = path.split(".");
  for (let i = 0; i < parts.length; i++) {
    if (v === null || v === undefined) return undefined;
    const key = parts[i];
    if (key.endsWith("[]")) {
      const rest = parts.slice(i + 1).join(".");
      const list = v[key.slice(0, -2)];
      if (!Array.isArray(list)) return undefined;
      return rest ? list.map((x) => at(x, rest)).filter((x) => x !== null && x !== undefined && x !== "") : list;
    }
    v = v[key];
  }
  return v;
}

/** @param {any} v */
const truthy = (v) => (Array.isArray(v) ? v.length > 0 : Boolean(v));

/**
 * Fill a fact's template from a result: `{path}`, `{path|signed}`, `{path|abs}`, `{path|?}` (unset shows
 * `?`), `{path|@Label}` (each value as the `@VERDICT.Label.<value>` token `localizeCard` resolves). A list of
 * templates takes the first whose paths all hold a value.
 * @param {string|string[]} template
 * @param {any} r
 * @returns {string}
 */
function fill(template, r) {
  const all = Array.isArray(template) ? template : [template];
  for (const t of all) {
    let missing = false;
    const out = t.replace(/\{([^}|]+)(?:\|([^}]+))?\}/g, (_m, path, how) => {
      const v = at(r, path);
      if (v === null || v === undefined) {
        if (how === "?") return "?";
        missing = true;
        return "";
      }
      if (how === "signed") return signed(Number(v));
      if (how === "abs") return String(Math.abs(Number(v)));
      if (how?.startsWith("@")) return (Array.isArray(v) ? v : [v]).map((x) => `@${K}.${how.slice(1)}.${x}`).join(", ");
      return Array.isArray(v) ? v.join(", ") : String(v);
    });
    if (!missing || t === all[all.length - 1]) return out;
  }
  return "";
}

/**
 * A fact's tone: a tone, a tone per value (`{of, map}`, `*` for any other), or by sign (`{sign}`: good when
 * positive, bad when negative, `zero` when 0; `invert` the other way).
 * @param {any} tone
 * @param {any} r
 * @returns {string|undefined}
 */
function toneFrom(tone, r) {
  if (!tone || typeof tone === "string") return tone || undefined;
  if (tone.sign) {
    const n = Number(at(r, tone.sign) ?? 0);
    if (n === 0) return tone.zero;
    return (n > 0) !== Boolean(tone.invert) ? "good" : "bad";
  }
  if (tone.of) {
    const v = at(r, tone.of);
    return tone.map?.[v] ?? tone.map?.["*"];
  }
  return undefined;
}

/**
 * What a card names an entry of the table by: its text as this viewer's table holds it (typed text, drawn as
 * it is), else words saying this viewer's table does not hold it; never its id.
 * @param {Fact} fact
 * @param {string} id
 * @param {string} list
 * @param {((id: string, list: string) => string|null)|undefined} entryText
 */
function nameEntry(fact, id, list, entryText) {
  const text = entryText?.(id, list);
  if (typeof text === "string") {
    fact.value = text;
    fact.plain = true;
  } else {
    fact.valueKey = `${K}.Card.entryOutOfView`;
  }
}

/**
 * The facts under a result's outcome, as its rule set's card lists them (generated vocabulary).
 * @param {Record<string, any>} r
 * @param {(id: string, list: string) => string|null} [entryText]  an entry's text by its id, from this viewer's table
 * @returns {Fact[]}
 */
function factsOf(r, entryText) {
  /** @type {Fact[]} */
  const facts = [];
  for (const spec of systemOf(r.system).facts ?? []) {
    const items = spec.each ? at(r, spec.each) : [r];
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (spec.when && !truthy(at(item, spec.when))) continue;
      if ("equals" in spec && at(item, spec.when) !== spec.equals) continue;
      const key = Array.isArray(spec.key) ? spec.key[Number(at(item, spec.sign) ?? 0) > 0 ? 0 : 1] : spec.key;
      /** @type {Fact} */
      const fact = { key: `${K}.Fact.${key}` };
      if (spec.title) fact.title = spec.title;
      const list = spec.entry;  // the fact's value is the id of an entry of this list of the table's state
      const id = list && typeof spec.when === "string" ? at(item, spec.when) : null;
      if (typeof id === "string") nameEntry(fact, id, list, entryText);
      else if (spec.value_key) fact.valueKey = fill(spec.value_key, item);
      else fact.value = fill(spec.text ?? "", item);
      const tone = toneFrom(spec.tone, item);
      if (tone) fact.tone = tone;
      facts.push(fact);
    }
  }
  return facts;
}

/**
 * The stylesheet rules that paint each rule set's dice by type or colour, as its drawing says: a die's class
 * is `<rule set>-<type>` for typed dice, its card's `colour_class` for coloured ones.
 * @returns {string}
 */
export function diceColours() {
  /** @type {string[]} */
  const rules = [];
  for (const system of Object.keys(VOCABULARY.systems)) {
    const painted = drawingOf(system).dice ?? {};
    const d = systemOf(system).dice ?? {};
    for (const [name, paint] of Object.entries(painted)) {
      const cls = d.sizes ? `${system}-${name}` : String(d.colour_class ?? "{colour}").replace("{colour}", name);
      rules.push(`.verdict-dice .die.${classSelector(cls)} { background: ${paint.background}; color: ${paint.colour}; }`);
    }
  }
  return rules.join("\n");
}

/** A class name as a selector writes it (letters, digits, `-` and `_` are all a die's class has). */
const classSelector = (/** @type {string} */ s) => s.replace(/[^A-Za-z0-9_-]/g, (c) => `\\${c}`);

/** In a browser, the dice colours are put in the document once, before the first die is drawn. */
function paintDice() {
  const doc = /** @type {any} */ (globalThis).document;
  if (!doc?.head || doc.getElementById("verdict-dice-colours")) return;
  const style = doc.createElement("style");
  style.id = "verdict-dice-colours";
  style.textContent = diceColours();
  doc.head.append(style);
}

/**
 * A result's dice as the card draws them, marked as its rule set's card says (generated vocabulary): the die
 * read, dice cut, the highest and lowest faces, a class per die type or per position, symbols for faces.
 * @param {Record<string, any>} r
 * @returns {Array<Record<string, any>>}
 */
function diceOf(r) {
  paintDice();
  const system = r.system;
  const d = systemOf(system).dice ?? {};
  const faces = Array.isArray(r.dice) ? r.dice : [];
  const removed = d.removed ? [...(r[d.removed] ?? [])] : [];
  const kept = d.read_max_of ? r[d.read_max_of] ?? [] : [];
  const readFace = d.read ? r[d.read] : d.read_max_of ? (kept.length ? Math.max(...kept) : null) : null;
  const types = d.types ? r[d.types] ?? [] : [];
  const symbols = d.symbols ? r[d.symbols] ?? [] : [];
  const sizes = TYPE_SIZES[system] ?? {};
  const firstType = Object.keys(sizes)[0];
  let readMarked = false;
  return faces.map((/** @type {number} */ f, /** @type {number} */ i) => {
    const at = removed.indexOf(f);
    const isRemoved = at >= 0 && !kept.includes(f) ? (removed.splice(at, 1), true) : false;
    const read = readFace !== null && readFace !== undefined && !isRemoved && !readMarked && f === readFace;
    if (read) readMarked = true;
    const type = d.types ? types[i] ?? firstType : null;
    const size = type ? sizes[type] ?? 6 : DIE_SIZE[system] ?? 6;
    const extremes = d.extremes ? [f === size ? "max" : "", f === 1 ? "min" : ""] : [];
    const colour = d.colours ? d.colours[i] ?? d.colours[0] : null;
    const cls = [isRemoved ? "removed" : "", read ? "read" : "", ...extremes].filter(Boolean);
    if (type) cls.unshift(`${system}-${type}`);
    if (colour) cls.unshift(`${String(d.colour_class ?? "{colour}").replace("{colour}", colour)}${(r[d.bought] ?? []).includes(colour) ? " bought" : ""}`);
    /** @type {Record<string, any>} */
    const die = { face: d.symbols ? symbols[i] ?? f : f, size, cls: cls.join(" ") };
    if (type) die.title = `@${K}.DieType.${type}: ${d.symbols ? symbolWords(String(symbols[i] ?? f)) : f}`;
    if (d.symbols) die.symbols = String(symbols[i] ?? "");
    return die;
  });
}

/**
 * A face's symbols as `@VERDICT.Symbol.<letter>` tokens (the words `localizeCard` resolves): "SB" is a
 * success and a boon, "-" a blank face.
 * @param {string} face
 */
function symbolWords(face) {
  const letters = [...face];
  return letters.map((x) => `@${K}.Symbol.${x === "-" ? "blank" : x}`).join(", ");
}

/**
 * The legend of the symbols a result's dice show: each letter on the dice once, with its word, as a fact
 * (the dice carry letters; the legend says what each one is).
 * @param {Array<Record<string, any>>} dice
 * @returns {Fact|null}
 */
function symbolLegend(dice) {
  /** @type {string[]} */
  const seen = [];
  for (const die of dice) {
    for (const x of [...String(die.symbols ?? "")]) if (!seen.includes(x)) seen.push(x);
  }
  if (!seen.length) return null;
  const value = seen.map((x) => `${x === "-" ? "–" : x} @${K}.Symbol.${x === "-" ? "blank" : x}`).join(" · ");
  return { key: `${K}.Fact.symbols`, value };
}

/**
 * Does a result change what the tokens mark (as its rule set's drawing names the result's fields that do)?
 * Only then has the GM's "apply" anything to bring in line.
 * @param {Record<string, any>} r
 */
export function touchesTokens(r) {
  return marksOf(r).length > 0;
}

/**
 * Which of the tokens' markers a result changes, by the result's field that changes it (its rule set's
 * drawing's `marks`).
 * @param {Record<string, any>} r
 * @returns {string[]}
 */
export function marksOf(r) {
  const some = (/** @type {any} */ v) => (Array.isArray(v) ? v.length > 0 : v && typeof v === "object" ? Object.values(v).some(some) : Boolean(v));
  return (drawingOf(String(r.system ?? "")).marks ?? []).filter((field) => some(r[field]));
}

/**
 * A follow-up the sidecar says is open to this viewer (`rolled.open`): the action's tag (or `extended_next`),
 * whether it is the GM's (the Judge's), and the fields that offer its parameters' values (which field serves
 * which follow-up is the vocabulary's `followups`, a union tagged by the action).
 * @typedef {{action: string, gm?: boolean} & Record<string, any>} OpenFollowup
 */

/**
 * The follow-ups open to this viewer, as the sidecar listed them for this viewer's own copy of the check. A
 * card whose entry has no list (the shared document, an older sidecar's message) offers none: the module
 * decides no rule.
 * @param {CardEntry} entry
 * @returns {OpenFollowup[]}
 */
export function openFollowups(entry) {
  return Array.isArray(entry.open) ? entry.open.filter((o) => o && typeof o.action === "string") : [];
}

/**
 * How the card offers an open follow-up, from what the vocabulary says of its parameters:
 * - `roll`: the next roll of an extended check (opens the roll dialog);
 * - `table`: a parameter the card fills from the table (an open complication of the roll's scene);
 * - `some`: some of the parameter's values, at most as many as the open follow-up says (a form);
 * - `buttons`: one of the values the open follow-up offers, as its only parameter (a button each);
 * - `pick`: one of them beside other parameters (a form with a list);
 * - `send`: nothing left to choose (one button; the sidecar draws whatever is left unset).
 * @param {OpenFollowup} o
 * @returns {{how: string, param?: Record<string, any>, spec: Record<string, any>}|null}
 */
export function offerOf(o) {
  const spec = followupOf(o.action);
  if (!spec) return null; // a follow-up this module does not know
  if (spec.roll) return { how: "roll", spec };
  const params = spec.params ?? [];
  const table = params.find((p) => p.from);
  if (table) return { how: "table", param: table, spec };
  const some = params.find((p) => p.many && p.most);
  if (some) return { how: "some", param: some, spec };
  const one = params.find((p) => p.required && p.offered);
  if (one) return { how: params.length === 1 ? "buttons" : "pick", param: one, spec };
  return { how: "send", spec };
}

/**
 * @param {string|undefined} template  an i18n key with `{value}` for the value
 * @param {string} value
 */
const valueKey = (template, value) => (template ?? `${K}.{value}`).replace("{value}", value);

/**
 * The buttons of the open follow-ups that are sent as they are (one click, one wire action). Each carries
 * the wire action it sends; the next roll of an extended check opens the roll dialog instead.
 * @param {OpenFollowup[]} open
 * @param {CardEntry} entry
 * @returns {FollowButton[]}
 */
export function followups(open, entry) {
  /** @type {FollowButton[]} */
  const out = [];
  for (const o of open) {
    const gmOnly = Boolean(o.gm);
    const offer = offerOf(o);
    if (!offer) continue;
    const { how, param, spec } = offer;
    if (how === "roll") {
      const field = /** @type {string} */ (spec.roll);
      out.push({ labelKey: `${K}.Follow.${o.action}`, action: { action: o.action, [field]: /** @type {any} */ (o)[field] ?? /** @type {any} */ (entry)[field] ?? null }, gmOnly });
    } else if (how === "buttons" && param) {
      for (const value of /** @type {any} */ (o)[param.offered] ?? []) {
        out.push({ labelKey: valueKey(param.label, value), action: { action: o.action, [param.name]: value }, tone: "good", gmOnly });
      }
    } else if (how === "send") {
      // Every parameter left unset: the sidecar draws them (trials named at random, one d6 each).
      out.push({ labelKey: `${K}.Follow.${o.action}`, action: { action: o.action, ...Object.fromEntries(spec.params.map((/** @type {any} */ p) => [p.name, null])) }, gmOnly });
    }
    // `some`, `pick` and `table` are drawn as forms (see forms)
  }
  return out;
}

/**
 * The follow-ups that need a selection before they are sent, drawn as small forms from what the open
 * follow-up gives: `choose`, some of the values (at most `max`); `bargain`, one of the values offered. Each
 * names its action and the field it sends; its values are `options` (and, for the card template, under the
 * name of the open follow-up's field that gives them).
 * @param {OpenFollowup[]} open
 */
export function forms(open) {
  /** @type {Record<string, any>|null} */
  let choose = null;
  /** @type {Record<string, any>|null} */
  let bargain = null;
  for (const o of open) {
    const offer = offerOf(o);
    if (!offer?.param) continue;
    const { how, param } = offer;
    if (how === "some" && !choose) {
      const options = (param.values ?? []).map((/** @type {string} */ v) => ({ value: v, labelKey: valueKey(param.label, v) }));
      choose = { action: o.action, field: param.name, max: /** @type {any} */ (o)[param.most] ?? 0, options, [param.most]: options };
    } else if (how === "pick" && !bargain) {
      const options = (/** @type {any} */ (o)[param.offered] ?? []).map((/** @type {string} */ v) => ({ value: v, labelKey: valueKey(param.label, v) }));
      bargain = { action: o.action, field: param.name, options, [param.offered]: options };
    }
  }
  return { choose, bargain };
}

/**
 * Is a follow-up that the card fills from the table (the GM's removal of a complication after an epic
 * success) open to this viewer?
 * @param {CardEntry} entry
 */
export function removesComplication(entry) {
  return openFollowups(entry).some((o) => offerOf(o)?.how === "table");
}

/**
 * The entries the GM may remove with a follow-up that takes one from the table (after an epic success):
 * the open ones of the roll's scene in the list the follow-up names, as the GM's own snapshot holds them (never from the shared chat document, which players receive too).
 * @param {CardEntry} entry
 * @param {Record<string, any>|null|undefined} snapshot  the GM connection's table snapshot
 * @returns {Array<{value: string, text: string, hidden: boolean}>}
 */
export function complicationChoices(entry, snapshot) {
  if (!entry.scene) return [];
  // The scene's list the follow-up's parameter takes its value from (the vocabulary's `from`).
  const list = openFollowups(entry).map(offerOf).find((offer) => offer?.how === "table")?.param?.from;
  if (!list) return [];
  const scene = /** @type {Record<string, any>|undefined} */ (snapshot?.scenes?.[entry.scene]);
  const entries = Array.isArray(scene?.[list]) ? scene[list] : [];
  return entries.map((/** @type {Record<string, any>} */ c) => ({ value: String(c.id), text: String(c.text), hidden: Boolean(c.hidden) }));
}

/**
 * Build the card model.
 * @param {CardEntry} entry
 * @param {{isGM?: boolean, canFollow?: boolean, verified?: boolean|null, actorName?: string|null, entryText?: (id: string, list: string) => string|null}} [opts]
 */
export function buildCard(entry, opts = {}) {
  const r = entry.result ?? {};
  const system = r.system ?? "unknown";
  const mode = entry.mode ?? "public";
  const open = opts.canFollow === false ? [] : openFollowups(entry);
  const buttons = followups(open, entry);
  const dice = diceOf(r);
  return {
    checkId: entry.checkId,
    seq: entry.seq,
    system,
    systemKey: `${K}.System.${system}`,
    outcome: r.outcome,
    outcomeKey: `${K}.Outcome.${system}.${r.outcome}`,
    tone: toneOf(system, r.outcome),
    label: entry.label ?? null,
    actorName: opts.actorName ?? null,
    mode,
    modeKey: `${K}.Mode.${mode}`,
    secret: mode !== "public",
    dice,
    facts: [...factsOf(r, opts.entryText), ...[symbolLegend(dice)].filter((f) => f !== null)],
    suggestion: r.suggestion ?? null,
    followups: buttons.filter((b) => !b.gmOnly).map((b) => ({ ...b, actionJson: JSON.stringify(b.action) })),
    gmFollowups: buttons.filter((b) => b.gmOnly).map((b) => ({ ...b, actionJson: JSON.stringify(b.action) })),
    ...forms(open),
    // A follow-up filled from the table (the GM's removal of a complication): the card draws an empty list
    // that the GM's browser fills from its own snapshot (see complicationChoices).
    removeComplication: open.some((o) => offerOf(o)?.how === "table"),
    extendedNext: open.some((o) => offerOf(o)?.how === "roll"),
    // "Apply" brings the tokens of the card's actor and target in line with the table: only a card that
    // names one and whose result changes what the tokens mark has it (the GM's alone; the card marks it).
    apply: Boolean(entry.actor || entry.target) && touchesTokens(r),
    applyMarks: marksOf(r),
    suggestionKey: r.suggestion ? `${K}.Card.suggested.${r.facet ? "facet" : r.cost ? "cost" : "other"}` : null,
    unverified: opts.verified === false,
    redacted: Boolean(entry.redacted),
    actions: (entry.actions ?? []).map((a) => a.action),
  };
}

/**
 * Resolve a model's i18n keys with `localize` (Foundry's `game.i18n.localize`), including `@KEY` tokens
 * inside fact values, so the template only prints strings.
 * @param {ReturnType<typeof buildCard>} model
 * @param {(key: string) => string} localize
 */
export function localizeCard(model, localize) {
  const tokens = (/** @type {string} */ s) => s.replace(/@(VERDICT\.[\w.]+)/g, (_m, key) => localize(key));
  // A rule set the language does not know yet (one installed beside the shipped ones) is named by its tag,
  // its outcomes by their names and its facts by their titles.
  const say = (/** @type {string} */ key, /** @type {string|undefined} */ fallback) => {
    const text = localize(key);
    return text === key && fallback ? fallback : text;
  };
  return {
    ...model,
    systemLabel: say(model.systemKey, model.system),
    outcomeLabel: say(model.outcomeKey, String(model.outcome ?? "").replaceAll("_", " ")),
    modeLabel: localize(model.modeKey),
    // What "apply" marks on the tokens, for the button's words.
    applyLabel: `${localize(`${K}.Card.applyTo`)}: ${model.applyMarks.map((m) => localize(`${K}.Card.marks.${m}`)).join(", ")}`,
    dice: model.dice.map((d) => (d.title ? { ...d, title: tokens(String(d.title)) } : d)),
    facts: model.facts.map((/** @type {Fact} */ f) => ({
      ...f,
      label: say(f.key, f.title),
      text: f.valueKey ? sayValue(f, localize) : f.plain ? String(f.value ?? "") : tokens(String(f.value ?? "")),
    })),
    // The text's example for the domain, labelled as what it suggests (the GM has the final say).
    suggestion: model.suggestion && model.suggestionKey ? `${say(model.suggestionKey, "")}${say(model.suggestionKey, "") ? ": " : ""}${model.suggestion}` : model.suggestion,
    followups: model.followups.map((b) => ({ ...b, label: localizeButton(b, localize) })),
    gmFollowups: model.gmFollowups.map((b) => ({ ...b, label: localizeButton(b, localize) })),
    choose: model.choose && localizeForm(model.choose, localize),
    bargain: model.bargain && localizeForm(model.bargain, localize),
  };
}

/**
 * A fact's value by its key: a fact that is only "yes" says what it means where the language says so
 * (`VERDICT.FactYes.<fact>`: "a new Condition, the GM names it" rather than "yes").
 * @param {Fact} f
 * @param {(key: string) => string} localize
 */
function sayValue(f, localize) {
  if (f.valueKey === `${K}.Yes`) {
    const key = `${K}.FactYes.${f.key.split(".").pop()}`;
    const text = localize(key);
    if (text && text !== key) return text;
  }
  return localize(/** @type {string} */ (f.valueKey));
}

/**
 * A form's options with their labels (under `options` and the name the template reads them by).
 * @param {Record<string, any>} form
 * @param {(key: string) => string} localize
 */
function localizeForm(form, localize) {
  const options = form.options.map((/** @type {any} */ x) => ({ ...x, label: localize(x.labelKey) }));
  /** @type {Record<string, any>} */
  const out = { ...form };
  for (const [k, v] of Object.entries(form)) if (v === form.options) out[k] = options;
  return out;
}

/**
 * @param {FollowButton} b
 * @param {(key: string) => string} localize
 */
function localizeButton(b, localize) {
  return localize(b.labelKey);
}
