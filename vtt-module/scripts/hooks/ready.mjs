import { MODULE_ID } from "../constants.mjs";
import { isRelay } from "../client.mjs";
import { migrateGmKey } from "../settings.mjs";
import { showStatus } from "../status.mjs";
import { registerStatusEffects, syncActor, syncAll } from "../tokens.mjs";
import { actorById } from "../documents.mjs";
import { syncGathers } from "../requests.mjs";
import { followActiveScene } from "../scenes.mjs";

/** `ready`: connect, write cards (the relay), keep tokens in line with the table, show the status. */
export default async function ready() {
  const api = game.modules?.get(MODULE_ID)?.api;
  if (!api) return;
  registerStatusEffects();
  const client = api.client;
  client.on("status", showStatus);
  client.on("snapshot", (/** @type {Record<string, any>} */ snap) => {
    syncAll(snap);
    syncGathers(snap);
  });
  client.on("relay", () => {
    // A new relay brings the tokens and request cards in line with the table at once.
    if (isRelay() && client.snapshot) {
      syncAll(client.snapshot);
      syncGathers(client.snapshot);
    }
  });
  client.on("socket", (/** @type {Record<string, any>} */ data, /** @type {string} */ sender) => onSocket(data, sender));
  followActiveScene(client);
  showStatus(client.status);
  try {
    await migrateGmKey();
  } catch (err) {
    console.warn(`${MODULE_ID} | the GM key of an older version could not be moved`, err);
  }
  client.start();
}

/**
 * Module-socket frames users send the relay: a roll made for a request card, remembered dialog values,
 * a GM's "apply" from a browser that does not relay. The sender is the one Foundry names, never a field
 * of the frame.
 * @param {Record<string, any>} data
 * @param {string} sender
 */
function onSocket(data, sender) {
  if (!isRelay()) return;
  const api = game.modules?.get(MODULE_ID)?.api;
  const user = game.users?.get(sender);
  if (!user) return;
  if (data.t === "request-rolled" && typeof data.message === "string" && typeof data.check === "string") {
    const mode = typeof data.mode === "string" ? data.mode : null;
    api?.requestRolled(data.message, { check: data.check, outcome: data.outcome, mode, result: null }, sender);
  } else if (data.t === "defaults" && typeof data.system === "string") {
    // Only for an actor that user owns.
    const actor = actorById(data.actor);
    if (actor && actor.testUserPermission(user, "OWNER")) actor.setFlag(MODULE_ID, "defaults", { [data.system]: data.values });
  } else if (data.t === "apply" && user.isGM && Array.isArray(data.actors)) {
    const snap = api?.client.snapshot;
    for (const id of data.actors) if (typeof id === "string" && snap?.actors?.[id]) syncActor(id, snap.actors[id]);
  } else {
    console.warn(`${MODULE_ID} | dropped a "${String(data.t)}" frame from ${sender}`);
  }
}
