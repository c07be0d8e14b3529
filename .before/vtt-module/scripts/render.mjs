/** Template rendering across Foundry versions (v13 namespaces `renderTemplate`; v12 had a global). */

import { TEMPLATES } from "./constants.mjs";
import { buildCard, localizeCard } from "./lib/card-model.mjs";
import { actorById } from "./documents.mjs";

/**
 * @param {string} name  template file name under templates/
 * @param {Record<string, any>} data
 * @returns {Promise<string>}
 */
export async function render(name, data) {
  const path = `${TEMPLATES}/${name}`;
  const fn = foundry.applications?.handlebars?.renderTemplate ?? /** @type {any} */ (globalThis).renderTemplate;
  return fn(path, data);
}

/** @param {string} key */
export function t(key) {
  return game.i18n?.localize(key) ?? key;
}

/**
 * @param {string} key
 * @param {Record<string, string>} data
 */
export function tf(key, data) {
  return game.i18n?.format(key, data) ?? key;
}

/**
 * The card's HTML for one viewer.
 * @param {import("./lib/card-model.mjs").CardEntry} entry
 * @param {{isGM?: boolean, canFollow?: boolean, verified?: boolean|null}} opts
 */
export async function renderCard(entry, opts) {
  const actor = actorById(entry.actor);
  const model = localizeCard(buildCard(entry, { ...opts, actorName: actor?.name ?? null }), t);
  return render("chat-card.hbs", model);
}
