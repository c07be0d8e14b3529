/**
 * The roll dialog: the world's rule set's fields, the roll mode, and live exact odds from the sidecar,
 * drawn as a bar coloured by outcome. Opened from a sheet header, a macro, a GM request card or a
 * card's "next roll" button. The GM's request dialog (request-dialog.mjs) extends it through the
 * protected hooks below (`_shownFields`, `_extraContext`, `_readExtra`, `_layoutKey`, `_submit`, `check`).
 */

import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { oddsSegments, succeeds } from "../lib/odds.mjs";
import { ROLL_MODES } from "../lib/protocol.mjs";
import { FIELDS, SCENE_CHOICES, SYSTEMS, buildCheck, coerce, defaults, fieldActive, labelOf, systemOf, viewerSees } from "../lib/systems.mjs";
import { setting } from "../settings.mjs";
import { t } from "../render.mjs";
import { actorById, actorName } from "../documents.mjs";
import { fieldsFromActor } from "../character.mjs";
import { skillsOf } from "../sheet-section.mjs";
import { make } from "../lib/dom.mjs";
import { rollScene } from "../scenes.mjs";

const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;

/**
 * What a rule set's checks spend of the actor's resources, as its vocabulary says, or null.
 * @param {string} system
 * @returns {{resource: string, cost: string, title: string}|null}
 */
function spendsOf(system) {
  return systemOf(system).spends ?? null;
}

/**
 * What a check costs by its odds answer (the field the rule set's `spends` names), or null.
 * @param {string} system
 * @param {Record<string, any>|undefined} odds
 * @returns {number|null}
 */
function costOf(system, odds) {
  const field = spendsOf(system)?.cost;
  const cost = field ? odds?.[field] : undefined;
  return typeof cost === "number" ? cost : null;
}

/**
 * Does what the check buys leave its chance to succeed as it was? The odds answer the chance with each number
 * bought (`by_<resource>`, first die first): a purchase whose chance is the chance with none bought changes
 * nothing (at that level the dice read are others), which the dialog says rather than leaving the player to
 * wonder why the odds did not move.
 * @param {string} system
 * @param {Record<string, any>|undefined} odds
 * @returns {boolean}
 */
function spentForNothing(system, odds) {
  const resource = spendsOf(system)?.resource;
  const cost = costOf(system, odds);
  const none = resource ? odds?.[`by_${resource}`]?.find?.((/** @type {any} */ c) => c?.value === 0)?.chance : null;
  const now = odds?.succeeds ?? odds?.outcome?.find?.((/** @type {any} */ c) => c?.value === "success")?.chance;
  if (!cost || !none || !now) return false;
  return Number(none.num) * Number(now.den) === Number(now.num) * Number(none.den);
}

