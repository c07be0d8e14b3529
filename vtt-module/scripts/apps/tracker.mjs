/**
 * The GM tracker, drawn from the table snapshot the sidecar sends: each rule set's lists of the scene's and
 * the characters' entries, with the GM's controls (as its drawing in the vocabulary declares them: the op each
 * control sends, its arguments bound from the row), extended checks in progress, and the characters' numbers,
 * flags and conditions. Players see what their role's snapshot holds (entries hidden from them left out,
 * secret texts as the drawing says them) and no control.
 */

import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { t } from "../render.mjs";
import { RollDialog } from "./roll-dialog.mjs";
import { actorById } from "../documents.mjs";
import { EXTENDED, FIELDS, SYSTEMS, UNNAMED_CONDITION, extendedOf, labelOf } from "../lib/systems.mjs";
import { ACTIONS, ACTOR_VALUES, CONTROLS, ITEM_LISTS, badgeView, controlShown, controlView, entryText, inputValue, inputView, isSet, opOf, say } from "../lib/drawing.mjs";
import { setting } from "../settings.mjs";
import { captureDrafts, clearDraft, restoreDrafts } from "../lib/drafts.mjs";

const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;


export class Tracker extends HandlebarsApplicationMixin(ApplicationV2) {
  static DEFAULT_OPTIONS = {
    id: "verdict-tracker",
    classes: ["verdict", "verdict-tracker"],
    window: { title: "VERDICT.Tracker.title", icon: "fa-solid fa-scale-balanced", resizable: true },
    position: { width: 460, height: /** @type {"auto"} */ ("auto") },
    actions: {
      editSave: Tracker.#onEditSave,
      editCancel: Tracker.#onEditCancel,
      extendedStart: Tracker.#onExtendedStart,
      extendedRoll: Tracker.#onExtendedRoll,
      undo: Tracker.#onUndo,
      conditionRemove: Tracker.#onConditionRemove,
    },
  };

  static PARTS = {
    // The part's root element is what scrolls: `""` names it (a selector would look inside it and find
    // nothing, so the scroll position would reset on every snapshot).
    body: { template: `${TEMPLATES}/tracker.hbs`, scrollable: [""] },
  };

  /** @type {Tracker|null} */
  static #instance = null;

  /** Open (or bring forward) the tracker. */
  static open() {
    Tracker.#instance ??= new Tracker();
    Tracker.#instance.render({ force: true });
    // Drawn at once from the snapshot in hand, then again from a fresh one.
    game.modules?.get(MODULE_ID)?.api?.client?.refreshSnapshot?.();
    return Tracker.#instance;
  }

