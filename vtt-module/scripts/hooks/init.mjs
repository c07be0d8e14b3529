import { MODULE_ID, TEMPLATES } from "../constants.mjs";
import { VerdictApi } from "../api.mjs";
import { VerdictClient } from "../client.mjs";
import { registerSettings } from "../settings.mjs";
import { registerStatusEffects } from "../tokens.mjs";
import { watchCopies } from "../chat.mjs";
import { ChatCards } from "../relay/writer.mjs";
import { redrawSections } from "../sheet-section.mjs";
import { registerDiceTerms } from "../dice-terms.mjs";

/**
 * `init`: settings, status effects, templates, the API (so macros can find it from the start), and what chat
 * cards need (the typed dice as Foundry dice terms, for Dice So Nice): Foundry draws the messages it holds before `ready`, and each card drawn then is drawn again
 * when the client connects.
 */
export default function init() {
  registerSettings();
  registerStatusEffects();
  // Before Dice So Nice builds its dice (in its own `ready`) and before the presets are added.
  registerDiceTerms();
  foundry.applications.handlebars.loadTemplates([`${TEMPLATES}/chat-card.hbs`, `${TEMPLATES}/request-card.hbs`, `${TEMPLATES}/odds.hbs`]);
  const module = game.modules?.get(MODULE_ID);
  if (!module) return;
  const client = new VerdictClient();
  module.api = new VerdictApi(client, new ChatCards(client));
  watchCopies(client);
  // Sheets' Verdict sections follow the table's state as this viewer sees it.
  client.on("snapshot", redrawSections);
  client.on("status", redrawSections);
}
