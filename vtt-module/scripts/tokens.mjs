/**
 * Tokens: the table's conditions, and each rule set's markers as its drawing declares them (a status effect
 * while a value is set, or a numeric badge drawn on the token). The active GM's client writes them from the
 * table snapshot's players' view (statuses, and each badge's value as an actor flag); others only draw. Tokens
 * and actor flags are world data every player's client loads: they show what every player may see (`public`,
 * which the sidecar adds to a GM's snapshot), never the GM's own view, which holds what GM-only and blind rolls
 * changed.
 */

import { MODULE_ID, STATUS } from "./constants.mjs";
import { isRelay } from "./client.mjs";
import { actorById } from "./documents.mjs";
import { isSet, markers, say } from "./lib/drawing.mjs";

/** The module's own icons, so its markers are not taken for Foundry's statuses (daze, blood, skull). */
const ICONS = `modules/${MODULE_ID}/icons`;

const { statuses: STATUSES, badges: BADGES } = markers();

/**
 * The statuses the sidecar owns, with their names (a label) and icons; registered with `hud: false` (the
 * table's state sets them, not a click on the token HUD). The table's conditions are the module's own; the
 * rest are the drawings' (an icon with a `/` is a path of its own, else one of the module's).
 * @type {Array<{id: string, label: {key: string, text: string}, img: string, field: string|null, defeated: boolean}>}
 */
const OWNED = [
  { id: STATUS.condition.id, label: { key: "VERDICT.Status.condition", text: "Condition" }, img: `${ICONS}/condition.svg`, field: null, defeated: false },
  ...STATUSES.map(({ field, marker }) => ({
    id: marker.id ?? `${MODULE_ID}-${field}`,
    label: marker.label,
    img: String(marker.icon ?? "").includes("/") ? String(marker.icon) : `${ICONS}/${marker.icon}`,
    field,
    defeated: Boolean(marker.defeated),
  })),
];

/**
 * A status's name: the key where the language has it (Foundry localizes `name` itself), else the English.
 * @param {{key: string, text: string}} label
 */
function statusName(label) {
  const i18n = /** @type {any} */ (globalThis).game?.i18n;
  return typeof i18n?.has === "function" && !i18n.has(label.key) && i18n.translations && Object.keys(i18n.translations).length ? label.text : label.key;
}

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
 * @param {(label: {key: string, text: string}) => string} [name]  the entry's name (its i18n key by default:
 *   Foundry localizes `name` itself)
 */
