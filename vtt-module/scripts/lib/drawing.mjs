/**
 * How the tracker, the tokens and the sheet section draw each rule set's part of the table's state: read from
 * the generated vocabulary's drawings (`sidecar/engine/drawing.py`), so no rule set and no field of one is
 * named here. Pure of Foundry (the localizer is passed in): node --test reads it.
 * @module
 */

import { VOCABULARY } from "../generated/vocabulary.mjs";

/**
 * @typedef {{key: string, text: string}} Label
 * @typedef {{value: string, label: Label}} Option
 * @typedef {{name: string, source: string, field?: string, value?: any, nullable?: boolean}} Arg
 * @typedef {{name: string, kind: "text"|"number"|"flag"|"choice"|"choices"|"owner", label: Label, placeholder?: Label,
 *   default?: any, prefill?: string, min?: number, max?: number, options?: Option[], keep?: boolean}} Input
 * @typedef {{action: string, op: string, label: Label, icon: string, args?: Arg[], inputs?: Input[], edit?: string, edit_label?: Label,
 *   when?: string, unless?: string, again?: Label, again_when?: string, choices?: boolean, labelled?: boolean}} Control
 * @typedef {{kind: "status"|"badge", label: Label, id?: string, icon?: string, defeated?: boolean, colour?: string}} Marker
 * @typedef {{field: string, label?: Label, values?: Option[], tones?: Record<string, string>, css?: string, data?: boolean, lead?: boolean}} Badge
 * @typedef {{css: string, label: Label, control: Control, inputs?: Input[]}} Form
 * @typedef {{type: "number", field: string, label: Label, badge?: Label, tone?: string, data?: boolean, min?: number, max?: number,
 *   marker?: Marker, controls?: Control[]}} NumberPart
 * @typedef {{type: "flag", field: string, label: Label, badge?: Label, tone?: string, marker?: Marker, controls?: Control[]}} FlagPart
 * @typedef {{type: "items", field: string, name: string, section: string, heading: Label, on?: Array<"actor"|"scene">, text?: string,
 *   id?: string, text_values?: Option[], secret?: Label, hidden?: string, hidden_badge?: Label, badges?: Badge[], owner?: Label,
 *   actor?: string, controls?: Control[], add?: Form, every_world?: boolean, sheet?: boolean}} ItemsPart
 * @typedef {NumberPart|FlagPart|ItemsPart} Part
 * @typedef {{parts?: Part[], conditions?: boolean, marks?: string[], dice?: Record<string, {background: string, colour: string}>}} Drawing
 * @typedef {{system: string, part: Part}} Drawn  a part with the rule set that draws it
 */

/** @typedef {(key: string) => string} Localize */

/**
 * The drawing of one rule set (an empty one for a rule set that draws no state, or one this module does not
 * know).
 * @param {string} system
 * @returns {Drawing}
 */
export function drawingOf(system) {
  return /** @type {any} */ (VOCABULARY.systems)[system]?.drawing ?? {};
}

/** Every drawn part, each with its rule set, in the engine's order of rule sets. @type {Drawn[]} */
export const PARTS = Object.keys(VOCABULARY.systems).flatMap((system) => (drawingOf(system).parts ?? []).map((part) => ({ system, part })));

/** The parts that are an actor's number or flag. */
export const ACTOR_VALUES = /** @type {Array<{system: string, part: NumberPart|FlagPart}>} */ (PARTS.filter((d) => d.part.type !== "items"));

/** The parts that are lists of entries. */
export const ITEM_LISTS = /** @type {Array<{system: string, part: ItemsPart}>} */ (PARTS.filter((d) => d.part.type === "items"));

/**
 * The word a label stands for: the language's, where it has the key, else the label's English text.
 * @param {Label|undefined|null} label
 * @param {Localize} localize
 */
export function say(label, localize) {
  if (!label) return "";
  const text = localize(label.key);
  return text && text !== label.key ? text : label.text;
}

/**
 * Is a value of the table's state set: true, non-zero, non-empty?
 * @param {unknown} value
 */
export function isSet(value) {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "number") return value !== 0;
  return Boolean(value);
}

/**
 * The token markers every drawing declares: status effects (each with the field that sets it) and badges.
 * @returns {{statuses: Array<{field: string, marker: Marker}>, badges: Array<{field: string, marker: Marker}>}}
 */
