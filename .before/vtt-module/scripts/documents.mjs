/**
 * Typed look-ups of world documents. fvtt-types 13.345.1 types `game.actors.get` (and friends) with a
 * stored-document wrapper that drops the document's methods when no system is configured; these
 * helpers give the checker the document classes Foundry actually returns.
 */

/**
 * @param {string|null|undefined} id
 * @returns {Actor.Implementation|null}
 */
export function actorById(id) {
  if (!id) return null;
  return /** @type {Actor.Implementation|undefined} */ (/** @type {unknown} */ (game.actors?.get(id))) ?? null;
}

/**
 * @param {string|null|undefined} id
 * @returns {ChatMessage.Implementation|null}
 */
export function messageById(id) {
  if (!id) return null;
  return /** @type {ChatMessage.Implementation|undefined} */ (/** @type {unknown} */ (game.messages?.get(id))) ?? null;
}

/**
 * @param {(m: ChatMessage.Implementation) => boolean} predicate
 * @returns {ChatMessage.Implementation|null}
 */
export function findMessage(predicate) {
  const all = /** @type {Iterable<ChatMessage.Implementation>} */ (/** @type {unknown} */ (game.messages?.contents ?? []));
  for (const m of all) if (predicate(m)) return m;
  return null;
}
