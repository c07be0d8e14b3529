/**
 * Tokens: conditions, wounds, scratches and taken down as status effects, strain as a counter drawn on
 * the token. The active GM's client writes them from the table snapshot; others only draw.
 */

import { MODULE_ID, STATUS } from "./constants.mjs";
import { isRelay } from "./client.mjs";
import { actorById } from "./documents.mjs";

/** The module's own icons, so its markers are not taken for Foundry's statuses (daze, blood, skull). */
const ICONS = `modules/${MODULE_ID}/icons`;

/**
 * The statuses the sidecar owns, with their names and icons; registered with `hud: false` (the table's state
 * sets them, not a click on the token HUD).
 * @type {Array<[{id: string}, string, string]>}
 */
const OWNED = [
  [STATUS.condition, "VERDICT.Status.condition", `${ICONS}/condition.svg`],
  [STATUS.wound, "VERDICT.Status.wound", `${ICONS}/wound.svg`],
  [STATUS.scratch, "VERDICT.Status.scratch", `${ICONS}/scratch.svg`],
  [STATUS.takenDown, "VERDICT.Status.takenDown", `${ICONS}/taken-down.svg`],
];

/**
 * Is a status registered? v13 keeps `CONFIG.statusEffects` as an array of entries; v14 (and systems that
 * replace it) as an object keyed by id.
 * @param {any} effects
 * @param {string} id
 */
export function hasStatus(effects, id) {
  if (Array.isArray(effects)) return effects.some((e) => e?.id === id);
  return Boolean(effects && typeof effects === "object" && effects[id]);
}

/**
 * Add the sidecar's statuses to a status list of either shape; returns how many were missing. Pure of
 * Foundry (the list is passed in) so node units drive it.
 * @param {any} effects  `CONFIG.statusEffects`
 * @param {(key: string) => string} [name]  the entry's name (Foundry localizes `name` itself)
 */
export function addStatuses(effects, name = (k) => k) {
  let added = 0;
  for (const [s, key, img] of OWNED) {
    if (hasStatus(effects, s.id)) continue;
    const entry = { id: s.id, name: name(key), img, hud: false };
    if (Array.isArray(effects)) effects.push(entry);
    else effects[s.id] = entry;
    added += 1;
  }
  return added;
}

/**
 * Register the status effects: in `init`, and again in `setup`, `canvasReady` and before every toggle,
 * because systems may rebuild `CONFIG.statusEffects` after `init` and drop what modules added.
 */
export function registerStatusEffects() {
  const config = /** @type {any} */ (globalThis).CONFIG;
  if (!config) return;
  if (!config.statusEffects || typeof config.statusEffects !== "object") config.statusEffects = [];
  const added = addStatuses(config.statusEffects);
  if (added && added < OWNED.length) console.info(`${MODULE_ID} | status effects re-registered after a rebuild of CONFIG.statusEffects`);
}

/**
 * The status "taken down" sets: the one Foundry's combat tracker shows as defeated
 * (`CONFIG.specialStatusEffects.DEFEATED`, "dead" by default), else the module's own.
 * @returns {string}
 */
export function takenDownStatus() {
  const defeated = /** @type {any} */ (globalThis).CONFIG?.specialStatusEffects?.DEFEATED;
  const config = /** @type {any} */ (globalThis).CONFIG?.statusEffects;
  return typeof defeated === "string" && defeated && hasStatus(config, defeated) ? defeated : STATUS.takenDown.id;
}

/**
 * Bring one actor's statuses and strain flag in line with the table's state for it: a world actor by id, an
 * unlinked token's synthetic actor by the token's uuid (its markers are that token's alone).
 * @param {string} actorId
 * @param {Record<string, any>} state  the snapshot's ActorState
 */
export async function syncActor(actorId, state) {
  if (!isRelay()) return;
  const actor = actorById(actorId);
  if (!actor) return;
  const want = {
    [STATUS.condition.id]: (state.conditions ?? []).length > 0,
    [STATUS.wound.id]: (state.wounds ?? 0) > 0,
    [STATUS.scratch.id]: (state.scratches ?? 0) > 0,
    [takenDownStatus()]: Boolean(state.taken_down),
  };
  for (const [id, active] of Object.entries(want)) {
    if (actor.statuses.has(id) === active) continue;
    registerStatusEffects();
    await actor.toggleStatusEffect(id, { active });
  }
  const strain = Number(state.strain ?? 0);
  if ((actor.getFlag(MODULE_ID, "strain") ?? 0) !== strain) await actor.setFlag(MODULE_ID, "strain", strain);
}

/**
 * Sync every actor the snapshot names.
 * @param {Record<string, any>|null} snapshot
 */
export async function syncAll(snapshot) {
  if (!snapshot || !isRelay()) return;
  for (const [id, state] of Object.entries(snapshot.actors ?? {})) {
    try {
      await syncActor(id, /** @type {Record<string, any>} */ (state));
    } catch (err) {
      console.warn(`${MODULE_ID} | token sync failed for ${id}`, err);
    }
  }
}

/**
 * `refreshToken`: draw the strain counter (a small badge at the token's top right) from the actor flag.
 * @param {any} token  the Token placeable
 */
export function drawStrain(token) {
  const strain = Number(token.actor?.getFlag(MODULE_ID, "strain") ?? 0);
  /** @type {any} */
  let badge = token.children?.find((/** @type {any} */ c) => c.name === "verdict-strain");
  if (!strain) {
    if (badge) badge.visible = false;
    return;
  }
  if (!badge) {
    const PIXIns = /** @type {any} */ (globalThis).PIXI;
    badge = new PIXIns.Text("", { fontFamily: "Signika", fontSize: 22, fill: "#ffd27a", stroke: "#000000", strokeThickness: 4, fontWeight: "bold" });
    badge.name = "verdict-strain";
    badge.anchor.set(1, 0);
    token.addChild(badge);
  }
  // Named, as the rule set names it: a bare bolt would read as energy.
  badge.text = `${game.i18n?.localize("VERDICT.Status.strain") ?? "Strain"} ${strain}`;
  badge.position.set(token.w - 2, 2);
  badge.visible = true;
}
