/**
 * Whether a drawn card is the sidecar's: who wrote it, whether the ledger backs what it shows, and the mark
 * an unbacked card carries.
 */

import { MODULE_ID } from "./constants.mjs";
import { make } from "./lib/dom.mjs";
import { t } from "./render.mjs";
import { timing } from "./lib/timings.mjs";
import { askLedger } from "./chat-asking.mjs";

/**
 * A result as text with its keys in order, so two copies of one result compare equal however they were built.
 * @param {unknown} value
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(/** @type {any} */ (value)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * May the card be the sidecar's at all? A card not written by a GM user or by the roller it names is not, nor
 * one without a check and a seq. Whether the ledger backs what it shows is asked of the ledger when it is
 * drawn (see `holdToLedger`).
 * @param {ChatMessage.Implementation} message
 * @param {Record<string, any>} card
 * @returns {boolean}
 */
export function verified(message, card) {
  const author = /** @type {any} */ (message).author ?? /** @type {any} */ (message).user;
  // The relay writes a card as its roller's (a self roll's roller writes their own shell): a card by anyone
  // else than a GM or the roller it names is not the sidecar's.
  const byRoller = Boolean(author?.id && author.id === card.user);
  if (!author?.isGM && !byRoller) return false;
  return Boolean(card.checkId) && typeof card.seq === "number";
}

/**
 * Does the ledger's word on a check back the card? Its faces must be the ledger's; a card its roller's user
 * wrote (a player may write a message with any flags) must show the ledger's whole result. A redacted card
 * holds a copy the asker's own differs from, so only its existence is held. Seqs are not compared: the
 * ledger numbers its answer in the asker's own numbering, the card carries the relay's.
 * @param {Record<string, any>} reply
 * @param {Record<string, any>} card
 * @param {boolean} strict
 * @returns {boolean}
 */
function ledgerBacks(reply, card, strict) {
  if (!reply.found) return false;
  if (!reply.result || card.redacted) return true;
  if (JSON.stringify(reply.result.dice ?? []) !== JSON.stringify(card.result?.dice ?? [])) return false;
  return !strict || canonical(reply.result) === canonical(card.result);
}

/**
 * Hold a drawn card to the ledger, and mark it only when the ledger really does not back it. The ledger answers
 * with the check as it now stands: a card drawn just before its own follow-up's document update lands shows an
 * older stage, so a mismatch is asked about once more a moment later, and the card is marked only if the
 * message still holds the same card and the ledger still disagrees (a newer card is drawn, and held, anew).
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 * @param {Record<string, any>} card
 * @param {import("./client.mjs").VerdictClient} client
 * @param {boolean} strict
 */
export function holdToLedger(message, html, card, client, strict) {
  const same = () => {
    const now = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "card"));
    return now?.checkId === card.checkId && now?.seq === card.seq;
  };
  const mark = () => {
    const el = /** @type {HTMLElement|null} */ (html.querySelector(".verdict-card"));
    if (el) markUnverified(el);
  };
  askLedger(client, card.checkId, card.seq ?? 0, html).then((reply) => {
    if (reply.result) client.known.set(card.checkId, JSON.stringify(reply.result.dice ?? []));
    if (ledgerBacks(reply, card, strict)) return;
    setTimeout(() => {
      if (!same() || client.status.state !== "open") return;
      client.request({ type: "verify", check: card.checkId }).then((again) => {
        if (same() && !ledgerBacks(again, card, strict)) mark();
      }).catch(() => {});
    }, timing("verifyRecheck"));
  }).catch(() => {});
}

/** @param {HTMLElement} root */
export function markUnverified(root) {
  root.classList.add("unverified");
  root.querySelectorAll("[data-roller-only], [data-gm-only]").forEach((el) => el.remove());
  if (root.querySelector(".verdict-unverified")) return;
  const badge = make(root, "p");
  badge.className = "verdict-unverified";
  badge.innerHTML = `<i class="fa-solid fa-triangle-exclamation"></i> ${t("VERDICT.Card.unverified")}`;
  root.prepend(badge);
}
