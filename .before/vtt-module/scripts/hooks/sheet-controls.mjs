import { MODULE_ID } from "../constants.mjs";

/**
 * Open the roll dialog for a sheet's actor.
 * @param {Actor.Implementation|null|undefined} actor
 */
function openFor(actor) {
  game.modules?.get(MODULE_ID)?.api?.roll({ actor: actor?.id ?? null });
}

/**
 * `getHeaderControlsActorSheetV2` (v13): a "Verdict roll" entry in the sheet's header controls.
 * @param {foundry.applications.sheets.ActorSheetV2.Any} app
 * @param {foundry.applications.api.ApplicationV2.HeaderControlsEntry} entries  the array of entries (fvtt-types
 *   13.345.1 types it as one entry; Foundry passes the array)
 */
export function getHeaderControlsActorSheetV2(app, entries) {
  const controls = /** @type {foundry.applications.api.ApplicationV2.HeaderControlsEntry[]} */ (/** @type {unknown} */ (entries));
  const actions = /** @type {Record<string, any>} */ (app.options.actions);
  actions.verdictRoll ??= () => openFor(/** @type {any} */ (app).actor ?? /** @type {any} */ (app).document);
  if (controls.some((c) => c.action === "verdictRoll")) return;
  controls.unshift({ icon: "fa-solid fa-dice-d20", label: "VERDICT.Sheet.roll", action: "verdictRoll", ownership: "OWNER" });
}

/**
 * `getActorSheetHeaderButtons` (v12 sheets): the same as a header button.
 * @param {any} app
 * @param {Array<Record<string, any>>} buttons
 */
export function getActorSheetHeaderButtons(app, buttons) {
  if (!app.actor?.isOwner) return;
  buttons.unshift({ label: "VERDICT.Sheet.roll", class: "verdict-roll", icon: "fas fa-dice-d20", onclick: () => openFor(app.actor) });
}
