import { MODULE_ID } from "../constants.mjs";
import { ChatCards } from "../chat.mjs";
import { isActiveGM } from "../client.mjs";
import { showStatus } from "../status.mjs";
import { syncAll } from "../tokens.mjs";
import { actorById } from "../documents.mjs";
import { syncGathers } from "../requests.mjs";

/** `ready`: connect, write cards (active GM), keep tokens in line with the table, show the status. */
export default function ready() {
  const api = game.modules?.get(MODULE_ID)?.api;
  if (!api) return;
  const client = api.client;
  api.cards = new ChatCards(client);
  client.on("status", showStatus);
  client.on("snapshot", (/** @type {Record<string, any>} */ snap) => {
    syncAll(snap);
    syncGathers(snap);
  });
  client.on("socket", (/** @type {Record<string, any>} */ data, /** @type {string|null} */ sender) => onSocket(data, sender));
  showStatus(client.status);
  client.start();
}

/**
 * Module-socket messages other than the relay's own: what players ask the active GM to write.
 * @param {Record<string, any>} data
 * @param {string|null} sender
 */
function onSocket(data, sender) {
  if (!isActiveGM()) return;
  const api = game.modules?.get(MODULE_ID)?.api;
  const from = sender ?? data.from;
  if (data.t === "request-rolled") {
    api?.requestRolled(data.message, { check: data.check, outcome: data.outcome, result: null }, from);
  } else if (data.t === "defaults") {
    // Only for an actor that user owns.
    const actor = actorById(data.actor);
    const user = game.users?.get(from);
    if (actor && user && actor.testUserPermission(user, "OWNER")) actor.setFlag(MODULE_ID, "defaults", { [data.system]: data.values });
  }
}
