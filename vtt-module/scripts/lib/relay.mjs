/**
 * Who relays: exactly one browser holds the table's sidecar connections for the others and writes the
 * chat cards. Pure of Foundry (users are passed in) so node units drive it.
 * @module
 */

/**
 * @typedef {object} RelayUser
 * @property {string} id
 * @property {boolean} isGM
 * @property {boolean} active   connected now
 * @property {number} [role]    Foundry's user role (4 gamemaster, 3 assistant)
 */

/**
 * The relay's user id. Among the connected GMs whose browser has the GM key (they say so on the module
 * socket), the one Foundry's own rule would pick among them: highest role, then lowest id. When no
 * connected GM has the key, Foundry's active GM (who is then told how to connect), else nobody.
 * @param {Iterable<RelayUser>} users
 * @param {Set<string>} holders  GM users whose browser has the GM key
 * @param {string|null} activeGM Foundry's `game.users.activeGM?.id`
 * @returns {string|null}
 */
export function pickRelay(users, holders, activeGM) {
  const candidates = [...users].filter((u) => u.isGM && u.active && holders.has(u.id));
  candidates.sort((a, b) => (b.role ?? 0) - (a.role ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return candidates[0]?.id ?? activeGM ?? null;
}

/**
 * A frame from the module socket is the relay's only if Foundry names the relay as its sender. A `from`
 * field in the data is never read: anyone can write it.
 * @param {string|null|undefined} sender  the sender's user id, as Foundry passes it to the handler
 * @param {string|null} relay
 */
export function fromRelay(sender, relay) {
  return typeof sender === "string" && sender !== "" && relay !== null && sender === relay;
}
