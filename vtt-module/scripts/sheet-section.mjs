/**
 * The "Verdict" section of an actor sheet (ApplicationV1 and V2, v13 and v14): the character's named skills,
 * each with a roll button (shift-click rolls at once with the character's numbers), and the character's state
 * at the table (its conditions, each rule set's numbers, flags and lists as its drawing declares them, open
 * extended checks) as this viewer's own view of the table has it, kept current as it changes.
 */

import { MODULE_ID } from "./constants.mjs";
import { actorKey } from "./documents.mjs";
import { elementOf, make } from "./lib/dom.mjs";
import { Drawn } from "./lib/drawn.mjs";
import { rollData, skillsBase } from "./character.mjs";
import { SYSTEMS, UNNAMED_CONDITION } from "./lib/systems.mjs";
import { sheetRows, showsConditions } from "./lib/drawing.mjs";
import { setting } from "./settings.mjs";

/** @param {string} key */
const t = (key) => game.i18n?.localize(key) ?? key;

/** @type {Drawn<{actor: any}>} actor key -> every section drawn for it */
const sections = new Drawn();

/**
 * The world's named skills for an actor: the children of the roll-data path the world names (setting
 * `skillsPath`, e.g. `skills`), each with its label and value.
 * @param {any} actor
 * @returns {Array<{key: string, label: string, value: number|null, path: string}>}
 */
export function skillsOf(actor) {
  const base = skillsBase();
  if (!base) return [];
  const node = base.split(".").reduce((/** @type {any} */ o, k) => (o && typeof o === "object" ? o[k] : undefined), rollData(actor));
  if (!node || typeof node !== "object") return [];
  return Object.entries(node).map(([key, v]) => {
    const raw = v && typeof v === "object" ? /** @type {any} */ (v).value : v;
    const value = Number(raw);
    const label = v && typeof v === "object" && typeof (/** @type {any} */ (v).label) === "string" ? /** @type {any} */ (v).label : key;
    return { key, label, value: Number.isFinite(value) ? value : null, path: `@${base}.${key}` };
  });
}

/**
 * `renderActorSheet` (V1, a jQuery-like wrapper) and `renderActorSheetV2` (an element): add or redraw the section.
 * @param {any} app
 * @param {unknown} html
 */
export function renderSheetSection(app, html) {
  const root = elementOf(html) ?? elementOf(app?.element);
  const actor = app?.actor ?? app?.document ?? app?.object ?? null;
  if (!root || !actor) return;
  const key = actorKey(actor);
  if (!key) return;
  // A V1 sheet's first render hook gets the whole window, later ones its form: the section is looked for, and
  // placed, in the sheet's own body either way.
  const sheet = /** @type {HTMLElement} */ (root.closest(".app, .application, .window-app") ?? root);
  let section = /** @type {HTMLElement|null} */ (sheet.querySelector(".verdict-sheet"));
  if (!section) {
    section = make(root, "section");
    section.className = "verdict verdict-sheet";
    section.setAttribute("aria-label", t("VERDICT.Sheet.section"));
  }
  place(sheet, section);
  follow(sheet, section);
  section.dataset.actor = key;
  sections.add(key, section, { actor });
  drawSection(section, actor);
}

/**
 * Where the section goes in a sheet: in its form (a V1 sheet's `<form>` inside the window content, a V2
 * sheet that is the form itself), in the active tab's body where the sheet has tabs, else in the sheet's
 * body, else at the end of the form.
 * @param {HTMLElement} sheet  the sheet's window
 * @returns {HTMLElement}
 */
function placeOf(sheet) {
  const content = /** @type {HTMLElement} */ (sheet.querySelector(".window-content") ?? sheet);
  const form = /** @type {HTMLElement} */ (sheet.tagName === "FORM" ? sheet : content.querySelector("form") ?? content);
  const tab = /** @type {HTMLElement|null} */ (form.querySelector(".tab.active[data-tab]"));
  if (tab) return tab;
  return /** @type {HTMLElement|null} */ (form.querySelector(".sheet-body")) ?? form;
}

/**
 * @param {HTMLElement} sheet
 * @param {HTMLElement} section
 */
function place(sheet, section) {
  const where = placeOf(sheet);
  if (section.parentElement !== where || where.lastElementChild !== section) where.append(section);
}

/**
 * On a tabbed sheet, the section follows the tab the user opens (a tab switch renders nothing again).
 * @param {HTMLElement} sheet
 * @param {HTMLElement} section
 */
