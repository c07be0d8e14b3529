import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { VerdictApi } from "../api.mjs";
import { VerdictClient } from "../client.mjs";
import { registerSettings } from "../settings.mjs";
import { registerStatusEffects } from "../tokens.mjs";

/** `init`: settings, status effects, templates, and the API (so macros can find it from the start). */
export default function init() {
  registerSettings();
  registerStatusEffects();
  const load = foundry.applications?.handlebars?.loadTemplates ?? /** @type {any} */ (globalThis).loadTemplates;
  load?.([`${TEMPLATES}/chat-card.hbs`, `${TEMPLATES}/request-card.hbs`, `${TEMPLATES}/odds.hbs`]);
  const module = game.modules?.get(MODULE_ID);
  if (module) module.api = new VerdictApi(new VerdictClient(), null);
}
