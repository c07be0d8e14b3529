/**
 * The roll dialog: the world's rule set's fields, the roll mode, and live exact odds from the sidecar,
 * drawn as a bar coloured by outcome. Opened from a sheet header, a macro, a GM request card or a
 * card's "next roll" button.
 */

import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { oddsSegments, succeeds } from "../lib/odds.mjs";
import { ROLL_MODES } from "../lib/protocol.mjs";
import { FIELDS, SYSTEMS, buildCheck, coerce, defaults, fieldActive } from "../lib/systems.mjs";
import { gatherCheck, gatherable } from "../lib/gather.mjs";
import { setting } from "../settings.mjs";
import { t } from "../render.mjs";
import { actorById } from "../documents.mjs";

const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;

/**
 * @typedef {object} RollDialogConfig
 * @property {string} [system]                 the rule set (default: the world's)
 * @property {string|null} [actor]             actor id
 * @property {Record<string, any>} [values]    prefilled field values
 * @property {string[]} [locked]               fields the GM's request fixed
 * @property {string} [mode]                   roll mode
 * @property {string|null} [label]
 * @property {string|null} [extended]          extended check id (boons)
 * @property {string|null} [request]           the request card's message id
 * @property {string|null} [gather]            the gathered check this roll is a part of
 * @property {string|null} [part]              which part
 * @property {(rolled: Record<string, any>) => void} [onRolled]
 * @property {boolean} [prepare]              GM: prepare a request for players instead of rolling
 */