/**
 * @typedef {object} RollDialogConfig
 * @property {string} [system]                 the rule set (default: the world's)
 * @property {string|null} [actor]             actor id
 * @property {string|null} [skill]             one of the world's named skills (the mapping's `@skill`)
 * @property {Record<string, any>} [values]    prefilled field values
 * @property {string[]} [locked]               fields the GM's request fixed
 * @property {string} [mode]                   roll mode
 * @property {string|null} [label]
 * @property {string|null} [extended]          extended check id (a rule set of EXTENDED)
 * @property {string|null} [request]           the request card's message id
 * @property {string|null} [gather]            the gathered check this roll is a part of
 * @property {string|null} [part]              which part
 * @property {(rolled: Record<string, any>) => void} [onRolled]
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
    this.system = config.system && SYSTEMS.includes(/** @type {any} */ (config.system)) ? config.system : setting("system") || SYSTEMS[0];
    const actor = actorById(config.actor);
    const remembered = /** @type {Record<string, any>} */ (actor?.getFlag(MODULE_ID, "defaults")?.[this.system] ?? {});
    // The character's own numbers where the world maps a field (a mapping that does not resolve for this
    // actor leaves the remembered value); values the caller gives (a request, a skill) win.
    const mapped = fieldsFromActor(this.system, actor, undefined, config.skill ?? null);
    /** @type {Record<string, any>} */
    this.values = { ...defaults(this.system), ...remembered, ...mapped.values, ...(config.values ?? {}) };
    this.mode = config.mode ?? "public";
    this.label = config.label ?? null;
    /** @type {number[]} faces rolled at the table (physical dice), read by the sidecar instead of rolling */
    this.dice = [];
    /** @type {{segments: import("../lib/odds.mjs").OddsSegment[], error: string|null, loading: boolean, succeeds?: string|null, cost?: number|null, unchanged?: boolean}} */
    this.odds = { segments: [], error: null, loading: true };
    this.busy = false;
    /** @type {any} */ this._oddsTimer = null;
    this._oddsSeq = 0;
    // The scene's open entries a field offers change with the table: drawn again then.
    this._choicesDrawn = "";
    this._offSnapshot = game.modules?.get(MODULE_ID)?.api?.client?.on("snapshot", () => {
      if (this.rendered && this.#choicesKey() !== this._choicesDrawn) {
        this.#read();
        this.render({ parts: ["fields"] });
      }
    });
  }

  /**
   * The entries of the roll's scene a roll may name: those this viewer sees that the table has made ready to be
   * addressed (an entry the GM made a check of, which has its CL; the sidecar refuses any other).
   * @param {string} list   the scene state's list
   * @returns {Array<{id: string, text: string, hidden?: boolean, cl?: number|null} & Record<string, any>>}
   */
  _sceneEntries(list) {
    const snap = game.modules?.get(MODULE_ID)?.api?.client?.snapshot;
    const isGM = Boolean(game.user?.isGM);
    const scene = rollScene() ?? snap?.scene ?? "";
    return /** @type {Array<any>} */ (snap?.scenes?.[scene]?.[list] ?? []).filter((c) => (isGM || !c.hidden) && c.cl != null);
  }

  /**
   * A field naming a scene's entry was set to one: the check's fields the entry holds (the CL the
   * GM set on converting it) are filled from it.
   * @param {Record<string, any>} before   the values before the change
   * @returns {boolean} whether any field was filled
   */
  #fillFromChoices(before) {
    let filled = false;
    for (const [field, list] of Object.entries(SCENE_CHOICES)) {
      const now = this.values[field];
      if (!now || now === before[field]) continue;
      const entry = this._sceneEntries(list).find((c) => c.id === now);
      if (!entry) continue;
      for (const f of FIELDS[this.system] ?? []) {
        if (f.name !== field && entry[f.name] !== undefined && entry[f.name] !== null) {
          this.values[f.name] = entry[f.name];
          filled = true;
        }
      }
    }
    return filled;
  }

  /** What the fields offering the scene's entries would offer now. */
  #choicesKey() {
    return JSON.stringify(this._shownFields().filter((f) => SCENE_CHOICES[f.name]).map((f) => this._sceneChoices(SCENE_CHOICES[f.name], this.values[f.name])));
  }

  /** @param {any} options */
  _onClose(options) {
    super._onClose(options);
    this._offSnapshot?.();
  }

  get title() {
    const actor = actorById(this.config.actor);
    const base = `${t("VERDICT.Dialog.title")}: ${t(`VERDICT.System.${this.system}`)}`;
    return actor ? `${base} (${actorName(actor)})` : base;
  }

  /** @param {any} options */
  async _prepareContext(options) {
    const context = await super._prepareContext(options);
    this._drawnOdds = this.odds;
    const locked = new Set(this.config.locked ?? []);
    this._choicesDrawn = this.#choicesKey();
    const fields = this._shownFields().map((f) => {
      const value = this.values[f.name];
      const choices = SCENE_CHOICES[f.name] ? this._sceneChoices(SCENE_CHOICES[f.name], value) : null;
      return {
        name: f.name,
        label: labelOf(this.system, f, t),
        hint: game.i18n?.has(`VERDICT.Hint.${this.system}.${f.name}`) ? t(`VERDICT.Hint.${this.system}.${f.name}`) : f.hint ?? null,
        isNumber: f.type === "int" || f.type === "optint",
        isBool: f.type === "bool",
        isSelect: f.type === "select",
        isMulti: f.type === "multi",
        isText: !choices && (f.type === "text" || f.type === "intlist"),
        isChoice: Boolean(choices),
        choices: choices ?? [],
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
      // The percent is what is read; an exact fraction is shown beside it only while it stays short (a few
      // digits), else it is the percent's tooltip; a certain or impossible outcome has none.
      odds: this.odds.segments.map((s) => {
        const exact = s.p > 0 && s.p < 1 ? s.exact : null;
        const short = exact !== null && exact.length <= 7;
        return { ...s, exact: short ? exact : null, exactTitle: short ? null : exact, label: t(`VERDICT.Outcome.${this.system}.${s.outcome}`) };
      }),
      oddsUnchanged: Boolean(this.odds.unchanged),
      oddsError: this.odds.error,
      oddsLoading: this.odds.loading,
      oddsSucceeds: this.odds.succeeds ?? null,
      spend: this._spend(),
      busy: this.busy,
      canHotbar: Boolean(this.config.actor),
      prepare: false,
      players: [],
      ...this._extraContext(),
    });
  }

  /**
   * The rule set's fields the form draws.
   * @returns {import("../lib/systems.mjs").FieldSpec[]}
   */
  _shownFields() {
    const isGM = Boolean(game.user?.isGM);
    return (FIELDS[this.system] ?? []).filter((f) => fieldActive(f, this.values) && viewerSees(f, isGM));
  }

  /**
   * The open entries of the roll's scene a field names one of (the list its card's `choices` names), as this viewer's snapshot
   * holds them (a player's holds the revealed ones only), by their text; "none" first, and a value set
   * elsewhere (a request) kept though the snapshot does not list it.
   * @param {string} list   the scene state's list
   * @param {any} value
   * @returns {Array<{value: string, label: string, selected: boolean}>}
   */
  _sceneChoices(list, value) {
    const entries = this._sceneEntries(list);
    const chosen = value ?? "";
    const choices = [{ value: "", label: t(`VERDICT.Dialog.none.${list}`), selected: chosen === "" }];
    for (const c of entries) {
      let label = c.cl ? `${c.text} (${t("VERDICT.Tracker.cl")} ${c.cl})` : c.text;
      if (c.hidden) label = `${label} (${t("VERDICT.Tracker.hidden")})`;
      choices.push({ value: c.id, label, selected: c.id === chosen });
    }
    if (chosen !== "" && !entries.some((c) => c.id === chosen)) choices.push({ value: String(chosen), label: String(chosen), selected: true });
    return choices;
  }

  /**
   * More of the template's context (a subclass's own section).
   * @returns {Record<string, any>}
   */
  _extraContext() {
    return {};
  }

  /**
   * What the check as set spends of the actor's own resources, and what the actor has: where the rule set's
   * vocabulary says its checks spend one (`spends`: the actor's field, the odds' field of the cost, its title).
   * @returns {{cost: number, have: number|null, short: boolean, label: string}|null}
   */
  _spend() {
    const spends = spendsOf(this.system);
    if (!spends) return null;
    const snap = game.modules?.get(MODULE_ID)?.api?.client?.snapshot;
    const have = this.config.actor ? snap?.actors?.[this.config.actor]?.[spends.resource] ?? 0 : null;
    const cost = this.odds.cost ?? null;
    if (!cost && have === null) return null;
    const key = `VERDICT.Spend.${this.system}`;
    const label = game.i18n?.has(key) ? t(key) : spends.title;
    return { cost: cost ?? 0, have, short: have !== null && (cost ?? 0) > have, label };
  }

  /**
   * @param {any} context
   * @param {any} options
   */
  async _onRender(context, options) {
    await super._onRender(context, options);
    // closed while this render was under way (an odds reply landing as the window closes): nothing to draw into
    if (!this.element) return;
    const form = /** @type {HTMLFormElement} */ (this.element);
    // Foundry writes the window title on the first render only: keep it in step with the rule set.
    const title = this.title;
    /** @type {any} */ (this.options.window).title = title;
    const heading = form.querySelector(".window-header .window-title, .window-title");
    if (heading && heading.textContent !== title) heading.textContent = title;
    this._dragToHotbar(form);
    this._skillSelect(form);
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
    // Odds that arrived while this render was under way are drawn now, not left "loading".
    if (this.odds !== this._drawnOdds) setTimeout(() => this.rendered && this.render({ parts: ["odds"] }), 0);
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
    this._readExtra(form);
    const mode = get("mode");
    if (mode) this.mode = mode.value;
    const label = get("label");
    if (label) this.label = label.value.trim() || null;
    const dice = get("dice");
    if (dice) this.dice = dice.value.split(/[\s,;]+/).map((x) => Number.parseInt(x, 10)).filter(Number.isFinite);
    return system;
  }

  /**
   * Read a subclass's own section of the form.
   * @param {HTMLFormElement} _form
   */
  _readExtra(_form) {}

  /** What decides which fields and rows the dialog draws. */
  #layout() {
    return JSON.stringify([FIELDS[this.system].filter((f) => fieldActive(f, this.values)).map((f) => f.name), this._layoutKey()]);
  }

  /**
   * What else decides the form's layout (a subclass's own section).
   * @returns {unknown}
   */
  _layoutKey() {
    return null;
  }

  #onChange() {
    const before = this.#layout();
    const was = { ...this.values };
    const system = this.#read();
    if (system !== this.system) {
      this.system = system;
      this.values = { ...defaults(system), ...fieldsFromActor(system, actorById(this.config.actor), undefined, this.config.skill ?? null).values };
      this.render({ parts: ["fields"] });
    } else {
      const filled = this.#fillFromChoices(was);
      if (filled || before !== this.#layout()) this.render({ parts: ["fields"] });
    }
    clearTimeout(this._oddsTimer);
    this._oddsTimer = setTimeout(() => this.#requestOdds(), 150);
  }

  /**
   * The wire check from the current values.
   * @returns {Record<string, any>}
   */
  check() {
    const check = buildCheck(this.system, this.values);
    return this.dice.length ? { ...check, dice: [...this.dice] } : check;
  }

  /** The check the odds are asked for: never the table's faces (the odds are of rolling). */
  /** @returns {{system: string} & Record<string, any>} */
  #oddsCheck() {
    const { dice: _faces, ...check } = this.check();
    return { ...check, system: String(check.system ?? this.system) };
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
        cost: costOf(this.system, reply.odds), unchanged: spentForNothing(this.system, reply.odds),
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
    await this._submit();
  }

  /** Roll the check (a subclass may do something else with the form). */
  async _submit() {
    const client = game.modules?.get(MODULE_ID)?.api?.client;
    if (!client) return;
    this.busy = true;
    // A roll that addresses one of the scene's entries and has no label of its own is labelled by that entry's
    // text: the card then says what was overcome (its facts name the entry by its id only).
    if (!this.label) {
      for (const [field, list] of Object.entries(SCENE_CHOICES)) {
        const entry = this.values[field] ? this._sceneEntries(list).find((c) => c.id === this.values[field]) : null;
        if (entry?.text) this.label = entry.text;
      }
    }
    try {
      const check = this.check();
      const rolled = await client.roll({
        check: { ...check, system: String(check.system ?? this.system) },
        actor: this.config.actor ?? null,
        scene: rollScene(),
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

  /**
   * The world's named skills of this dialog's actor, as a select over the fields: choosing one fills the fields
   * the world maps from the character for that skill (`@skill`); values typed by hand stay otherwise.
   * @param {HTMLElement} form
   */
  _skillSelect(form) {
    const part = /** @type {HTMLElement|null} */ (form.querySelector('[data-application-part="fields"]'));
    const actor = actorById(this.config.actor);
    const skills = actor ? skillsOf(actor) : [];
    if (!part || !skills.length || part.querySelector("select[name=verdict-skill]")) return;
    const group = make(part, "div");
    group.className = "form-group verdict-skill";
    const label = make(group, "label");
    label.htmlFor = `${this.id}-skill`;
    label.textContent = t("VERDICT.Dialog.skill");
    const select = make(group, "select");
    select.id = `${this.id}-skill`;
    select.name = "verdict-skill";
    const none = make(select, "option");
    none.value = "";
    none.textContent = "—";
    select.append(none);
    for (const s of skills) {
      const option = make(select, "option");
      option.value = s.key;
      option.textContent = s.value === null ? s.label : `${s.label} (${s.value})`;
      option.selected = s.key === this.config.skill;
      select.append(option);
    }
    group.append(label, select);
    part.prepend(group);
    select.addEventListener("change", (ev) => {
      ev.stopPropagation();
      this.#read();
      this.config.skill = select.value || null;
      Object.assign(this.values, fieldsFromActor(this.system, actorById(this.config.actor), undefined, this.config.skill).values);
      if (this.config.skill && !this.label) this.label = skills.find((s) => s.key === this.config.skill)?.label ?? null;
      this.render({ parts: ["fields"] }).then(() => this.element?.dispatchEvent(new Event("change", { bubbles: true })));
    });
  }

  /**
   * The hotbar button can also be dragged onto a hotbar slot: the drop carries the prepared check.
   * @param {HTMLElement} form
   */
  _dragToHotbar(form) {
    const button = /** @type {HTMLElement|null} */ (form.querySelector("[data-action=hotbar]"));
    if (!button || button.dataset.verdictDrag) return;
    button.dataset.verdictDrag = "1";
    button.draggable = true;
    button.addEventListener("dragstart", (ev) => {
      this.#read();
      const data = { type: "Verdict", actor: this.config.actor ?? null, system: this.system, values: this.values };
      ev.dataTransfer?.setData("text/plain", JSON.stringify(data));
    });
  }

  /** @this {RollDialog} */
  static async #onHotbar() {
    this.#read();
    await game.modules?.get(MODULE_ID)?.api?.createMacro({ actor: this.config.actor ?? null, system: this.system, values: this.values });
  }
}