function follow(sheet, section) {
  if (sheet.dataset.verdictFollows) return;
  sheet.dataset.verdictFollows = "1";
  sheet.addEventListener("click", (ev) => {
    if (!(/** @type {HTMLElement} */ (ev.target)).closest?.("[data-tab]")) return;
    setTimeout(() => {
      const current = /** @type {HTMLElement|null} */ (sheet.querySelector(".verdict-sheet")) ?? section;
      if (current.isConnected) place(sheet, current);
    }, 0);
  });
}

/** Draw every section on screen again (the table's state changed). */
export function redrawSections() {
  for (const key of sections.keys()) for (const { el, value } of sections.live(key)) drawSection(/** @type {HTMLElement} */ (/** @type {unknown} */ (el)), value.actor);
}

/**
 * @param {HTMLElement} section
 * @param {any} actor
 */
function drawSection(section, actor) {
  const key = actorKey(actor) ?? "";
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  const snap = client?.snapshot ?? null;
  const state = /** @type {Record<string, any>} */ (snap?.actors?.[key] ?? {});
  const h = make(section, "h3");
  h.textContent = t("VERDICT.Sheet.section");
  const list = make(section, "dl");
  list.className = "verdict-sheet-state";
  /** @param {string} stat @param {string} label @param {string} text */
  const row = (stat, label, text) => {
    const dt = make(list, "dt");
    dt.textContent = label;
    const dd = make(list, "dd");
    dd.dataset.stat = stat;
    dd.textContent = text;
    list.append(dt, dd);
  };
  const none = t("VERDICT.Sheet.none");
  const world = setting("system") || SYSTEMS[0];
  // The table's conditions where the world's rule set adds them (or the character holds some); then each
  // rule set's part as its drawing says.
  const conditions = /** @type {Array<{text: string}>} */ (state.conditions ?? []);
  if (showsConditions(world) || conditions.length) row("conditions", t("VERDICT.Sheet.conditions"), conditions.length ? conditions.map((c) => (c.text === UNNAMED_CONDITION ? t("VERDICT.Tracker.unnamedCondition") : c.text)).join(", ") : none);
  for (const drawn of sheetRows(state, world, t)) row(drawn.stat, drawn.label, drawn.text);
  const open = Object.values(/** @type {Record<string, any>} */ (snap?.extended ?? {})).filter((x) => x.actor === key && x.status === "in_progress");
  if (open.length) row("extended", t("VERDICT.Sheet.extended"), open.map((x) => `${x.name} ${x.progress}/${x.threshold}`).join(", "));
  if (!snap) row("offline", t("VERDICT.Sheet.noTable"), client?.status.reason ?? t("VERDICT.Status.offline"));

  const skills = skillsOf(actor);
  const buttons = make(section, "ul");
  buttons.className = "verdict-sheet-skills";
  buttons.setAttribute("aria-label", t("VERDICT.Sheet.skills"));
  for (const skill of skills) {
    const li = make(buttons, "li");
    const b = make(li, "button");
    b.type = "button";
    b.dataset.skill = skill.key;
    b.draggable = true;
    b.innerHTML = `<i class="fa-solid fa-dice-d20" aria-hidden="true"></i> `;
    b.append(skill.label);
    if (skill.value !== null) {
      const v = make(b, "span");
      v.className = "verdict-skill-value";
      v.textContent = String(skill.value);
      b.append(" ", v);
    }
    b.addEventListener("click", (ev) => rollSkill(actor, skill.key, /** @type {MouseEvent} */ (ev).shiftKey));
    b.addEventListener("dragstart", (ev) => {
      const data = { type: "Verdict", actor: key, system: null, skill: skill.key, values: {} };
      ev.dataTransfer?.setData("text/plain", JSON.stringify(data));
    });
    li.append(b);
    buttons.append(li);
  }
  const hint = make(section, "p");
  hint.className = "hint verdict-sheet-hint";
  hint.textContent = t("VERDICT.Sheet.skillHint");
  const parts = list.childElementCount ? [h, list] : [h];
  section.replaceChildren(...parts, ...(skills.length ? [buttons, hint] : []));
}

/**
 * A skill's roll: the dialog prefilled from the character (the mapping may name the skill as `@skill`), or at
 * once with those values on shift-click.
 * @param {any} actor
 * @param {string} skill
 * @param {boolean} now
 */
export function rollSkill(actor, skill, now) {
  const api = game.modules?.get(MODULE_ID)?.api;
  return api?.roll({ actor: actorKey(actor), skill, dialog: now ? false : undefined, label: skillsOf(actor).find((s) => s.key === skill)?.label ?? skill });
}
