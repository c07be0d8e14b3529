/**
 * The public API: `game.modules.get("verdict").api`. Macros call `api.roll({...})`.
 */

import { MODULE_ID } from "./constants.mjs";
import { RollDialog } from "./apps/roll-dialog.mjs";
import { RequestDialog } from "./apps/request-dialog.mjs";
import { Tracker } from "./apps/tracker.mjs";
import { isRelay } from "./client.mjs";
import { sendFrame } from "./relay/relay.mjs";
import { SYSTEMS, buildCheck, defaults } from "./lib/systems.mjs";
import { t } from "./render.mjs";
import { postRequest, requestRolled } from "./requests.mjs";
import { setting } from "./settings.mjs";
import { actorById, actorName } from "./documents.mjs";
import { fieldsFromActor } from "./character.mjs";
import { rollScene } from "./scenes.mjs";

/**
 * @typedef {object} RollRequest
 * @property {string|null} [actor]         actor id (default: the user's character)
 * @property {string} [system]             rule set (default: the world's)
 * @property {Record<string, any>} [values] field values
 * @property {string} [mode]               "public" | "gm" | "blind" | "self"
 * @property {string|null} [label]
 * @property {boolean} [dialog]            false: roll at once without the dialog
 * @property {string|null} [skill]          one of the world's named skills (the mapping's `@skill`)
 */

export class VerdictApi {
  /**
   * @param {import("./client.mjs").VerdictClient} client
   * @param {import("./relay/writer.mjs").ChatCards|null} cards
   */
  constructor(client, cards) {
    this.client = client;
    this.cards = cards;
    this.RollDialog = RollDialog;
    this.Tracker = Tracker;
  }

  /**
   * Open the roll dialog (or roll at once with `dialog: false`). Resolves with the dialog, or the
   * `rolled` reply.
   * @param {RollRequest} [req]
   */
  async roll(req = {}) {
    const actor = req.actor ?? game.user?.character?.id ?? null;
    if (req.dialog === false) {
      const system = req.system ?? (setting("system") || SYSTEMS[0]);
      const actorDoc = actorById(actor);
      const remembered = /** @type {Record<string, any>} */ (actorDoc?.getFlag(MODULE_ID, "defaults")?.[system] ?? {});
      const values = { ...defaults(system), ...remembered, ...fieldsFromActor(system, actorDoc, undefined, req.skill ?? null).values, ...(req.values ?? {}) };
      return this.client.roll({
        check: buildCheck(system, values), actor, mode: req.mode ?? "public", label: req.label ?? null,
        scene: rollScene(),
      });
    }
    const dialog = new RollDialog({ actor, system: req.system, values: req.values, mode: req.mode, label: req.label ?? null, skill: req.skill ?? null });
    await dialog.render({ force: true });
    return dialog;
  }

  /** GM: open the dialog that prepares a roll request for players. */
  async prepareRequest() {
    const dialog = new RequestDialog();
    await dialog.render({ force: true });
    return dialog;
  }

  openTracker() {
    return Tracker.open();
  }

  /**
   * Remember a roll's values on the actor. Only the active GM writes documents: a player's client asks it.
   * @param {string|null} actorId
   * @param {string} system
   * @param {Record<string, any>} values
   */
  rememberDefaults(actorId, system, values) {
    if (!actorId) return;
    if (isRelay()) {
      actorById(actorId)?.setFlag(MODULE_ID, "defaults", { [system]: values });
    } else {
      sendFrame("defaults", { actor: actorId, system, values });
    }
  }

  /**
   * A hotbar macro that opens the dialog for this actor, rule set and values: one macro per check shape (the
   * same shape again reuses this user's macro), in the slot given or the first free one. Where this user may
   * not create script macros (the world's MACRO_SCRIPT permission), a notification says so.
   * @param {{actor: string|null, system: string, values?: Record<string, any>, slot?: number, skill?: string|null}} opts
   */
  async createMacro(opts) {
    const actor = actorById(opts.actor);
    const name = `${t("VERDICT.Macro.name")}${actor ? `: ${actorName(actor)}` : ""}${opts.skill ? ` (${opts.skill})` : ""}`;
    const args = JSON.stringify({ actor: opts.actor ?? null, system: opts.system, values: opts.values ?? {}, ...(opts.skill ? { skill: opts.skill } : {}) });
    const command = `game.modules.get("${MODULE_ID}").api.roll(${args});`;
    const me = game.user?.id ?? null;
    const mine = /** @type {any[]} */ ([...(/** @type {any} */ (game).macros?.contents ?? [])]);
    let macro = mine.find((m) => m.command === command && (m.author?.id ?? m.author) === me) ?? null;
    try {
      if (!macro) {
        if (!(/** @type {{can?: (permission: string) => boolean}|null|undefined} */ (game.user))?.can?.("MACRO_SCRIPT")) {
          ui.notifications?.warn(t("VERDICT.Macro.notAllowed"));
          return null;
        }
        macro = await Macro.create({ name, type: "script", command, img: "icons/svg/dice-target.svg" });
      }
      if (macro) await game.user?.assignHotbarMacro(macro, opts.slot);
      return macro;
    } catch (err) {
      ui.notifications?.error(`${t("VERDICT.Macro.failed")}: ${/** @type {Error} */ (err).message}`);
      return null;
    }
  }

  /**
   * GM: post a prepared check to chosen players as a card with a Roll button; a gathered check (one whose
   * rule set's vocabulary says how it gathers: a group check, an opposed check) is started on the table first.
   * @param {import("./requests.mjs").RequestSpec} req
   */
  postRequest(req) {
    return postRequest(this.client, req);
  }

  /**
   * A participant rolled for a (not gathered) request card: the active GM records it on the card.
   * @param {string} messageId
   * @param {Record<string, any>} rolled
   * @param {string|null} [userId]
   */
  requestRolled(messageId, rolled, userId = game.user?.id ?? null) {
    return requestRolled(this.cards, messageId, rolled, userId);
  }
}

/**
 * `hotbarDrop`: a prepared check dragged from the roll dialog onto the hotbar becomes (or reuses) its macro in
 * that slot. Returns false for our drops so Foundry does not handle them too.
 * @param {unknown} _bar
 * @param {Record<string, any>} data
 * @param {number} slot
 */
export function hotbarDrop(_bar, data, slot) {
  if (data?.type !== "Verdict") return true;
  const system = typeof data.system === "string" ? data.system : setting("system") || SYSTEMS[0];
  const skill = typeof data.skill === "string" ? data.skill : null;
  const api = game.modules?.get(MODULE_ID)?.api;
  api?.createMacro({ actor: typeof data.actor === "string" ? data.actor : null, system, values: data.values ?? {}, slot, skill });
  return false;
}
