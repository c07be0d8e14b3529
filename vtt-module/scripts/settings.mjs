/** Module settings: where the sidecar is, which table, the keys, the default rule set and the mode. */

import { MODULE_ID, TEMPLATES } from "./constants.mjs";
import { SYSTEMS } from "./lib/systems.mjs";
import { normaliseSidecarUrl } from "./lib/sidecar-url.mjs";
import { mappingFormClass } from "./apps/mapping-form.mjs";

/** Reconnect with the new settings, without a reload. */
function reconnect() {
  game.modules?.get(MODULE_ID)?.api?.client?.restart();
}

/** The last *Sidecar URL* saved that is one: what a refused paste is put back to. */
let savedSidecarUrl = "http://localhost:8765";

/**
 * The *Sidecar URL* as saved: what was pasted made the sidecar's base URL and saved so (a GM's client saves
 * it; that save calls this again, and then reconnects), or refused with a warning that says what it wants
 * and the last address that was one put back.
 * @param {string} value
 */
function sidecarUrlChanged(value) {
  const out = normaliseSidecarUrl(value);
  const gm = Boolean(game.user?.isGM);
  if (!out.ok) {
    if (gm) {
      const reason = game.i18n?.localize(`VERDICT.Settings.url.reason.${out.reason}`) ?? out.reason;
      ui.notifications?.warn(game.i18n?.format("VERDICT.Settings.url.refused", { given: value, reason }) ?? reason);
      void game.settings?.set(MODULE_ID, "url", savedSidecarUrl);
    }
    return;
  }
  if (out.url !== value) {
    if (gm) void game.settings?.set(MODULE_ID, "url", out.url);
    return;
  }
  savedSidecarUrl = out.url;
  reconnect();
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
    default: savedSidecarUrl,
    onChange: sidecarUrlChanged,
  });
  // The address saved before this session, if it is one (world settings are read from the world's data at init).
  try {
    const stored = normaliseSidecarUrl(String(settings.get(MODULE_ID, "url") ?? ""));
    if (stored.ok) savedSidecarUrl = stored.url;
  } catch {
    // not readable yet: the default stands until a valid address is saved
  }
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
  // The GM key: a user-scope setting (v13+), stored per world and per user, so two campaigns on one Foundry
  // server keep their own keys and a new hostname loses nothing. Never in Foundry's settings form (which
  // would draw it in clear): a menu of its own sets or clears it without showing it.
  settings.register(MODULE_ID, "gmKey", {
    name: "VERDICT.Settings.gmKey.name",
    hint: "VERDICT.Settings.gmKey.hint",
    scope: /** @type {any} */ ("user"), // v13+; fvtt-types 13.345.1 does not declare it
    config: false,
    type: String,
    default: "",
    onChange: reconnect,
  });
  settings.registerMenu(MODULE_ID, "gmKeyMenu", {
    name: "VERDICT.Settings.gmKey.name",
    label: "VERDICT.Settings.gmKey.label",
    hint: "VERDICT.Settings.gmKey.hint",
    icon: "fa-solid fa-key",
    type: gmKeyFormClass(),
    restricted: true,
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
  // Where check fields come from: rule set -> field -> a roll-data path or formula (see lib/mapping.mjs).
  settings.register(MODULE_ID, "mapping", {
    scope: "world",
    config: false,
    type: Object,
    default: {},
  });
  settings.registerMenu(MODULE_ID, "mappingMenu", {
    name: "VERDICT.Mapping.menu",
    label: "VERDICT.Mapping.menuLabel",
    hint: "VERDICT.Mapping.menuHint",
    icon: "fa-solid fa-link",
    type: mappingFormClass(),
    restricted: true,
  });
  settings.register(MODULE_ID, "skillsPath", {
    name: "VERDICT.Settings.skillsPath.name",
    hint: "VERDICT.Settings.skillsPath.hint",
    scope: "world",
    config: true,
    type: String,
    default: "",
  });
  settings.register(MODULE_ID, "system", {
    name: "VERDICT.Settings.system.name",
    hint: "VERDICT.Settings.system.hint",
    scope: "world",
    config: true,
    type: String,
    choices: Object.fromEntries(SYSTEMS.map((s) => [s, `VERDICT.System.${s}`])),
    default: SYSTEMS[0],
  });
}

/** Where older versions kept the GM key: this browser's storage for the whole server (client scope). */
const LEGACY_KEY = `${MODULE_ID}.gmKey`;

/**
 * Move a GM key kept by an older version (client scope, under the same storage key this setting had) into
 * this world's user setting, once: only into a world that has none yet, and then removed from the browser so
 * no other world picks it up. Call in `ready` (user settings can be written then).
 * @returns {Promise<boolean>} a key was moved
 */
export async function migrateGmKey() {
  const store = globalThis.localStorage;
  if (!game.user?.isGM || !store || !game.settings) return false;
  const raw = store.getItem(LEGACY_KEY);
  if (raw === null) return false;
  let old;
  try {
    old = String(JSON.parse(raw) ?? "");
  } catch {
    old = raw;
  }
  store.removeItem(LEGACY_KEY);
  if (!old || setting("gmKey")) return false;
  await game.settings.set(MODULE_ID, "gmKey", old);
  ui.notifications?.info(game.i18n?.localize("VERDICT.Settings.gmKey.migrated") ?? "");
  return true;
}

/** @type {any} */
let gmKeyForm = null;

/**
 * The GM key's form: says whether a key is set, takes a new one or clears it; never shows the key. Made on
 * first use (Foundry's application classes exist from `init`; this file is also loaded without them).
 * @returns {any}
 */
export function gmKeyFormClass() {
  if (gmKeyForm) return gmKeyForm;
  const { ApplicationV2, HandlebarsApplicationMixin } = foundry.applications.api;
  class GmKeyForm extends HandlebarsApplicationMixin(ApplicationV2) {
    static DEFAULT_OPTIONS = {
      id: "verdict-gm-key",
      tag: "form",
      classes: ["verdict-gm-key"],
      window: { title: "VERDICT.Settings.gmKey.name", icon: "fa-solid fa-key" },
      position: { width: 420 },
      form: { handler: GmKeyForm.#save, closeOnSubmit: false, submitOnChange: false },
      actions: { clear: GmKeyForm.#clear },
    };

    static PARTS = { form: { template: `${TEMPLATES}/gm-key.hbs` } };

    /**
     * @override
     * @returns {Promise<any>}
     */
    async _prepareContext() {
      return { isSet: Boolean(setting("gmKey")) };
    }

    /**
     * @this {GmKeyForm}
     * @param {Event|SubmitEvent} _event
     * @param {HTMLFormElement} form
     */
    static async #save(_event, form) {
      const input = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=key]"));
      const key = input?.value.trim() ?? "";
      if (input) input.value = "";
      if (!key) return;
      await game.settings?.set(MODULE_ID, "gmKey", key);
      await this.close();
    }

    /** @this {GmKeyForm} */
    static async #clear() {
      await game.settings?.set(MODULE_ID, "gmKey", "");
      await this.render();
    }
  }
  gmKeyForm = GmKeyForm;
  return gmKeyForm;
}

/**
 * @template {"url"|"table"|"playerKey"|"gmKey"|"mode"|"system"} K
 * @param {K} key
 * @returns {string}
 */
export function setting(key) {
  return String(game.settings?.get(MODULE_ID, key) ?? "");
}
