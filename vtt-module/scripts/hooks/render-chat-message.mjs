import { MODULE_ID } from "../constants.mjs";
import { decorateMessage, trackMessage } from "../chat.mjs";
import { decorateRequest } from "../requests.mjs";
import { elementOf } from "../lib/dom.mjs";

/**
 * `renderChatMessageHTML` (v13+), registered at import: Foundry calls it for the messages it already holds
 * during UI set-up, before `ready`; everything it needs exists from `init`. Foundry glue only. Verdict cards (and blind-roll traces) are drawn by
 * chat.mjs, request cards by requests.mjs. Foundry calls it on the message's element before the chat log
 * (or a popped-out log, in another window) inserts it: nothing here depends on the element being in a
 * document yet.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} element
 */
export default function renderChatMessageHTML(message, element) {
  const html = elementOf(element);
  if (!html) return;
  if (!(message.getFlag(MODULE_ID, "card") ?? message.getFlag(MODULE_ID, "trace") ?? message.getFlag(MODULE_ID, "request"))) return;
  // Foundry draws old messages before `ready` and one message in several elements (v14): each is kept, and
  // drawn again when the client connects.
  trackMessage(message, html);
  decorateMessage(message, html);
  const request = /** @type {import("../requests.mjs").RequestCard|undefined} */ (message.getFlag(MODULE_ID, "request"));
  if (request) decorateRequest(message, html, request);
}