export function markers() {
  /** @type {Array<{field: string, marker: Marker}>} */
  const statuses = [];
  /** @type {Array<{field: string, marker: Marker}>} */
  const badges = [];
  for (const { part } of ACTOR_VALUES) {
    const marker = part.marker;
    if (!marker) continue;
    const list = marker.kind === "badge" ? badges : statuses;
    if (!list.some((m) => m.marker.id === marker.id)) list.push({ field: part.field, marker });
  }
  return { statuses, badges };
}

/**
 * Every control the drawings declare, by its key on the page (`data-control`): the rule set, the part, the
 * control, and whether it is a form's.
 * @type {Map<string, {system: string, part: Part, control: Control, form?: Form}>}
 */
export const CONTROLS = new Map();
for (const { system, part } of PARTS) {
  (part.controls ?? []).forEach((control, i) => CONTROLS.set(`${system}.${part.field}.${i}`, { system, part, control }));
  if (part.type === "items" && part.add) CONTROLS.set(`${system}.${part.field}.add`, { system, part, control: part.add.control, form: part.add });
}

/** The page's action names of every drawn control (`data-action`). */
export const ACTIONS = [...new Set([...CONTROLS.values()].map((c) => c.control.action))];

/**
 * The value the GM entered in an input, as its kind reads it; `undefined` where a required one is missing.
 * @param {Input} input
 * @param {{value?: string, checked?: boolean, values?: string[]}|undefined} entered
 * @returns {any}
 */
export function inputValue(input, entered) {
  switch (input.kind) {
    case "text": {
      const text = String(entered?.value ?? "").trim();
      return text || undefined;
    }
    case "number": {
      const n = Number.parseInt(String(entered?.value ?? ""), 10);
      const value = Number.isFinite(n) ? n : input.default;
      if (typeof value !== "number") return undefined;
      if ((input.min !== undefined && value < input.min) || (input.max !== undefined && value > input.max)) return undefined;
      return value;
    }
    case "flag":
      return entered?.checked ?? Boolean(input.default);
    case "choice":
      return entered?.value || input.default || input.options?.[0]?.value;
    case "choices": {
      const chosen = entered?.values ?? [];
      return chosen.length ? chosen : undefined;
    }
    case "owner":
      return entered?.value ?? "";
    default:
      return undefined;
  }
}

/**
 * The op a control sends from its row, each argument bound as the drawing says; null where a value it needs is
 * missing (a text left empty, no scene shown, nothing ticked).
 * @param {Control} control
 * @param {{actor?: string|null, scene?: string|null, item?: Record<string, any>|null, idField?: string}} row
 * @param {Record<string, any>} entered  the inputs' values, by name (already read by `inputValue`)
 * @returns {({op: string} & Record<string, any>)|null}
 */
export function opOf(control, row, entered) {
  /** @type {{op: string} & Record<string, any>} */
  const op = { op: control.op };
  const owner = entered.owner;
  for (const arg of control.args ?? []) {
    /** @type {any} */
    let value;
    switch (arg.source) {
      case "actor":
        value = row.actor ?? undefined;
        break;
      case "scene":
        value = row.scene ?? (arg.nullable ? null : undefined);
        break;
      case "item":
        value = row.item?.[arg.field || row.idField || "id"];
        break;
      case "input":
        value = entered[arg.field ?? ""];
        break;
      case "value":
        value = arg.value ?? null;
        break;
      case "owner_actor":
        value = owner ? owner : null;
        break;
      case "owner_scene":
        value = owner ? null : row.scene ?? undefined;
        break;
      default:
        value = undefined;
    }
    if (value === undefined) return null;
    op[arg.name] = value;
  }
  return op;
}

/**
 * Is a control shown on a row: its `when` field set, its `unless` field not.
 * @param {Control} control
 * @param {Record<string, any>} row
 */
export function controlShown(control, row) {
  if (control.when && !isSet(row[control.when])) return false;
  if (control.unless && isSet(row[control.unless])) return false;
  return true;
}

/**
 * An input as a template draws it.
 * @param {Input} input
 * @param {Localize} localize
 * @param {Record<string, any>} [row]  the entry it is drawn beside (its `prefill` field)
 */
