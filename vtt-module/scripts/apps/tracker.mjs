/**
 * The GM tracker: the current scene's complications (add, edit, reveal, remove, convert into a check),
 * lurking trials, extended checks in progress, facets (write, rename, remove, on the scene or a character)
 * and the characters' harm and conditions (heal, remove), drawn from the table snapshot the sidecar sends.
 * Players see what their role's snapshot holds: revealed complications only, lurking trials as a count.
 */

import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { t } from "../render.mjs";
import { RollDialog } from "./roll-dialog.mjs";
import { actorById } from "../documents.mjs";
import { EXTENDED, FIELDS, GM_FIELDS, SCENE_CHOICES, SYSTEMS, TRIALS, UNNAMED_CONDITION, extendedOf, labelOf, systemOf } from "../lib/systems.mjs";
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
      add: Tracker.#onAdd,
      reveal: Tracker.#onReveal,
      edit: Tracker.#onEdit,
      editSave: Tracker.#onEditSave,
      editCancel: Tracker.#onEditCancel,
      remove: Tracker.#onRemove,
      convert: Tracker.#onConvert,
      lurking: Tracker.#onLurking,
      extendedStart: Tracker.#onExtendedStart,
      extendedRoll: Tracker.#onExtendedRoll,
      undo: Tracker.#onUndo,
      facetAdd: Tracker.#onFacetAdd,
      facetRename: Tracker.#onFacetRename,
      facetRemove: Tracker.#onFacetRemove,
      heal: Tracker.#onHeal,
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
    super({});
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
    // With no scene viewed, the table's sceneless complications (an epic failure rolled with no scene is
    // kept under the scene id "") are the ones shown.
    const scene = snap?.scenes?.[sceneId ?? ""] || { complications: [], lurking: [], facets: [] };
    // The sidecar already leaves hidden complications out of a player's snapshot; this filter only
    // keeps a stale GM-era snapshot from showing them after a role change.
    const complications = (scene.complications ?? []).filter((/** @type {any} */ c) => isGM || !c.hidden).map((/** @type {any} */ c) => ({
      ...c,
      originLabel: t(`VERDICT.Origin.${c.origin}`),
    }));
    const lurking = (scene.lurking ?? []).map((/** @type {any} */ l) => ({
      ...l,
      names: Array.isArray(l.trials) ? l.trials.map((/** @type {string} */ x) => t(`VERDICT.Trial.${x}`)).join(", ") : null,
      actorName: l.actor ? actorById(l.actor)?.name ?? l.actor : null,
    }));
    const extended = Object.values(snap?.extended ?? {}).filter((/** @type {any} */ x) => !x.scene || x.scene === sceneId).map((/** @type {any} */ x) => ({
      ...x,
      pct: Math.min(100, Math.round((100 * (x.progress ?? 0)) / Math.max(1, x.threshold))),
      statusLabel: t(`VERDICT.Extended.${x.status}`),
      open: x.status === "in_progress",
    }));
    const actors = Object.entries(snap?.actors ?? {}).map(([id, a]) => ({
      id, name: actorById(id)?.name ?? id, ...(/** @type {any} */ (a)),
      conditionCount: (/** @type {any} */ (a)).conditions?.length ?? 0,
      // A roll's condition carries the table's default text until the GM names it.
      conditions: ((/** @type {any} */ (a)).conditions ?? []).map((/** @type {any} */ c) => ({ ...c, unnamed: c.text === UNNAMED_CONDITION })),
    }));
    const facetRow = (/** @type {any} */ f, /** @type {string|null} */ owner) => ({
      ...f, owner, natureLabel: t(`VERDICT.Facet.${f.nature}`), tone: f.nature === "beneficial" ? "good" : "bad",
    });
    const facets = [
      ...(scene.facets ?? []).map((/** @type {any} */ f) => facetRow(f, null)),
      ...actors.flatMap((a) => (a.facets ?? []).map((/** @type {any} */ f) => facetRow(f, a.name))),
    ];
    // Whom a new facet is written on: the scene, a character the table knows, or one in the world.
    const owners = new Map(actors.map((a) => [a.id, a.name]));
    for (const doc of game.actors?.contents ?? []) {
      const actor = actorById(doc.id);
      if (actor?.id && !owners.has(actor.id)) owners.set(actor.id, actor.name ?? actor.id);
    }
    return Object.assign(context, {
      sections: sectionsOf(world),
      // A complication is given a CL where the world's checks address one.
      converts: (FIELDS[world] ?? []).some((f) => SCENE_CHOICES[f.name]),
      lastAction: this.lastAction,
      isGM,
      connected: client?.status.state === "open",
      status: client?.status,
      sceneName: sceneId ? game.scenes?.get(sceneId)?.name ?? sceneId : t("VERDICT.Tracker.noScene"),
      complications,
      lurking,
      extended,
      actors,
      trials: TRIALS.map((x) => ({ value: x, label: t(`VERDICT.Trial.${x}`) })),
      extendedFields: extendedFields(),
      facets,
      facetTargets: [...owners].map(([id, name]) => ({ value: id, label: name })),
      natures: ["beneficial", "detrimental"].map((n) => ({ value: n, label: t(`VERDICT.Facet.${n}`) })),
    });
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
    // Enter in a rename or edit field sends it, as its button does.
    this.element.querySelectorAll("input[name=rename], input[name=edit]").forEach((el) => {
      el.addEventListener("keydown", (ev) => {
        if (/** @type {KeyboardEvent} */ (ev).key !== "Enter") return;
        ev.preventDefault();
        const action = el.getAttribute("name") === "rename" ? "facetRename" : "editSave";
        /** @type {HTMLElement|null} */ (el.closest("[data-id]")?.querySelector(`[data-action=${action}]`) ?? null)?.click();
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
   * @param {Record<string, any>} op
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

  /** @this {Tracker} */
  static async #onAdd() {
    const form = this.element.querySelector(".verdict-add");
    const text = /** @type {HTMLInputElement|null} */ (form?.querySelector("[name=text]"))?.value.trim();
    const hidden = /** @type {HTMLInputElement|null} */ (form?.querySelector("[name=hidden]"))?.checked ?? true;
    const scene = this.sceneId;
    if (!text || !scene) return;
    await this.#gm({ op: "complication_add", scene, text, hidden }, [".verdict-add [name=text]"]);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onReveal(_ev, target) {
    await this.#gm({ op: "complication_reveal", complication: Tracker.#id(target) });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onEdit(_ev, target) {
    const input = /** @type {HTMLInputElement|null} */ (target.closest("[data-id]")?.querySelector("[name=edit]") ?? null);
    if (!input) return;
    input.hidden = false;
    input.dataset.opened = "1";
    input.focus();
    input.select();
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onEditSave(_ev, target) {
    const input = /** @type {HTMLInputElement|null} */ (target.closest("[data-id]")?.querySelector("[name=edit]") ?? null);
    const text = input?.value.trim();
    const id = Tracker.#id(target);
    if (text) await this.#gm({ op: "complication_edit", complication: id, text }, [`[data-id="${CSS.escape(id)}"] [name=edit]`]);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onEditCancel(_ev, target) {
    const input = /** @type {HTMLInputElement|null} */ (target.closest("[data-id]")?.querySelector("[name=edit]") ?? null);
    if (input) clearDraft(input);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onRemove(_ev, target) {
    await this.#gm({ op: "complication_remove", complication: Tracker.#id(target) });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onConvert(_ev, target) {
    const row = target.closest("[data-id]");
    const cl = Number.parseInt(/** @type {HTMLInputElement|null} */ (row?.querySelector("[name=cl]"))?.value ?? "2", 10) || 2;
    await this.#gm({ op: "complication_convert", complication: Tracker.#id(target), cl });
  }

  /** @this {Tracker} */
  static async #onLurking() {
    const box = this.element.querySelector(".verdict-lurking-form");
    const trials = [...(box?.querySelectorAll("input[name=trial]:checked") ?? [])].map((el) => /** @type {HTMLInputElement} */ (el).value);
    if (!trials.length) return;
    await this.#gm({ op: "lurking_set", trials, scene: this.sceneId, actor: null }, [".verdict-lurking-form input[name=trial]"]);
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

  /** @this {Tracker} */
  static async #onFacetAdd() {
    const form = this.element.querySelector(".verdict-facet-form");
    const text = /** @type {HTMLInputElement|null} */ (form?.querySelector("[name=facet]"))?.value.trim();
    const nature = /** @type {HTMLSelectElement|null} */ (form?.querySelector("[name=nature]"))?.value || "beneficial";
    const on = /** @type {HTMLSelectElement|null} */ (form?.querySelector("[name=owner]"))?.value ?? "";
    if (!text) return;
    if (!on && !this.sceneId) return;
    await this.#gm({ op: "facet_add", facet: text, nature, actor: on || null, scene: on ? null : this.sceneId }, [".verdict-facet-form [name=facet]"]);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onFacetRename(_ev, target) {
    const row = target.closest("[data-id]");
    const input = /** @type {HTMLInputElement|null} */ (row?.querySelector("[name=rename]"));
    if (!input) return;
    if (input.hidden) {
      input.hidden = false;
      input.dataset.opened = "1";
      input.focus();
      input.select();
      return;
    }
    const text = input.value.trim();
    const id = Tracker.#id(target);
    if (text) await this.#gm({ op: "facet_rename", facet: id, text }, [`[data-id="${CSS.escape(id)}"] [name=rename]`]);
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onFacetRemove(_ev, target) {
    await this.#gm({ op: "facet_remove", facet: Tracker.#id(target) });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onHeal(_ev, target) {
    const harm = target.dataset.harm === "scratch" ? "scratch" : "wound";
    await this.#gm({ op: "harm_heal", actor: Tracker.#id(target), harm, count: 1 });
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

/**
 * The tracker's sections a world of this rule set has: lurking trials where its checks meet the GM's lurking
 * trials, extended checks where its checks can be extended, facets where its results write facets. The
 * complications and the characters are every world's.
 * @param {string} system
 * @returns {{lurking: boolean, extended: boolean, facets: boolean}}
 */
export function sectionsOf(system) {
  const sys = systemOf(system);
  return {
    lurking: (sys.check ?? []).some((/** @type {{name: string}} */ f) => GM_FIELDS.has(f.name)),
    extended: EXTENDED.includes(system),
    facets: (sys.facts ?? []).some((/** @type {{key: unknown}} */ f) => f.key === "facet"),
  };
}

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
    const text = msg.event.text ?? msg.event.facet ?? msg.event.name;
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
