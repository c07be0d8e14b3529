/**
 * Tokens: conditions, wounds, scratches and taken down as status effects, strain as a counter drawn on
 * the token. The active GM's client writes them from the table snapshot; others only draw.
 */

import { MODULE_ID, STATUS } from "./constants.mjs";
import { isActiveGM } from "./client.mjs";
import { actorById } from "./documents.mjs";

/** Register the status effects (in `init`). */
export function registerStatusEffects() {
  const add = (/** @type {{id: string, img: string}} */ s, /** @type {string} */ name) => {
    if (CONFIG.statusEffects.some((e) => e.id === s.id)) return;
    CONFIG.statusEffects.push(/** @type {any} */ ({ id: s.id, name, img: s.img }));
  };
  add(STATUS.condition, "VERDICT.Status.condition");
  add(STATUS.wound, "VERDICT.Status.wound");
  add(STATUS.scratch, "VERDICT.Status.scratch");
  add(STATUS.takenDown, "VERDICT.Status.takenDown");
}

/**
 * Bring one actor's statuses and strain flag in line with the table's state for it.
 * @param {string} actorId
 * @param {Record<string, any>} state  the snapshot's ActorState
 */
export async function syncActor(actorId, state) {
  if (!isActiveGM()) return;
  const actor = actorById(actorId);
  if (!actor) return;
  const want = {
    [STATUS.condition.id]: (state.conditions ?? []).length > 0,
    [STATUS.wound.id]: (state.wounds ?? 0) > 0,
    [STATUS.scratch.id]: (state.scratches ?? 0) > 0,
    [STATUS.takenDown.id]: Boolean(state.taken_down),
  };
  for (const [id, active] of Object.entries(want)) {
    if (actor.statuses.has(id) !== active) await actor.toggleStatusEffect(id, { active });
  }
  const strain = Number(state.strain ?? 0);
  if ((actor.getFlag(MODULE_ID, "strain") ?? 0) !== strain) await actor.setFlag(MODULE_ID, "strain", strain);
}

/**
 * Sync every actor the snapshot names.
 * @param {Record<string, any>|null} snapshot
 */
export async function syncAll(snapshot) {
  if (!snapshot || !isActiveGM()) return;
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
  badge.text = `⚡${strain}`;
  badge.position.set(token.w - 2, 2);
  badge.visible = true;
}
