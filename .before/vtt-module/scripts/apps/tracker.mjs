/**
 * The GM tracker: the current scene's complications (add, edit, reveal, remove, convert to a challenge),
 * lurking trials and extended checks in progress, drawn from the table snapshot the sidecar sends.
 * Players see what their role's snapshot holds: revealed complications only, lurking trials as a count.
 */

import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { t } from "../render.mjs";
import { RollDialog } from "./roll-dialog.mjs";
import { actorById } from "../documents.mjs";

const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;

export const TRIALS = ["costly", "slow", "loud", "harmful", "foolish", "chaotic"];

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
      remove: Tracker.#onRemove,
      convert: Tracker.#onConvert,
      lurking: Tracker.#onLurking,
      extendedStart: Tracker.#onExtendedStart,
      extendedRoll: Tracker.#onExtendedRoll,
      undo: Tracker.#onUndo,
    },
  };

  static PARTS = {
    body: { template: `${TEMPLATES}/tracker.hbs`, scrollable: [".verdict-tracker-body"] },
  };

  /** @type {Tracker|null} */
  static #instance = null;

  /** Open (or bring forward) the tracker. */
  static open() {
    Tracker.#instance ??= new Tracker();
    Tracker.#instance.render({ force: true });
    return Tracker.#instance;
  }

  constructor() {
    super({});
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    this._off = client?.on("snapshot", () => {
      if (this.rendered) this.render();
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
    const isGM = Boolean(game.user?.isGM);
    const sceneId = this.sceneId;
    const scene = (sceneId && snap?.scenes?.[sceneId]) || { complications: [], lurking: [], facets: [] };
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
    }));
    return Object.assign(context, {
      isGM,
      connected: client?.status.state === "open",
      status: client?.status,
      sceneName: sceneId ? game.scenes?.get(sceneId)?.name ?? sceneId : t("VERDICT.Tracker.noScene"),
      complications,
      lurking,
      extended,
      actors,
      trials: TRIALS.map((x) => ({ value: x, label: t(`VERDICT.Trial.${x}`) })),
      facets: scene.facets ?? [],
    });
  }

  /** @param {any} options */
  _onClose(options) {
    super._onClose(options);
    this._off?.();
    Tracker.#instance = null;
  }

  /**
   * @param {Record<string, any>} op
   */
  async #gm(op) {
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    try {
      await client?.gm(op);
    } catch (err) {
      ui.notifications?.error(`${t("VERDICT.Error.gm")}: ${/** @type {Error} */ (err).message}`);
    }
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
    await this.#gm({ op: "complication_add", scene, text, hidden });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onReveal(_ev, target) {
    await this.#gm({ op: "complication_reveal", complication: Tracker.#id(target) });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onEdit(_ev, target) {
    const row = target.closest("[data-id]");
    const input = /** @type {HTMLInputElement|null} */ (row?.querySelector("[name=edit]"));
    if (!input) return;
    if (input.hidden) {
      input.hidden = false;
      input.focus();
      return;
    }
    const text = input.value.trim();
    if (text) await this.#gm({ op: "complication_edit", complication: Tracker.#id(target), text });
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
    await this.#gm({ op: "lurking_set", trials, scene: this.sceneId, actor: null });
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
    });
  }

  /** @this {Tracker} @param {PointerEvent} _ev @param {HTMLElement} target */
  static async #onExtendedRoll(_ev, target) {
    const id = Tracker.#id(target);
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    const x = client?.snapshot?.extended?.[id];
    if (!x) return;
    new RollDialog({
      system: "boons",
      actor: x.actor ?? game.user?.character?.id ?? null,
      values: { check_type: "simple", trial: x.trial ?? 0, crisis: x.crisis ?? 0 },
      locked: ["system", "trial", "crisis"],
      label: x.name,
      extended: id,
    }).render({ force: true });
  }

  /** @this {Tracker} */
  static async #onUndo() {
    await this.#gm({ op: "undo", count: 1 });
  }
}
