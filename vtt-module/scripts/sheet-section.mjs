/**
 * The "Verdict" section of an actor sheet (ApplicationV1 and V2, v13 and v14): the character's named skills,
 * each with a roll button (shift-click rolls at once with the character's numbers), and the character's state
 * at the table (strain, conditions, wounds, scratches, facets, Wyrd Points, game changers, taken down, open
 * extended checks) as this viewer's own view of the table has it, kept current as it changes.
 */

import { MODULE_ID } from "./constants.mjs";
import { actorKey } from "./documents.mjs";
import { elementOf, make } from "./lib/dom.mjs";
import { Drawn } from "./lib/drawn.mjs";
import { rollData, skillsBase } from "./character.mjs";
import { SYSTEMS, UNNAMED_CONDITION, systemOf } from "./lib/systems.mjs";
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

/**
 * What of the table's state for a character the world's rule set has: its results' fields (as its card's
 * facts read them) and the resource its checks spend. A stat the rule set does not have is left out unless
 * the table holds some of it for the character (set by hand, or from a roll of another rule set).
 * @returns {Set<string>}
 */
function statsOfWorld() {
  const sys = systemOf(setting("system") || SYSTEMS[0]);
  const fields = new Set((sys.facts ?? []).map((/** @type {{when?: string, key: unknown}} */ f) => String(f.when ?? f.key).split(/[.[]/)[0]));
  const stats = new Set();
  if (fields.has("strain")) stats.add("strain");
  if (fields.has("condition") || fields.has("harm")) stats.add("conditions");
  if (fields.has("harm")) stats.add("wounds").add("scratches");
  if (fields.has("game_changers")) stats.add("game_changers");
  if (fields.has("facet")) stats.add("facet");
  if (sys.spends?.resource) stats.add(String(sys.spends.resource));
  return stats;
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
  const has = statsOfWorld();
  if (has.has("strain") || state.strain) row("strain", t("VERDICT.Sheet.strain"), String(state.strain ?? 0));
  const conditions = /** @type {Array<{text: string}>} */ (state.conditions ?? []);
  if (has.has("conditions") || conditions.length) row("conditions", t("VERDICT.Sheet.conditions"), conditions.length ? conditions.map((c) => (c.text === UNNAMED_CONDITION ? t("VERDICT.Tracker.unnamedCondition") : c.text)).join(", ") : none);
  if (has.has("wounds") || state.wounds) row("wounds", t("VERDICT.Sheet.wounds"), String(state.wounds ?? 0));
  if (has.has("scratches") || state.scratches) row("scratches", t("VERDICT.Sheet.scratches"), String(state.scratches ?? 0));
  const facets = /** @type {Array<{facet: string}>} */ (state.facets ?? []);
  if (facets.length) row("facet", t("VERDICT.Sheet.facets"), facets.map((f) => f.facet).join(", "));
  if (has.has("wyrd") || state.wyrd) row("wyrd", t("VERDICT.Sheet.wyrd"), String(state.wyrd ?? 0));
  if (has.has("game_changers") || state.game_changers) row("game_changers", t("VERDICT.Sheet.gameChangers"), String(state.game_changers ?? 0));
  if (state.taken_down) row("taken_down", t("VERDICT.Sheet.takenDown"), t("VERDICT.Yes"));
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
