/**
 * The GM's request dialog: the roll dialog's fields and odds, plus whom to ask, whether to gather every
 * roll into one check, each participant's pool (a group check) or who rolls each side (an opposed check), as
 * the vocabulary says the rule set gathers.
 * Submitting posts a request card (requests.mjs) instead of rolling.
 */

import { MODULE_ID } from "../constants.mjs";
import { gatherCheck, gatherable, gathersGroup, sidesOf } from "../lib/gather.mjs";
import { FIELDS, defaults, gatherOf, labelOf } from "../lib/systems.mjs";
import { t } from "../render.mjs";
import { worldMapping } from "../character.mjs";
import { make } from "../lib/dom.mjs";
import { leftToCharacter } from "../lib/mapping.mjs";
import { RollDialog } from "./roll-dialog.mjs";

/** @typedef {{checked: boolean} & Record<string, any>} PlayerRow  a player's row: taking part, and their part's fields */

export class RequestDialog extends RollDialog {
  /** @param {import("./roll-dialog.mjs").RollDialogConfig} [config] */
  constructor(config = {}) {
    super(config);
    /**
     * The request being prepared.
     * @type {{group: boolean, trap: boolean, players: Record<string, PlayerRow>, sides: Record<string, string>}}
     */
    this.prep = { group: false, trap: false, players: {}, sides: {} };
    /**
     * The fields the GM has set in this dialog (for its rule set): a field the world maps to a character and
     * the GM leaves alone is left to each roller's character.
     * @type {{system: string, values: Record<string, any>, edited: Set<string>}}
     */
    this.asSet = { system: this.system, values: { ...this.values }, edited: new Set() };
  }

  /**
   * The fields this request leaves to each roller's character: those the world maps for the rule set, shown,
   * and not set by the GM. A gathered check's pools are the GM's (each part's own row).
   * @returns {string[]}
   */
  leftToCharacter() {
    if (this.gathered) return [];
    return leftToCharacter(this._shownFields(), worldMapping()[this.system], this.asSet.edited);
  }

  /** Does the request gather every roll into one check? */
  get gathered() {
    return this.prep.group && gatherable(this.system, this.values);
  }

  /** A group check's pools are each participant's, set in the request's rows. */
  _shownFields() {
    return this.gathered && gathersGroup(this.system) ? [] : super._shownFields();
  }

  /** What a check spends is the roller's to pay, not the GM's to ask for. */
  _spend() {
    return null;
  }

