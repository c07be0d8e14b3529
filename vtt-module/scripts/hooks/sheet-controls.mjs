import { MODULE_ID } from "../constants.mjs";
import { actorKey } from "../documents.mjs";

/**
 * Open the roll dialog for a sheet's actor (a token's sheet: that token's synthetic actor).
 * @param {Actor.Implementation|null|undefined} actor
 */
function openFor(actor) {
  game.modules?.get(MODULE_ID)?.api?.roll({ actor: actorKey(actor) });
}

/**
 * `getActorSheetHeaderButtons` (ApplicationV1 sheets, e.g. Simple Worldbuilding's `SimpleActorSheet`, still
 * registered in v13 and v14): a "Verdict roll" button in the header, for owners.
 * @param {any} app  the V1 sheet
 * @param {Array<{label: string, class: string, icon: string, onclick: (ev: Event) => void}>} buttons
 */
export function getActorSheetHeaderButtons(app, buttons) {
  const actor = app?.actor ?? app?.document ?? app?.object ?? null;
  if (!actor?.isOwner || !Array.isArray(buttons) || buttons.some((b) => b.class === "verdict-roll")) return;
  buttons.unshift({ label: "VERDICT.Sheet.roll", class: "verdict-roll", icon: "fa-solid fa-dice-d20", onclick: () => openFor(actor) });
}

/**
 * `getHeaderControlsActorSheetV2` (v13): a "Verdict roll" entry in the sheet's header controls.
 * @param {foundry.applications.sheets.ActorSheetV2.Any} app
 * @param {foundry.applications.api.ApplicationV2.HeaderControlsEntry} entries  the array of entries (fvtt-types
 *   13.345.1 types it as one entry; Foundry passes the array)
 */
export function getHeaderControlsActorSheetV2(app, entries) {
  const controls = /** @type {foundry.applications.api.ApplicationV2.HeaderControlsEntry[]} */ (/** @type {unknown} */ (entries));
  const actions = /** @type {Record<string, unknown>} */ (app.options.actions);
  const sheet = /** @type {{actor?: Actor.Implementation|null, document?: Actor.Implementation|null}} */ (/** @type {unknown} */ (app));
  actions.verdictRoll ??= () => openFor(sheet.actor ?? sheet.document);
  if (controls.some((c) => c.action === "verdictRoll")) return;
  controls.unshift({ icon: "fa-solid fa-dice-d20", label: "VERDICT.Sheet.roll", action: "verdictRoll", ownership: "OWNER" });
}