export class RollDialog extends HandlebarsApplicationMixin(ApplicationV2) {
  static DEFAULT_OPTIONS = {
    classes: ["verdict", "verdict-roll-dialog"],
    tag: "form",
    window: { title: "VERDICT.Dialog.title", icon: "fa-solid fa-dice-d20", resizable: false },
    position: { width: 440 },
    form: { handler: RollDialog.#onSubmit, submitOnChange: false, closeOnSubmit: false },
    actions: { hotbar: RollDialog.#onHotbar },
  };

  static PARTS = {
    fields: { template: `${TEMPLATES}/roll-dialog.hbs` },
    odds: { template: `${TEMPLATES}/odds.hbs` },
    footer: { template: `${TEMPLATES}/roll-footer.hbs` },
  };

  /** @param {RollDialogConfig} [config] */
  constructor(config = {}) {
    super({});
    /** @type {RollDialogConfig} */
    this.config = config;
    this.system = config.system && SYSTEMS.includes(/** @type {any} */ (config.system)) ? config.system : setting("system") || "facets";
    const actor = actorById(config.actor);
    const remembered = /** @type {Record<string, any>} */ (actor?.getFlag(MODULE_ID, "defaults")?.[this.system] ?? {});
    /** @type {Record<string, any>} */
    this.values = { ...defaults(this.system), ...remembered, ...(config.values ?? {}) };
    this.mode = config.mode ?? "public";
    this.label = config.label ?? null;
    /** @type {number[]} faces rolled at the table (physical dice), read by the sidecar instead of rolling */
    this.dice = [];
    /** @type {{segments: import("../lib/odds.mjs").OddsSegment[], error: string|null, loading: boolean, succeeds?: string|null, cost?: number|null}} */
    this.odds = { segments: [], error: null, loading: true };
    this.busy = false;
    /**
     * GM request being prepared: whom to ask, whether to gather the rolls into one check, each
     * participant's pool (`flairs` group) or who rolls each side (`boons` opposed).
     * @type {{group: boolean, trap: boolean, players: Record<string, {checked: boolean, rank: number, edges: number, cuts: number}>, sides: Record<string, string>}}
     */
    this.prep = { group: false, trap: false, players: {}, sides: {} };
    /** @type {any} */ this._oddsTimer = null;
    this._oddsSeq = 0;
  }

  get title() {
    const actor = actorById(this.config.actor);
    const base = `${t("VERDICT.Dialog.title")}: ${t(`VERDICT.System.${this.system}`)}`;
    return actor ? `${base} (${actor.name})` : base;
  }

  /** @param {any} options */
  async _prepareContext(options) {
    const context = await super._prepareContext(options);
    const locked = new Set(this.config.locked ?? []);
    const gathered = this.#gathered();
    // A group check's pools are each participant's, set in the request's rows.
    const shown = gathered && this.system === "flairs" ? [] : (FIELDS[this.system] ?? []).filter((f) => fieldActive(f, this.values));
    const fields = shown.map((f) => {
      const value = this.values[f.name];
      return {
        name: f.name,
        label: t(`VERDICT.Field.${this.system}.${f.name}`),
        hint: game.i18n?.has(`VERDICT.Hint.${this.system}.${f.name}`) ? t(`VERDICT.Hint.${this.system}.${f.name}`) : null,
        isNumber: f.type === "int" || f.type === "optint",
        isBool: f.type === "bool",
        isSelect: f.type === "select",
        isMulti: f.type === "multi",
        isText: f.type === "text" || f.type === "intlist",
        value: Array.isArray(value) ? value.join(", ") : value ?? "",
        checked: Boolean(value),
        min: f.min, max: f.max,
        disabled: locked.has(f.name),
        options: (f.options ?? []).map((o) => ({
          value: o, label: t(`VERDICT.Option.${f.name}.${o}`), selected: Array.isArray(value) ? value.includes(o) : o === value,
        })),
      };
    });
    return Object.assign(context, {
      system: this.system,
      systemLocked: locked.has("system"),
      systems: SYSTEMS.map((s) => ({ value: s, label: t(`VERDICT.System.${s}`), selected: s === this.system })),
      fields,
      modes: ROLL_MODES.map((m) => ({ value: m, label: t(`VERDICT.Mode.${m}`), selected: m === this.mode })),
      label: this.label ?? "",
      dice: this.dice.join(", "),
      odds: this.odds.segments.map((s) => ({ ...s, label: t(`VERDICT.Outcome.${this.system}.${s.outcome}`) })),
      oddsError: this.odds.error,
      oddsLoading: this.odds.loading,
      oddsSucceeds: this.odds.succeeds ?? null,
      wyrd: this.#wyrd(),
      busy: this.busy,
      canHotbar: Boolean(this.config.actor) && !this.config.prepare,
      ...this.#prepareRequest(gathered),
    });
  }

  /** Is the GM preparing a request that gathers every roll into one check? */
  #gathered() {
    return Boolean(this.config.prepare) && this.prep.group && gatherable(this.system, this.values);
  }

  /**
   * The request section's context: the players with their pools, the sides of an opposed check.
   * @param {boolean} gathered
   */
  #prepareRequest(gathered) {
    if (!this.config.prepare) return { prepare: false, players: [] };
    const players = (game.users?.filter((u) => !u.isGM) ?? []).map((u) => {
      const row = this.prep.players[u.id] ?? { checked: u.active, rank: Number(this.values.rank ?? 1) || 0, edges: 0, cuts: 0 };
      return { id: u.id, name: u.name, part: partName(u), ...row };
    });
    const everyone = game.users?.map((u) => ({ id: u.id, name: u.name })) ?? [];
    const first = players[0]?.id ?? "";
    const gm = game.users?.find((u) => u.isGM)?.id ?? "";
    const side = (/** @type {string} */ name, /** @type {string} */ dflt) => {
      const chosen = this.prep.sides[name] ?? dflt;
      return { name, label: t(`VERDICT.Request.part.${name}`), users: everyone.map((u) => ({ ...u, selected: u.id === chosen })) };
    };
    return {
      prepare: true,
      players,
      gatherable: gatherable(this.system, this.values),
      gathered,
      groupRows: gathered && this.system === "flairs",
      trap: this.prep.trap,
      sides: gathered && this.system === "boons" ? [side("actor", first), side("defender", gm)] : [],
    };
  }