export function inputView(input, localize, row = {}) {
  const prefilled = input.prefill ? row[input.prefill] : undefined;
  const value = prefilled ?? input.default;
  return {
    name: input.name,
    label: say(input.label, localize),
    placeholder: say(input.placeholder, localize),
    text: input.kind === "text",
    number: input.kind === "number",
    flag: input.kind === "flag",
    choice: input.kind === "choice",
    choices: input.kind === "choices",
    owner: input.kind === "owner",
    value: value ?? "",
    checked: input.kind === "flag" && Boolean(value),
    min: input.min ?? "",
    max: input.max ?? "",
    options: (input.options ?? []).map((o) => ({ value: o.value, label: say(o.label, localize), selected: o.value === value })),
  };
}

/**
 * A control as a template draws it on a row whose words are `subject` (its accessible name says which row).
 * @param {string} key
 * @param {Control} control
 * @param {Localize} localize
 * @param {Record<string, any>} row
 * @param {string} subject
 */
export function controlView(key, control, localize, row, subject) {
  const label = say(control.again && control.again_when && isSet(row[control.again_when]) ? control.again : control.label, localize);
  const inputs = (control.inputs ?? []).map((i) => inputView(i, localize, row));
  return {
    key,
    action: control.action,
    label,
    aria: subject ? `${say(control.label, localize)}: ${subject}` : label,
    icon: control.icon,
    labelled: Boolean(control.labelled),
    edit: Boolean(control.edit),
    inputs,
    grouped: inputs.length > 0,
  };
}

/**
 * A badge of an entry's field, as drawn (null where the field is not set).
 * @param {Badge} badge
 * @param {Record<string, any>} entry
 * @param {Localize} localize
 */
export function badgeView(badge, entry, localize) {
  const value = entry[badge.field];
  if (value === null || value === undefined || value === "" || value === false) return null;
  const option = (badge.values ?? []).find((o) => o.value === String(value));
  const text = option ? say(option.label, localize) : String(value);
  const tone = badge.tones?.[String(value)];
  return {
    text: badge.label ? `${say(badge.label, localize)} ${text}` : text,
    css: [badge.css, tone ? `tone-${tone}` : ""].filter(Boolean).join(" "),
  };
}

/**
 * An entry's text as the viewer reads it: its text field, the labels of its values where the text is one of
 * them (or a list of them), or what the drawing says for a text the viewer may not see.
 * @param {ItemsPart} part
 * @param {Record<string, any>} entry
 * @param {Localize} localize
 */
export function entryText(part, entry, localize) {
  const raw = entry[part.text ?? "text"];
  if (raw === null || raw === undefined) return { text: say(part.secret, localize), secret: true };
  const word = (/** @type {unknown} */ v) => {
    const option = (part.text_values ?? []).find((o) => o.value === String(v));
    return option ? say(option.label, localize) : String(v);
  };
  return { text: Array.isArray(raw) ? raw.map(word).join(", ") : word(raw), secret: false };
}

/**
 * The rows of an actor's state the sheet section shows, in drawing order: a number where the world's rule set
 * draws it or the actor holds some, a flag while set, the entries of a list while there are some.
 * @param {Record<string, any>} state  the snapshot's actor state
 * @param {string} world  the world's rule set
 * @param {Localize} localize
 * @returns {Array<{stat: string, label: string, text: string}>}
 */
export function sheetRows(state, world, localize) {
  /** @type {Array<{stat: string, label: string, text: string}>} */
  const rows = [];
  const seen = new Set();
  for (const { system, part } of PARTS) {
    if (seen.has(part.field)) continue;
    const value = state[part.field];
    if (part.type === "number") {
      if (system !== world && !isSet(value)) continue;
      rows.push({ stat: part.field, label: say(part.label, localize), text: String(value ?? 0) });
    } else if (part.type === "flag") {
      if (!isSet(value)) continue;
      rows.push({ stat: part.field, label: say(part.label, localize), text: localize("VERDICT.Yes") });
    } else {
      if (!(part.on ?? ["scene"]).includes("actor") || part.sheet === false || !isSet(value)) continue;
      rows.push({ stat: part.field, label: say(part.heading, localize), text: value.map((/** @type {any} */ e) => entryText(part, e, localize).text).join(", ") });
    }
    seen.add(part.field);
  }
  return rows;
}

/**
 * Does a world of this rule set show the table's conditions (its results add them)?
 * @param {string} world
 */
export function showsConditions(world) {
  return Boolean(drawingOf(world).conditions);
}