  constructor() {
    // Each drawn control's action (its name on the page) runs the one handler that reads the control from the
    // vocabulary; the tracker's own actions keep their names.
    const own = Tracker.DEFAULT_OPTIONS.actions;
    super({ actions: Object.fromEntries(ACTIONS.filter((a) => !(a in own)).map((a) => [a, Tracker.#onControl])) });
    /** @type {Map<string, {entry: Record<string, any>, actor: string|null, idField: string}>} the entries drawn, by their key on the page */
    this._entries = new Map();
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    this._off = client?.on("snapshot", () => {
      if (this.rendered) this.render();
    });
    /** @type {string|null} what the table's last action was, as this browser heard it (what an undo takes back) */
    this.lastAction = null;
    this._offMessage = client?.on("message", (/** @type {Record<string, any>} */ msg) => {
      const said = actionSaid(msg);
      if (said !== undefined) this.lastAction = said;
    });
  }

  /** @returns {string|null} */
  get sceneId() {
    return canvas?.scene?.id ?? game.scenes?.viewed?.id ?? null;
  }

  /** @param {any} options */
  async _prepareContext(options) {
    const context = await super._prepareContext(options);
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    const snap = client?.snapshot ?? null;
    this._drawn = snap;
    const isGM = Boolean(game.user?.isGM);
    const world = setting("system") || SYSTEMS[0];
    const sceneId = this.sceneId;
    // With no scene viewed, the table's sceneless entries (an epic failure rolled with no scene is kept under
    // the scene id "") are the ones shown.
    const scene = /** @type {Record<string, any>} */ (snap?.scenes?.[sceneId ?? ""] ?? {});
    const extended = Object.values(snap?.extended ?? {}).filter((/** @type {any} */ x) => !x.scene || x.scene === sceneId).map((/** @type {any} */ x) => ({
      ...x,
      pct: Math.min(100, Math.round((100 * (x.progress ?? 0)) / Math.max(1, x.threshold))),
      statusLabel: t(`VERDICT.Extended.${x.status}`),
      open: x.status === "in_progress",
    }));
    /** @type {Array<[string, Record<string, any>]>} */
    const held = Object.entries(snap?.actors ?? {});
    // Where the world's rule set gives the GM a control on every character (a grant), the world's characters
    // the table holds nothing of yet are listed too.
    const grants = isGM && ACTOR_VALUES.some(({ system, part }) => system === world && (part.controls ?? []).some((c) => !c.when));
    if (grants) {
      for (const doc of game.actors?.contents ?? []) {
        const actor = actorById(doc.id);
        if (actor?.id && !held.some(([id]) => id === actor.id)) held.push([actor.id, {}]);
      }
    }
    const actors = held.map(([id, a]) => this.#actorRow(id, a, world, isGM));
    this._entries = new Map();
    const drawn = ITEM_LISTS.filter(({ system, part }) => part.every_world || system === world).map(({ system, part }) => this.#section(system, part, scene, actors, world, isGM));
    // Whom a new entry is written on: the scene, a character the table knows, or one in the world.
    const owners = new Map(actors.map((a) => [a.id, a.name]));
    for (const doc of game.actors?.contents ?? []) {
      const actor = actorById(doc.id);
      if (actor?.id && !owners.has(actor.id)) owners.set(actor.id, actor.name ?? actor.id);
    }
    return Object.assign(context, {
      sections: { extended: EXTENDED.includes(world) },
      lastAction: this.lastAction,
      isGM,
      connected: client?.status.state === "open",
      status: client?.status,
      sceneName: sceneId ? game.scenes?.get(sceneId)?.name ?? sceneId : t("VERDICT.Tracker.noScene"),
      drawn,
      extended,
      actors,
      extendedFields: extendedFields(),
      owners: [...owners].map(([id, name]) => ({ value: id, label: name })),
    });
  }

  /**
   * One character's row: the badges of the numbers and flags it holds, its conditions and the GM's controls.
   * @param {string} id
   * @param {Record<string, any>} state
   * @param {string} world
   * @param {boolean} isGM
   */
  #actorRow(id, state, world, isGM) {
    const name = actorById(id)?.name ?? id;
    const badges = ACTOR_VALUES.filter(({ part }) => part.badge && isSet(state[part.field])).map(({ part }) => ({
      tone: part.tone ?? "",
      field: part.field,
      value: state[part.field],
      data: part.type === "number" && Boolean(part.data),
      text: part.type === "number" ? `${say(part.badge, t)} ${state[part.field]}` : say(part.badge, t),
    }));
    const controls = !isGM ? [] : ACTOR_VALUES.flatMap(({ system, part }) => (part.controls ?? []).flatMap((control, i) =>
      (system === world || isSet(state[part.field])) && controlShown(control, state) ? [controlView(`${system}.${part.field}.${i}`, control, t, state, name)] : []));
    return {
      id, name, badges, controls,
      conditionCount: state.conditions?.length ?? 0,
      // A roll's condition carries the table's default text until the GM names it.
      conditions: (state.conditions ?? []).map((/** @type {any} */ c) => ({ ...c, unnamed: c.text === UNNAMED_CONDITION })),
      state,
    };
  }

  /**
   * One list's section: its entries on the scene shown and on the characters, each with its badges and the
   * GM's controls, and the GM's form to add one.
   * @param {string} system
   * @param {import("../lib/drawing.mjs").ItemsPart} part
   * @param {Record<string, any>} scene
   * @param {Array<{id: string, name: string, state: Record<string, any>}>} actors
   * @param {string} world
   * @param {boolean} isGM
   */
  #section(system, part, scene, actors, world, isGM) {
    const idField = part.id ?? "id";
    // A control that addresses an entry with a check is offered where the world's checks choose among them.
    const chooses = (FIELDS[world] ?? []).some((f) => f.choices === part.field);
    /** @type {Array<[{id: string, name: string}|null, any[]]>} */
    const lists = [];
    for (const on of part.on ?? ["scene"]) {
      if (on === "scene") lists.push([null, scene[part.field] ?? []]);
      else for (const a of actors) lists.push([a, a.state[part.field] ?? []]);
    }
    const rows = [];
    for (const [owner, list] of lists) {
      for (const entry of Array.isArray(list) ? list : []) {
        // The sidecar already leaves hidden entries out of a player's snapshot; this only keeps a stale GM-era
        // snapshot from showing them after a role change.
        const hidden = Boolean(part.hidden && entry[part.hidden]);
        if (hidden && !isGM) continue;
        const key = `${system}.${part.field}.${this._entries.size}`;
        this._entries.set(key, { entry, actor: owner?.id ?? null, idField });
        const { text } = entryText(part, entry, t);
        const badges = (part.badges ?? []).map((b) => ({ b, view: badgeView(b, entry, t) })).filter((x) => x.view);
        const id = entry[idField];
        const controls = isGM && id ? (part.controls ?? []).flatMap((control, i) =>
          controlShown(control, entry) && (!control.choices || chooses) ? [controlView(`${system}.${part.field}.${i}`, control, t, entry, text)] : []) : [];
        const editing = controls.find((c) => c.edit);
        const editControl = (part.controls ?? []).find((c) => c.edit);
        rows.push({
          id, entry: key, hidden, text,
          hiddenBadge: say(part.hidden_badge, t),
          lead: badges.filter((x) => x.b.lead).map((x) => x.view),
          badges: badges.filter((x) => !x.b.lead).map((x) => x.view),
          data: (part.badges ?? []).filter((b) => b.data && entry[b.field] !== undefined && entry[b.field] !== null).map((b) => ({ name: b.field, value: entry[b.field] })),
          owner: part.owner ? owner?.name ?? say(part.owner, t) : null,
          actorName: part.actor && entry[part.actor] ? actorById(entry[part.actor])?.name ?? entry[part.actor] : null,
          editor: editing && editControl ? { key: editing.key, value: entry[editControl.edit ?? ""] ?? "", aria: `${editControl.edit_label ? say(editControl.edit_label, t) : t("VERDICT.Tracker.editText")}: ${text}` } : null,
          controls,
        });
      }
    }
    const form = isGM && part.add ? {
      css: part.add.css,
      label: say(part.add.label, t),
      inputs: (part.add.inputs ?? []).map((i) => inputView(i, t)),
      control: controlView(`${system}.${part.field}.add`, part.add.control, t, {}, ""),
    } : null;
    return {
      section: part.section, name: part.name, heading: say(part.heading, t), rows, form,
      labelled: (part.controls ?? []).some((c) => c.labelled),
    };
  }

  /**
   * The table changes under a GM who is typing: what they typed, ticked or opened outlives the re-render.
   * @param {any} context
   * @param {any} options
   */
  async _preRender(context, options) {
    await super._preRender(context, options);
    this._drafts = this.rendered ? captureDrafts(this.element) : null;
  }

  /**
   * A GM browser without the GM key: the GM controls are off, with the reason (instead of failing).
   * @param {any} context
   * @param {any} options
   */
  async _onRender(context, options) {
    await super._onRender(context, options);
    if (!this.element) return; // closed while this render was under way
    restoreDrafts(this.element, this._drafts ?? null);
    this._drafts = null;
    // A snapshot that arrived while this render was under way (the first one above all: the listener only
    // re-renders a tracker already rendered) is drawn now rather than at the next change of the table.
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    if (client && client.snapshot !== this._drawn) setTimeout(() => this.rendered && this.render(), 0);
    // Enter in an edit field sends it, as its Save button does.
    this.element.querySelectorAll("input[name=edit]").forEach((el) => {
      el.addEventListener("keydown", (ev) => {
        if (/** @type {KeyboardEvent} */ (ev).key !== "Enter") return;
        ev.preventDefault();
        /** @type {HTMLElement|null} */ (el.closest("[data-id]")?.querySelector("[data-action=editSave]") ?? null)?.click();
      });
    });
    const blocked = game.user?.isGM ? game.modules?.get(MODULE_ID)?.api?.client?.gmBlocked() ?? null : null;
    const root = this.element;
    root.querySelector(".verdict-gm-blocked")?.remove();
    if (!blocked) return;
    root.querySelectorAll(".verdict-tracker-body [data-action]").forEach((el) => {
      if (/** @type {HTMLElement} */ (el).dataset.action === "extendedRoll") return;
      /** @type {HTMLButtonElement} */ (el).disabled = true;
      el.setAttribute("title", blocked);
    });
    const note = root.ownerDocument.createElement("p");
    note.className = "verdict-gm-blocked";
    note.setAttribute("role", "note");
    note.textContent = `${t("VERDICT.Tracker.gmDisabled")}: ${blocked}`;
    root.querySelector(".verdict-tracker-body")?.prepend(note);
  }

  /** @param {any} options */
  _onClose(options) {
    super._onClose(options);
    this._off?.();
    this._offMessage?.();
    Tracker.#instance = null;
  }

  /**
   * @param {{op: string} & Record<string, any>} op
   */
  async #gm(op, sent = /** @type {string[]} */ ([])) {
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    try {
      const done = await client?.gm(op);
      const said = done ? actionSaid({ type: "done", ...done }) : undefined;
      if (said !== undefined) {
        this.lastAction = said;
        if (this.rendered) this.render();
      }
    } catch (err) {
      ui.notifications?.error(`${t("VERDICT.Error.gm")}: ${/** @type {Error} */ (err).message}`);
      return;
    }
    // What was sent is no longer a draft (looked up again: a render may have replaced the element meanwhile);
    // on an error it stays, for the GM to fix and send again.
    for (const selector of sent) this.element?.querySelectorAll(selector).forEach(clearDraft);
  }

  /**
   * @param {HTMLElement} target
   * @returns {string}
   */
  static #id(target) {
    return target.closest("[data-id]")?.getAttribute("data-id") ?? "";
  }

  /**
   * A drawn control: an edit opens its field; any other sends its op, each argument bound from the row (the
   * character, the scene shown, the entry, what the GM entered beside it or in its form).
   * @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target
   */
  static async #onControl(_ev, target) {
    const found = CONTROLS.get(target.dataset.control ?? "");
    if (!found) return;
    const { control, form } = found;
    const row = /** @type {HTMLElement|null} */ (target.closest("[data-entry]") ?? target.closest("[data-actor]"));
    if (control.edit) {
      const input = /** @type {HTMLInputElement|null} */ (row?.querySelector("[name=edit]") ?? null);
      if (!input) return;
      input.hidden = false;
      input.dataset.opened = "1";
      input.focus();
      input.select();
      return;
    }
    const scope = /** @type {HTMLElement|null} */ (form ? target.closest(".verdict-form") : target.closest(".verdict-control-inputs") ?? row);
    const inputs = form ? form.inputs ?? [] : control.inputs ?? [];
    /** @type {Record<string, any>} */
    const entered = {};
    for (const input of inputs) {
      const els = /** @type {HTMLInputElement[]} */ ([...(scope?.querySelectorAll(`[name="${CSS.escape(input.name)}"]`) ?? [])]);
      const value = inputValue(input, {
        value: els[0]?.value,
        checked: els[0]?.checked,
        values: els.filter((el) => el.checked).map((el) => el.value),
      });
      if (value === undefined) return;
      entered[input.name] = value;
    }
    const op = opOf(control, this.#rowOf(row), entered);
    if (!op) return;
    const where = form ? `.verdict-${CSS.escape(form.css)}` : row?.dataset.id ? `[data-id="${CSS.escape(row.dataset.id)}"]` : "";
    const sent = inputs.filter((i) => !i.keep).map((i) => `${where} [name="${CSS.escape(i.name)}"]`);
    await this.#gm(op, where ? sent : []);
  }

  /**
   * What a row binds: its character (an actor's row, or the character an entry is written on), the scene
   * shown, its entry.
   * @param {HTMLElement|null} row
   */
  #rowOf(row) {
    const drawn = row?.dataset.entry ? this._entries.get(row.dataset.entry) : undefined;
    return { actor: drawn ? drawn.actor : row?.dataset.actor ?? null, scene: this.sceneId, item: drawn?.entry ?? null, idField: drawn?.idField };
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onEditSave(_ev, target) {
    const found = CONTROLS.get(target.dataset.control ?? "");
    const row = /** @type {HTMLElement|null} */ (target.closest("[data-entry]"));
    const input = /** @type {HTMLInputElement|null} */ (row?.querySelector("[name=edit]") ?? null);
    const text = input?.value.trim();
    if (!found || !text) return;
    const op = opOf(found.control, this.#rowOf(row), { edit: text });
    const id = row?.dataset.id ?? "";
    if (op) await this.#gm(op, [`[data-id="${CSS.escape(id)}"] [name=edit]`]);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onEditCancel(_ev, target) {
    const input = /** @type {HTMLInputElement|null} */ (target.closest("[data-id]")?.querySelector("[name=edit]") ?? null);
    if (input) clearDraft(input);
  }

  /** @this {Tracker} */
  static async #onExtendedStart() {
    const box = this.element.querySelector(".verdict-extended-form");
    const val = (/** @type {string} */ n) => /** @type {HTMLInputElement|null} */ (box?.querySelector(`[name=${n}]`))?.value.trim() ?? "";
    const name = val("name");
    const threshold = Number.parseInt(val("threshold"), 10);
    if (!name || !(threshold > 0)) return;
    const limit = Number.parseInt(val("limit"), 10);
    await this.#gm({
      op: "extended_start", name, threshold, time_unit: val("time_unit") || "round",
      limit: limit > 0 ? limit : null, trial: Number.parseInt(val("trial"), 10) || 0, crisis: 0,
      actor: null, scene: this.sceneId,
    }, [".verdict-extended-form [name]"]);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onExtendedRoll(_ev, target) {
    const id = Tracker.#id(target);
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    const x = client?.snapshot?.extended?.[id];
    if (!x) return;
    const system = EXTENDED[0];
    const joins = extendedOf(system);
    if (!joins) return;
    new RollDialog({
      system,
      actor: x.actor ?? game.user?.character?.id ?? null,
      values: { ...joins.values, ...Object.fromEntries(Object.entries(joins.fill).map(([field, from]) => [field, x[from] ?? 0])) },
      locked: ["system", ...Object.keys(joins.fill)],
      label: x.name,
      extended: id,
    }).render({ force: true });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onConditionRemove(_ev, target) {
    const actor = target.closest("[data-actor]")?.getAttribute("data-actor") ?? "";
    await this.#gm({ op: "condition_remove", actor, condition: Tracker.#id(target) });
  }

  /** @this {Tracker} */
  static async #onUndo() {
    await this.#gm({ op: "undo", count: 1 });
  }
}

/** The fields the drawn lists take an entry's text from (an event that adds or renames one carries it). */
const TEXT_FIELDS = [...new Set(ITEM_LISTS.map(({ part }) => part.text ?? "text"))];

/**
 * Is this event a consequence of another action (its `cause` is that action's seq, not its own)?
 * @param {Record<string, any>} event
 * @param {number|undefined} seq
 */
function consequence(event, seq) {
  return Boolean(event.cause) && event.cause !== seq;
}

/**
 * What one message the GM's connection hears says of the table's last action, in words: a roll (its label),
 * a follow-up, a GM change (its event); undefined for a message that is no action.
 * @param {Record<string, any>} msg
 * @returns {string|null|undefined}
 */
function actionSaid(msg) {
  if (msg.type === "rolled") return `${t("VERDICT.Tracker.lastRoll")}${msg.label ? ` “${msg.label}”` : ""}`;
  if (msg.type === "followed") return t("VERDICT.Tracker.lastFollow");
  if (msg.type === "done") {
    const first = (msg.events ?? []).find((/** @type {any} */ e) => e?.event?.kind && !consequence(e.event, e.seq));
    return first ? actionSaid({ type: "event", seq: first.seq, event: first.event }) : undefined;
  }
  if (msg.type === "event" && msg.event?.kind) {
    if (msg.event.kind === "undone") return null; // what comes before is not known here
    if (consequence(msg.event, msg.seq)) return undefined; // undone with the action that caused it
    if (msg.event.kind === "roll") return `${t("VERDICT.Tracker.lastRoll")}${msg.event.label ? ` “${msg.event.label}”` : ""}`;
    if (msg.event.kind === "follow") return t("VERDICT.Tracker.lastFollow");
    const key = `VERDICT.Tracker.event.${msg.event.kind}`;
    const what = game.i18n?.has(key) ? t(key) : msg.event.kind.replaceAll("_", " ");
    // Its words: the event's text, else the field a drawn list takes an entry's text from, else its name.
    const text = [msg.event.text, ...TEXT_FIELDS.map((f) => msg.event[f]), msg.event.name].find((x) => typeof x === "string" && x);
    return typeof text === "string" && text ? `${what}: “${text}”` : what;
  }
  return undefined;
}

/**
 * The fields the GM starts an extended check with, as the extended rule set's dialog presents them (its
 * presets, bounds and labels): what `extended_start` takes besides a name.
 * @returns {Array<{name: string, label: string, value: any, min: number|string, number: boolean}>}
 */
function extendedFields() {
  const system = EXTENDED[0];
  const start = extendedOf(system)?.start ?? [];
  return start.map((name) => {
    const f = (FIELDS[system] ?? []).find((x) => x.name === name) ?? { name, type: "text" };
    const number = f.type === "int" || f.type === "optint";
    return { name, label: labelOf(system, f, t), value: f.default ?? "", min: f.min ?? "", number };
  });
}
