import { MODULE_ID } from "../constants.mjs";
import { badgeFlags } from "../tokens.mjs";

/**
 * `updateActor`: when a flag a token badge is drawn from changes, redraw that actor's tokens.
 * @param {Actor.Implementation} actor
 * @param {Record<string, any>} changed
 */
export default function updateActor(actor, changed) {
  const flags = changed?.flags?.[MODULE_ID];
  if (!flags || !badgeFlags().some((f) => flags[f] !== undefined)) return;
  for (const token of actor.getActiveTokens()) /** @type {any} */ (token).renderFlags?.set({ refreshState: true });
}
