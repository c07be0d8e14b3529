/** Template rendering (v13+: `foundry.applications.handlebars.renderTemplate`). */

import { MODULE_ID, TEMPLATES } from "./constants.mjs";
import { buildCard, localizeCard } from "./lib/card-model.mjs";
import { inert } from "./lib/inert.mjs";
import { actorById, actorName } from "./documents.mjs";

/**
 * @param {string} name  template file name under templates/
 * @param {Record<string, any>} data
 * @returns {Promise<string>}
 */
export async function render(name, data) {
  return foundry.applications.handlebars.renderTemplate(`${TEMPLATES}/${name}`, data);
}

/**
 * Markup for a chat message's content: everything typed by a user shows literally, never as an inline
 * roll or a content link (see lib/inert.mjs).
 * @param {string} name
 * @param {Record<string, any>} data
 * @returns {Promise<string>}
 */
export async function renderMessage(name, data) {
  return inert(await render(name, data));
}

/** @param {string} key */
export function t(key) {
  return game.i18n?.localize(key) ?? key;
}

/**
 * An entry of the table by its id, as this viewer's client has seen it (see `VerdictClient.entryTexts`).
 * @param {string} id
 * @param {string} list
 * @returns {string|null}
 */
function entryText(id, list) {
  const client = game.modules?.get(MODULE_ID)?.api?.client;
  return client?.entryTexts?.get(list)?.get(id) ?? null;
}

/**
 * The card's HTML for one viewer at once, without awaiting a template: Foundry's `loadTemplates` (called at
 * `init`) registers each compiled template as a Handlebars partial named by its path. Null until it is.
 * @param {import("./lib/card-model.mjs").CardEntry} entry
 * @param {{isGM?: boolean, canFollow?: boolean, verified?: boolean|null}} opts
 * @returns {string|null}
 */
export function renderCardNow(entry, opts) {
  const compiled = /** @type {{Handlebars?: {partials?: Record<string, unknown>}}} */ (globalThis).Handlebars?.partials?.[`${TEMPLATES}/chat-card.hbs`];
  if (typeof compiled !== "function") return null;
  const actor = actorById(entry.actor);
  const model = localizeCard(buildCard(entry, { ...opts, actorName: actorName(actor), entryText }), t);
  return compiled(model, { allowProtoMethodsByDefault: true, allowProtoPropertiesByDefault: true });
}

/**
 * The card's HTML for one viewer.
 * @param {import("./lib/card-model.mjs").CardEntry} entry
 * @param {{isGM?: boolean, canFollow?: boolean, verified?: boolean|null}} opts
 */
export async function renderCard(entry, opts) {
  const actor = actorById(entry.actor);
  const model = localizeCard(buildCard(entry, { ...opts, actorName: actorName(actor), entryText }), t);
  return renderMessage("chat-card.hbs", model);
}