  /** `feats`: what the Wyrd bought in the dialog costs, and what the actor has. */
  #wyrd() {
    if (this.system !== "feats" || this.config.prepare) return null;
    const snap = game.modules?.get(MODULE_ID)?.api?.client?.snapshot;
    const have = this.config.actor ? snap?.actors?.[this.config.actor]?.wyrd ?? 0 : null;
    const cost = this.odds.cost ?? null;
    if (!cost && have === null) return null;
    return { cost: cost ?? 0, have, short: have !== null && (cost ?? 0) > have };
  }

  /**
   * @param {any} context
   * @param {any} options
   */
  async _onRender(context, options) {
    await super._onRender(context, options);
    const form = /** @type {HTMLFormElement} */ (this.element);
    if (!form.dataset.verdictBound) {
      form.dataset.verdictBound = "1";
      form.addEventListener("change", () => this.#onChange());
      form.addEventListener("input", (ev) => {
        if (/** @type {HTMLElement} */ (ev.target).matches("input[type=number]")) this.#onChange();
      });
    }
    if (this.odds.loading && !this._oddsRequested) {
      this._oddsRequested = true;
      this.#requestOdds();
    }
  }

  /** Read the form into `values` (only the fields shown, so hidden ones keep their values). */
  #read() {
    const form = /** @type {HTMLFormElement} */ (this.element);
    const get = (/** @type {string} */ name) => /** @type {HTMLInputElement|null} */ (form.querySelector(`[name="${name}"]`));
    const sys = get("system");
    const system = sys ? sys.value : this.system;
    for (const f of FIELDS[this.system] ?? []) {
      if (f.type === "multi") {
        const boxes = [...form.querySelectorAll(`[name="field.${f.name}"]`)];
        if (boxes.length) this.values[f.name] = coerce(f, boxes.filter((b) => /** @type {HTMLInputElement} */ (b).checked).map((b) => /** @type {HTMLInputElement} */ (b).value));
        continue;
      }
      const el = get(`field.${f.name}`);
      if (!el) continue;
      this.values[f.name] = coerce(f, f.type === "bool" ? el.checked : el.value);
    }
    if (this.config.prepare) this.#readRequest(form);
    const mode = get("mode");
    if (mode) this.mode = mode.value;
    const label = get("label");
    if (label) this.label = label.value.trim() || null;
    const dice = get("dice");
    if (dice) this.dice = dice.value.split(/[\s,;]+/).map((x) => Number.parseInt(x, 10)).filter(Number.isFinite);
    return system;
  }

  /**
   * The request section of the form into `prep`.
   * @param {HTMLFormElement} form
   */
  #readRequest(form) {
    const group = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=group]"));
    if (group) this.prep.group = group.checked;
    const trap = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=trap]"));
    if (trap) this.prep.trap = trap.checked;
    form.querySelectorAll("[data-player]").forEach((row) => {
      const id = /** @type {HTMLElement} */ (row).dataset.player ?? "";
      const num = (/** @type {string} */ n) => Number.parseInt(/** @type {HTMLInputElement|null} */ (row.querySelector(`[name=${n}]`))?.value ?? "", 10);
      const prev = this.prep.players[id];
      this.prep.players[id] = {
        checked: /** @type {HTMLInputElement|null} */ (row.querySelector("input[name=player]"))?.checked ?? false,
        rank: Number.isFinite(num("rank")) ? num("rank") : prev?.rank ?? 1,
        edges: Number.isFinite(num("edges")) ? num("edges") : prev?.edges ?? 0,
        cuts: Number.isFinite(num("cuts")) ? num("cuts") : prev?.cuts ?? 0,
      };
    });
    form.querySelectorAll("select[data-side]").forEach((el) => {
      const sel = /** @type {HTMLSelectElement} */ (el);
      this.prep.sides[sel.dataset.side ?? ""] = sel.value;
    });
  }

  /** What decides which fields and rows the dialog draws. */
  #layout() {
    return JSON.stringify([FIELDS[this.system].filter((f) => fieldActive(f, this.values)).map((f) => f.name), this.#gathered()]);
  }

  #onChange() {
    const before = this.#layout();
    const system = this.#read();
    if (system !== this.system) {
      this.system = system;
      this.values = { ...defaults(system) };
      this.render({ parts: ["fields"] });
    } else {
      if (before !== this.#layout()) this.render({ parts: ["fields"] });
    }
    clearTimeout(this._oddsTimer);
    this._oddsTimer = setTimeout(() => this.#requestOdds(), 150);
  }

  /** The wire check from the current values (a request that gathers: the whole check). */
  check() {
    if (this.#gathered()) return gatherCheck(this.system, this.values, this.#participants(), this.prep.trap);
    const check = buildCheck(this.system, this.values);
    return this.dice.length ? { ...check, dice: [...this.dice] } : check;
  }

  /** The check the odds are asked for: never the table's faces (the odds are of rolling). */
  #oddsCheck() {
    const { dice: _faces, ...check } = this.check();
    return check;
  }

  /** @returns {import("../lib/gather.mjs").Participant[]} the chosen players of a `flairs` group check */
  #participants() {
    return (game.users?.filter((u) => !u.isGM) ?? [])
      .filter((u) => this.prep.players[u.id]?.checked ?? u.active)
      .map((u) => ({ name: partName(u), user: u.id, ...(this.prep.players[u.id] ?? { rank: Number(this.values.rank ?? 1) || 0, edges: 0, cuts: 0 }) }));
  }

  async #requestOdds() {
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    if (!client) return;
    const mine = ++this._oddsSeq;
    this.odds.loading = true;
    try {
      const reply = await client.odds(this.#oddsCheck());
      if (mine !== this._oddsSeq) return;
      this.odds = {
        segments: oddsSegments(this.system, reply.odds), error: null, loading: false, succeeds: succeeds(reply.odds),
        cost: typeof reply.odds?.cost === "number" ? reply.odds.cost : null,
      };
    } catch (err) {
      if (mine !== this._oddsSeq) return;
      this.odds = { segments: [], error: /** @type {Error} */ (err).message, loading: false };
    }
    if (this.rendered) this.render({ parts: ["odds"] });
  }

  /**
   * @this {RollDialog}
   * @param {SubmitEvent|Event} _event
   * @param {HTMLFormElement} _form
   */
  static async #onSubmit(_event, _form) {
    if (this.busy) return;
    this.#read();
    if (this.config.prepare) {
      const gathered = this.#gathered();
      const participants = gathered && this.system === "flairs" ? this.#participants() : [];
      const users = (game.users?.filter((u) => !u.isGM) ?? []).filter((u) => this.prep.players[u.id]?.checked ?? u.active).map((u) => u.id);
      if ((gathered && this.system === "flairs" ? participants.length : gathered ? 1 : users.length) === 0) {
        ui.notifications?.warn(t("VERDICT.Request.noPlayers"));
        return;
      }
      const sides = gathered && this.system === "boons" ? this.#sides() : {};
      try {
        await game.modules?.get(MODULE_ID)?.api?.postRequest({
          system: this.system, values: this.values, mode: this.mode, label: this.label, users, group: gathered,
          participants, trap: this.prep.trap, sides, scene: canvas?.scene?.id ?? game.scenes?.viewed?.id ?? null,
        });
      } catch (err) {
        ui.notifications?.error(`${t("VERDICT.Error.gm")}: ${/** @type {Error} */ (err).message}`);
        return;
      }
      await this.close();
      return;
    }
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    if (!client) return;
    this.busy = true;
    try {
      const rolled = await client.roll({
        check: this.check(),
        actor: this.config.actor ?? null,
        scene: canvas?.scene?.id ?? game.scenes?.viewed?.id ?? null,
        mode: this.mode,
        label: this.label,
        extended: this.config.extended ?? null,
        gather: this.config.gather ?? null,
        part: this.config.part ?? null,
      });
      // A part of a gathered check is the GM's pool, not the actor's own habit: not remembered.
      if (!this.config.gather) game.modules?.get(MODULE_ID)?.api?.rememberDefaults(this.config.actor ?? null, this.system, this.values);
      this.config.onRolled?.(rolled);
      await this.close();
    } catch (err) {
      this.busy = false;
      this.odds.error = /** @type {Error} */ (err).message;
      ui.notifications?.error(`${t("VERDICT.Error.roll")}: ${/** @type {Error} */ (err).message}`);
      this.render({ parts: ["odds"] });
    }
  }

  /** @returns {Record<string, string>} who rolls each side of an opposed check (as the form shows them) */
  #sides() {
    const form = /** @type {HTMLFormElement} */ (this.element);
    /** @type {Record<string, string>} */
    const out = {};
    form.querySelectorAll("select[data-side]").forEach((el) => {
      out[/** @type {HTMLSelectElement} */ (el).dataset.side ?? ""] = /** @type {HTMLSelectElement} */ (el).value;
    });
    return out;
  }

  /** @this {RollDialog} */
  static async #onHotbar() {
    this.#read();
    await game.modules?.get(MODULE_ID)?.api?.createMacro({ actor: this.config.actor ?? null, system: this.system, values: this.values });
  }
}

/**
 * A participant's name in a group check: their character's, else the user's.
 * @param {User.Implementation} user
 * @returns {string}
 */
function partName(user) {
  return user.character?.name ?? user.name ?? user.id ?? "";
}