  /** The request section's context: the players with their pools, the sides of an opposed check. */
  _extraContext() {
    const gathered = this.gathered;
    const columns = this.#partFields();
    const players = (game.users?.filter((u) => !u.isGM) ?? []).map((u) => {
      const row = this.prep.players[u.id] ?? { checked: u.active, ...this.#partDefaults() };
      return { id: u.id, name: u.name, part: partName(u), ...row, cells: columns.map((c) => ({ ...c, value: row[c.name] ?? 0 })) };
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
      canHotbar: false,
      players,
      gatherable: gatherable(this.system, this.values),
      gathered,
      groupRows: gathered && gathersGroup(this.system),
      columns,
      flag: Boolean(gatherOf(this.system)?.flag),
      trap: this.prep.trap,
      sides: gathered ? sidesOf(this.system).map((name, i) => side(name, i === 0 ? first : gm)) : [],
    };
  }

  /**
   * The request section of the form into `prep`.
   * @param {HTMLFormElement} form
   */
  _readExtra(form) {
    // A change of rule set resets the values to its defaults: the GM's edits are counted from those.
    if (this.asSet.system !== this.system) this.asSet = { system: this.system, values: defaults(this.system), edited: new Set() };
    for (const f of FIELDS[this.system] ?? []) {
      if (JSON.stringify(this.values[f.name] ?? null) !== JSON.stringify(this.asSet.values[f.name] ?? null)) this.asSet.edited.add(f.name);
    }
    this.asSet.values = { ...this.values };
    const group = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=group]"));
    if (group) this.prep.group = group.checked;
    const trap = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=trap]"));
    if (trap) this.prep.trap = trap.checked;
    form.querySelectorAll("[data-player]").forEach((row) => {
      const id = /** @type {HTMLElement} */ (row).dataset.player ?? "";
      const num = (/** @type {string} */ n) => Number.parseInt(/** @type {HTMLInputElement|null} */ (row.querySelector(`[name=${n}]`))?.value ?? "", 10);
      const prev = this.prep.players[id] ?? this.#partDefaults();
      /** @type {PlayerRow} */
      const next = { checked: /** @type {HTMLInputElement|null} */ (row.querySelector("input[name=player]"))?.checked ?? false };
      for (const c of this.#partFields()) next[c.name] = Number.isFinite(num(c.name)) ? num(c.name) : prev[c.name] ?? 0;
      this.prep.players[id] = next;
    });
    form.querySelectorAll("select[data-side]").forEach((el) => {
      const sel = /** @type {HTMLSelectElement} */ (el);
      this.prep.sides[sel.dataset.side ?? ""] = sel.value;
    });
  }

  _layoutKey() {
    return this.gathered;
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
    this.#markLeft(form);
    if (!form.dataset.verdictLeftBound) {
      form.dataset.verdictLeftBound = "1";
      // After the dialog has read the change (its own listener was added first).
      form.addEventListener("change", () => this.#markLeft(form));
    }
  }

  /**
   * Say beside each field left to the character that each player's character fills it.
   * @param {HTMLFormElement} form
   */
  #markLeft(form) {
    const left = new Set(this.leftToCharacter());
    for (const f of FIELDS[this.system] ?? []) {
      const input = /** @type {HTMLInputElement|null} */ (form.querySelector(`[name="field.${f.name}"]`));
      if (!input) continue;
      const id = `${this.id}-from-character-${f.name}`;
      let note = form.querySelector(`#${CSS.escape(id)}`);
      if (!left.has(f.name)) {
        note?.remove();
        input.removeAttribute("aria-describedby");
        delete input.dataset.fromCharacter;
        continue;
      }
      if (!note) {
        note = make(form, "small");
        note.id = id;
        note.className = "verdict-from-character";
        note.textContent = t("VERDICT.Request.fromCharacterHint");
        input.after(note);
      }
      input.setAttribute("aria-describedby", id);
      input.dataset.fromCharacter = "1";
    }
  }

  /** The wire check: a request that gathers asks for the whole check. */
  check() {
    if (this.gathered) return gatherCheck(this.system, this.values, this.#participants(), this.prep.trap);
    return super.check();
  }

  /**
   * The columns of a group check's rows: the fields each participant's part has of its own (`gather.part`),
   * with the dialog's bounds and labels for them.
   * @returns {Array<{name: string, label: string, min: number|string, max: number|string}>}
   */
  #partFields() {
    const names = /** @type {string[]} */ (gatherOf(this.system)?.part ?? []);
    return names.map((name) => {
      const f = /** @type {import("../lib/systems.mjs").FieldSpec} */ ((FIELDS[this.system] ?? []).find((x) => x.name === name) ?? { name, type: "int" });
      return { name, label: labelOf(this.system, f, t), min: f.min ?? "", max: f.max ?? "" };
    });
  }

  /** @returns {Record<string, number>} a new row's values: the dialog's first field as set, the rest none */
  #partDefaults() {
    const [first, ...rest] = this.#partFields();
    /** @type {Record<string, number>} */
    const out = {};
    if (first) out[first.name] = Number(this.values[first.name] ?? 1) || 0;
    for (const c of rest) out[c.name] = 0;
    return out;
  }

  /** @returns {import("../lib/gather.mjs").Participant[]} the chosen players of a group check */
  #participants() {
    return (game.users?.filter((u) => !u.isGM) ?? [])
      .filter((u) => this.prep.players[u.id]?.checked ?? u.active)
      .map((u) => ({ name: partName(u), user: u.id, ...(this.prep.players[u.id] ?? this.#partDefaults()) }));
  }

  /** Post the request card. */
  async _submit() {
    const gathered = this.gathered;
    const participants = gathered && gathersGroup(this.system) ? this.#participants() : [];
    const users = (game.users?.filter((u) => !u.isGM) ?? []).filter((u) => this.prep.players[u.id]?.checked ?? u.active).map((u) => u.id);
    if ((gathered && gathersGroup(this.system) ? participants.length : gathered ? 1 : users.length) === 0) {
      ui.notifications?.warn(t("VERDICT.Request.noPlayers"));
      return;
    }
    const sides = gathered && sidesOf(this.system).length ? this.#sides() : {};
    try {
      await game.modules?.get(MODULE_ID)?.api?.postRequest({
        system: this.system, values: this.values, fromCharacter: this.leftToCharacter(), mode: this.mode, label: this.label, users, group: gathered,
        participants, trap: this.prep.trap, sides, scene: canvas?.scene?.id ?? game.scenes?.viewed?.id ?? null,
      });
    } catch (err) {
      ui.notifications?.error(`${t("VERDICT.Error.gm")}: ${/** @type {Error} */ (err).message}`);
      return;
    }
    await this.close();
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
}

/**
 * A participant's name in a group check: their character's, else the user's.
 * @param {User.Implementation} user
 * @returns {string}
 */
function partName(user) {
  return user.character?.name ?? user.name ?? user.id ?? "";
}
