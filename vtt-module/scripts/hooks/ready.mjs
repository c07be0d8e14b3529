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
  client.on("socket", (/** @type {import("../relay/relay.mjs").Frame} */ frame, /** @type {string} */ sender) => onSocket(frame, sender));
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
 * a GM's "apply" from a browser that does not relay. The relay's protocol (relay/relay.mjs) has already
 * checked each frame's version, its sender's right to send it, its fields' shapes, and that this page is
 * the relay; the sender is the one Foundry names, never a field of the frame.
 * @param {import("../relay/relay.mjs").Frame} frame
 * @param {string} sender
 */
function onSocket(frame, sender) {
  const api = game.modules?.get(MODULE_ID)?.api;
  const user = game.users?.get(sender);
  if (!api || !user) return;
  switch (frame.t) {
    case "request-rolled":
      api.requestRolled(frame.message, { check: frame.check, outcome: frame.outcome, mode: frame.mode, result: null }, sender);
      break;
    case "defaults": {
      // Only for an actor that user owns.
      const actor = actorById(frame.actor);
      if (actor && actor.testUserPermission(user, "OWNER")) actor.setFlag(MODULE_ID, "defaults", { [frame.system]: frame.values });
      break;
    }
    case "apply": {
      const snap = api.client.snapshot;
      for (const id of frame.actors) if (snap?.actors?.[id]) syncActor(id, snap.actors[id]);
      break;
    }
    default:
      console.warn(`${MODULE_ID} | dropped a "${String(frame.t)}" frame from ${sender}`);
  }
}
