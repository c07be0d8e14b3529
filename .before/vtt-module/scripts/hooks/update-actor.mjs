import { MODULE_ID } from "../constants.mjs";

/**
 * `updateActor`: when the strain flag changes, redraw that actor's tokens' counters.
 * @param {Actor.Implementation} actor
 * @param {Record<string, any>} changed
 */
export default function updateActor(actor, changed) {
  if (changed?.flags?.[MODULE_ID]?.strain === undefined) return;
  for (const token of actor.getActiveTokens()) /** @type {any} */ (token).renderFlags?.set({ refreshState: true });
}
