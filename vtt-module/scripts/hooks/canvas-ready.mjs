import { MODULE_ID } from "../constants.mjs";
import { registerStatusEffects, syncAll } from "../tokens.mjs";

/** `canvasReady`: statuses again (some systems rebuild the list here), then the markers from the table. */
export default function canvasReady() {
  registerStatusEffects();
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  if (client?.snapshot) syncAll(client.snapshot);
}
