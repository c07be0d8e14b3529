/**
 * Scenes. What the table keys by scene (the entries rule sets keep on a scene, which results add and remove)
 * is the GM's to place: the sidecar takes a player's roll in the table's active scene and refuses one naming any other. The table's
 * active scene follows Foundry's (the scene the GM activated for everyone): the relay tells the sidecar.
 */

import { isRelay } from "./client.mjs";

/**
 * The scene a roll from this browser names. A GM's: the scene they view (the GM may place a roll in any).
 * A player's: none, so the sidecar puts it in the table's active scene, the only one it accepts from them.
 * @returns {string|null}
 */
export function rollScene() {
  if (!game.user?.isGM) return null;
  return canvas?.scene?.id ?? game.scenes?.viewed?.id ?? null;
}

/**
 * The relay keeps the table's active scene on Foundry's: once the table's snapshot is in after the GM
 * connection opens (or this browser becomes the relay), and whenever the GM activates a scene. Only then:
 * an undo of the activation at the table is not fought over.
 * @param {import("./client.mjs").VerdictClient} client
 */
export function followActiveScene(client) {
  let due = true;
  const sync = () => {
    const active = game.scenes?.active?.id ?? null;
    const snapshot = client.snapshot;
    if (!due || !active || !snapshot || !client.own || !isRelay() || client.gmBlocked()) return;
    due = false;
    if (snapshot.scene === active) return;
    client.gm({ op: "scene_activate", scene: active }).catch((/** @type {Error} */ err) => {
      due = true;
      console.warn(`verdict | the table's active scene was not set: ${err.message}`);
    });
  };
  client.on("status", (/** @type {{state: string}} */ status) => {
    if (status.state !== "open") due = true; // the next snapshot after the connection is back
  });
  client.on("snapshot", sync);
  client.on("relay", () => {
    due = true;
    sync();
  });
  Hooks.on("updateScene", (/** @type {any} */ _scene, /** @type {Record<string, any>} */ changed) => {
    if (changed?.active !== true) return;
    due = true;
    sync();
  });
}
