/**
 * The world's mapping of check fields to the character's data, one rule set at a time: each numeric field
 * of the rule set (from the vocabulary) with a path or formula over an actor's roll data, the value it gives
 * the actor chosen for a preview, and why it does not resolve when it does not. The actor's numeric keys are
 * offered to pick from. Presets: Simple Worldbuilding's attributes, or nothing (the dialog's own values).
 */

import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { FIELDS, GM_FIELDS, SYSTEMS } from "../lib/systems.mjs";
import { numericPaths, presetMapping, resolveMapping } from "../lib/mapping.mjs";
import { rollData, worldMapping } from "../character.mjs";
import { skillsOf } from "../sheet-section.mjs";

/** @param {string} key */
const t = (key) => game.i18n?.localize(key) ?? key;

/** @type {any} */
let made = null;

/**
 * The form's class, made on first use (Foundry's application classes exist from `init`).
 * @returns {any}
 */
export function mappingFormClass() {
  if (made) return made;
  const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;
  class MappingForm extends HandlebarsApplicationMixin(ApplicationV2) {
    static DEFAULT_OPTIONS = {
      id: "verdict-mapping",
      tag: "form",
      classes: ["verdict", "verdict-mapping"],
      window: { title: "VERDICT.Mapping.title", icon: "fa-solid fa-link" },
      position: { width: 560 },
      form: { handler: MappingForm.#save, closeOnSubmit: false, submitOnChange: false },
      actions: { preset: MappingForm.#preset },
    };

    static PARTS = { form: { template: `${TEMPLATES}/mapping.hbs` } };

    /** @param {Record<string, any>} [options] */
    constructor(options = {}) {
      super(options);
      /** @type {Record<string, Record<string, string>>} the mapping being edited, every rule set */
      this.draft = structuredClone(worldMapping());
      this.system = String(game.settings?.get(MODULE_ID, "system") || SYSTEMS[0]);
      /** @type {string|null} the skill the preview rolls for (a mapping's `@skill`) */
      this.skill = null;
      /** @type {string|null} the rule set whose "no mapping" waits for its confirmation */
      this.confirmingNone = null;
      /** @type {string|null} */
      this.actorId = game.user?.character?.id ?? /** @type {any} */ (game.actors)?.contents?.[0]?.id ?? null;
    }

    /**
     * @override
     * @returns {Promise<any>}
     */
    async _prepareContext() {
      const actor = /** @type {any} */ (game.actors?.get(this.actorId ?? ""));
      const data = rollData(actor);
      // A mapping may name the skill a roll is for (`@skill`): previewed with one of the actor's skills.
      const skills = skillsOf(actor);
      if (!skills.some((s) => s.key === this.skill)) this.skill = skills[0]?.key ?? null;
      const skillPath = skills.find((s) => s.key === this.skill)?.path.slice(1);
      if (skillPath) data.skill = skillPath.split(".").reduce((/** @type {any} */ o, k) => (o && typeof o === "object" ? o[k] : undefined), data);
      const mapping = this.draft[this.system] ?? {};
      // The character's numbers: never a field the GM keeps secret at the table (the rule set's card marks it).
      const numeric = (FIELDS[this.system] ?? []).filter((f) => (f.type === "int" || f.type === "optint") && !GM_FIELDS.has(f.name));
      return {
        systems: SYSTEMS.map((s) => ({ value: s, label: t(`VERDICT.System.${s}`), selected: s === this.system })),
        actors: (/** @type {any} */ (game.actors)?.contents ?? []).map((/** @type {any} */ a) => ({ id: a.id, name: a.name, selected: a.id === this.actorId })),
        paths: numericPaths(data).map((p) => ({ path: `@${p.path}`, value: p.value })),
        fields: numeric.map((f) => {
          const expr = mapping[f.name] ?? "";
          const r = expr ? resolveMapping(expr, data, { min: f.min, max: f.max }) : null;
          return {
            name: f.name,
            id: `verdict-map-${f.name}`,
            label: t(`VERDICT.Field.${this.system}.${f.name}`),
            expr,
            limits: f.min !== undefined || f.max !== undefined ? `${f.min ?? "…"}–${f.max ?? "…"}` : "",
            value: r && !r.error ? r.value : null,
            problem: r?.error ? (game.i18n?.format(`VERDICT.Mapping.problem.${r.error}`, { detail: r.detail ?? "" }) ?? r.error) : null,
          };
        }),
        hasActor: Boolean(actor),
        confirmingNone: this.confirmingNone === this.system,
        mapped: Object.keys(mapping).length > 0,
        skills: skills.map((s) => ({ key: s.key, label: s.label, selected: s.key === this.skill })),
      };
    }

    /**
     * @override
     * @param {any} context
     * @param {any} options
     */
    async _onRender(context, options) {
      await super._onRender(context, options);
      if (!this.element) return; // closed while this render was under way
      const form = /** @type {HTMLFormElement} */ (this.element);
      if (form.dataset.verdictBound) return;
      form.dataset.verdictBound = "1";
      form.addEventListener("change", () => {
        this.#read(form);
        this.render();
      });
    }

    /** @param {HTMLFormElement} form */
    #read(form) {
      const system = /** @type {HTMLSelectElement|null} */ (form.querySelector("select[name=system]"))?.value;
      const actor = /** @type {HTMLSelectElement|null} */ (form.querySelector("select[name=actor]"))?.value;
      const skill = /** @type {HTMLSelectElement|null} */ (form.querySelector("select[name=skill]"))?.value;
      if (skill) this.skill = skill;
      /** @type {Record<string, string>} */
      const mapping = { ...(this.draft[this.system] ?? {}) };
      form.querySelectorAll("input[data-field]").forEach((el) => {
        const input = /** @type {HTMLInputElement} */ (el);
        const value = input.value.trim();
        if (value) mapping[String(input.dataset.field)] = value;
        else delete mapping[String(input.dataset.field)];
      });
      this.draft[this.system] = mapping;
      if (system && SYSTEMS.includes(/** @type {any} */ (system))) this.system = system;
      if (actor !== undefined) this.actorId = actor || null;
    }

    /**
     * @this {MappingForm}
     * @param {Event} _event
     * @param {HTMLElement} target
     */
    static #preset(_event, target) {
      const preset = /** @type {"worldbuilding"|"none"|"keep"} */ (target.dataset.preset === "worldbuilding" ? "worldbuilding" : target.dataset.preset === "keep" ? "keep" : "none");
      this.#read(/** @type {HTMLFormElement} */ (this.element));
      // Clearing every field of a mapping that has some asks once more first (the button becomes the confirmation).
      if (preset === "keep") this.confirmingNone = null;
      else if (preset === "none" && Object.keys(this.draft[this.system] ?? {}).length && this.confirmingNone !== this.system) this.confirmingNone = this.system;
      else {
        this.confirmingNone = null;
        this.draft[this.system] = presetMapping(preset, (FIELDS[this.system] ?? []).filter((f) => !GM_FIELDS.has(f.name)));
      }
      this.render();
    }

    /**
     * @this {MappingForm}
     * @param {Event|SubmitEvent} _event
     * @param {HTMLFormElement} form
     */
    static async #save(_event, form) {
      this.#read(form);
      await game.settings?.set(MODULE_ID, /** @type {any} */ ("mapping"), /** @type {any} */ (structuredClone(this.draft)));
      ui.notifications?.info(t("VERDICT.Mapping.saved"));
      this.render();
    }
  }
  made = MappingForm;
  return made;
}