export function addStatuses(effects, name = (/** @type {{key: string, text: string}} */ l) => l.key) {
  let added = 0;
  for (const s of OWNED) {
    if (hasStatus(effects, s.id)) continue;
    const entry = { id: s.id, name: name(s.label), img: s.img, hud: false };
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
  const added = addStatuses(config.statusEffects, statusName);
  if (added && added < OWNED.length) console.info(`${MODULE_ID} | status effects re-registered after a rebuild of CONFIG.statusEffects`);
}

/**
 * The status a marker of the defeated sets: the one Foundry's combat tracker shows as defeated
 * (`CONFIG.specialStatusEffects.DEFEATED`, "dead" by default), else the marker's own.
 * @param {string} own
 * @returns {string}
 */
export function defeatedStatus(own) {
  const defeated = /** @type {any} */ (globalThis).CONFIG?.specialStatusEffects?.DEFEATED;
  const config = /** @type {any} */ (globalThis).CONFIG?.statusEffects;
  return typeof defeated === "string" && defeated && hasStatus(config, defeated) ? defeated : own;
}

/**
 * The actors as every player sees them: the `public` part of a GM's snapshot; from a sidecar whose snapshot
 * lacks it, what the relay's players' view (its player-key connection) is told now; else null (then nothing
 * may be written).
 * @param {Record<string, any>|null|undefined} snapshot
 * @returns {Promise<Record<string, Record<string, any>>|null>}
 */
export async function publicActors(snapshot) {
  const shown = snapshot?.public?.actors;
  if (shown && typeof shown === "object") return shown;
  const players = pageClient()?.playerView;
  if (!players) return null;
  try {
    const actors = (await players.request({ type: "state" }))?.snapshot?.actors;
    return actors && typeof actors === "object" ? actors : null;
  } catch {
    return null;
  }
}

/** @returns {any} the page's client of the sidecar, if it has one */
function pageClient() {
  return /** @type {any} */ (globalThis).game?.modules?.get(MODULE_ID)?.api?.client ?? null;
}

/**
 * Bring one actor's statuses and badge flags in line with the table's state for it as every player sees it: a
 * world actor by id, an unlinked token's synthetic actor by the token's uuid (its markers are that token's alone).
 * What is written is read from the client's snapshot's players' view, whatever view the caller holds.
 * @param {string} actorId
 * @param {Record<string, any>} [_seen]  the caller's view of the actor (its own: not what may be written)
 */
export async function syncActor(actorId, _seen) {
  if (!isRelay()) return;
  const actors = await publicActors(pageClient()?.snapshot);
  if (actors) await writeMarkers(actorId, actors[actorId] ?? {});
}

/**
 * Write one actor's statuses and badge flags from its state as every player sees it (none: no marker).
 * @param {string} actorId
 * @param {Record<string, any>} state  the players' view's ActorState
 */
async function writeMarkers(actorId, state) {
  const actor = actorById(actorId);
  if (!actor) return;
  /** @type {Record<string, boolean>} */
  const want = {};
  for (const s of OWNED) {
    const active = isSet(s.field === null ? state.conditions : state[s.field]);
    const id = s.defeated ? defeatedStatus(s.id) : s.id;
    want[id] = Boolean(want[id]) || active;
  }
  for (const [id, active] of Object.entries(want)) {
    if (actor.statuses.has(id) === active) continue;
    registerStatusEffects();
    await actor.toggleStatusEffect(id, { active });
  }
  // A badge's flag is named for its field, which the drawing gives: no flag type can list them.
  const flagged = /** @type {any} */ (actor);
  for (const { field } of BADGES) {
    const value = Number(state[field] ?? 0);
    if ((flagged.getFlag(MODULE_ID, field) ?? 0) !== value) await flagged.setFlag(MODULE_ID, field, value);
  }
}

/**
 * The actor flags a badge is drawn from (an update of one redraws the actor's tokens).
 * @returns {string[]}
 */
export function badgeFlags() {
  return BADGES.map((b) => b.field);
}

/**
 * Sync every actor the snapshot's players' view names, and every actor only the GM's view names (a hidden
 * roll's actor: it gets no marker).
 * @param {Record<string, any>|null} snapshot
 */
export async function syncAll(snapshot) {
  if (!snapshot || !isRelay()) return;
  const actors = await publicActors(snapshot);
  if (!actors) return;
  for (const id of new Set([...Object.keys(actors), ...Object.keys(snapshot?.actors ?? {})])) {
    try {
      await writeMarkers(id, actors[id] ?? {});
    } catch (err) {
      console.warn(`${MODULE_ID} | token sync failed for ${id}`, err);
    }
  }
}

/**
 * `refreshToken`: draw each badge marker with a value (a small counter at the token's top right, one under the
 * other) from the actor's flags.
 * @param {any} token  the Token placeable
 */
export function drawBadges(token) {
  let row = 0;
  for (const { field, marker } of BADGES) {
    const value = Number(token.actor?.getFlag(MODULE_ID, field) ?? 0);
    const name = marker.id ?? `${MODULE_ID}-${field}`;
    /** @type {any} */
    let badge = token.children?.find((/** @type {any} */ c) => c.name === name);
    if (!value) {
      if (badge) badge.visible = false;
      continue;
    }
    if (!badge) {
      const PIXIns = /** @type {any} */ (globalThis).PIXI;
      badge = new PIXIns.Text("", { fontFamily: "Signika", fontSize: 22, fill: marker.colour ?? "#ffd27a", stroke: "#000000", strokeThickness: 4, fontWeight: "bold" });
      badge.name = name;
      badge.anchor.set(1, 0);
      token.addChild(badge);
    }
    // Named, as the rule set names it: a bare number would read as anything.
    badge.text = `${say(marker.label, (k) => game.i18n?.localize(k) ?? k)} ${value}`;
    badge.position.set(token.w - 2, 2 + row * 26);
    badge.visible = true;
    row += 1;
  }
}
