/**
 * Typed look-ups of world documents. fvtt-types 13.345.1 types `game.actors.get` (and friends) with a
 * stored-document wrapper that drops the document's methods when no system is configured; these
 * helpers give the checker the document classes Foundry actually returns.
 */

/**
 * The actor a table actor id names: a world actor by its id, or an unlinked token's synthetic actor by the
 * token's uuid (see `actorKey`).
 * @param {string|null|undefined} id
 * @returns {Actor.Implementation|null}
 */
export function actorById(id) {
  if (!id) return null;
  if (id.includes(".")) {
    /** @typedef {{fromUuidSync?: (uuid: string) => {actor?: unknown}|null|undefined}} UuidLookup */
    const lookup = /** @type {UuidLookup} */ (globalThis).fromUuidSync ?? /** @type {UuidLookup} */ (/** @type {unknown} */ (foundry.utils)).fromUuidSync;
    let doc;
    try {
      doc = typeof lookup === "function" ? lookup(id) : null;
    } catch {
      doc = null;
    }
    return /** @type {Actor.Implementation|null} */ (doc?.actor ?? null);
  }
  return /** @type {Actor.Implementation|undefined} */ (/** @type {unknown} */ (game.actors?.get(id))) ?? null;
}

/**
 * What the module reads of an Actor to name it (a synthetic one's token among it).
 * @typedef {{id?: string|null, name?: string|null, isToken?: boolean, token?: {uuid?: string|null, name?: string|null}|null}} ActorLike
 */

/**
 * The id the table knows an actor by. A world actor (and a linked token's) is its own id; an unlinked token's
 * actor is synthetic (its `id` is the base actor's, shared by every token of it), so it is the token's uuid:
 * stable for that token, and different for each goblin on the map.
 * @param {ActorLike|null|undefined} actor  an Actor, possibly synthetic
 * @returns {string|null}
 */
export function actorKey(actor) {
  if (!actor) return null;
  if (actor.isToken && actor.token?.uuid) return String(actor.token.uuid);
  return actor.id ? String(actor.id) : null;
}

/**
 * The name to show for an actor: an unlinked token's own name (each goblin its own), else the actor's.
 * @param {ActorLike|null|undefined} actor
 * @returns {string|null}
 */
export function actorName(actor) {
  if (!actor) return null;
  if (actor.isToken && actor.token?.name) return String(actor.token.name);
  return actor.name ? String(actor.name) : null;
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
