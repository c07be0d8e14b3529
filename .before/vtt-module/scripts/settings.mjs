/** Module settings: where the sidecar is, which table, the keys, the default rule set and the mode. */

import { MODULE_ID } from "./constants.mjs";
import { SYSTEMS } from "./lib/systems.mjs";

/** Reconnect with the new settings, without a reload. */
function reconnect() {
  game.modules?.get(MODULE_ID)?.api?.client?.restart();
}

export function registerSettings() {
  const settings = game.settings;
  if (!settings) return;
  settings.register(MODULE_ID, "url", {
    name: "VERDICT.Settings.url.name",
    hint: "VERDICT.Settings.url.hint",
    scope: "world",
    config: true,
    type: String,
    default: "http://localhost:8765",
    onChange: reconnect,
  });
  settings.register(MODULE_ID, "table", {
    name: "VERDICT.Settings.table.name",
    hint: "VERDICT.Settings.table.hint",
    scope: "world",
    config: true,
    type: String,
    default: "",
    onChange: reconnect,
  });
  settings.register(MODULE_ID, "playerKey", {
    name: "VERDICT.Settings.playerKey.name",
    hint: "VERDICT.Settings.playerKey.hint",
    scope: "world",
    config: true,
    type: String,
    default: "",
    onChange: reconnect,
  });
  settings.register(MODULE_ID, "gmKey", {
    name: "VERDICT.Settings.gmKey.name",
    hint: "VERDICT.Settings.gmKey.hint",
    scope: "client",
    config: true,
    type: String,
    default: "",
    onChange: reconnect,
  });
  settings.register(MODULE_ID, "mode", {
    name: "VERDICT.Settings.mode.name",
    hint: "VERDICT.Settings.mode.hint",
    scope: "world",
    config: true,
    type: String,
    choices: { local: "VERDICT.Settings.mode.local", server: "VERDICT.Settings.mode.server" },
    default: "local",
    onChange: reconnect,
  });
  settings.register(MODULE_ID, "system", {
    name: "VERDICT.Settings.system.name",
    hint: "VERDICT.Settings.system.hint",
    scope: "world",
    config: true,
    type: String,
    choices: Object.fromEntries(SYSTEMS.map((s) => [s, `VERDICT.System.${s}`])),
    default: "facets",
  });
}

/**
 * @template {"url"|"table"|"playerKey"|"gmKey"|"mode"|"system"} K
 * @param {K} key
 * @returns {string}
 */
export function setting(key) {
  return String(game.settings?.get(MODULE_ID, key) ?? "");
}
