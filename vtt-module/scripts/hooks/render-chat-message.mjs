import { MODULE_ID } from "../constants.mjs";
import { decorateMessage } from "../chat.mjs";
import { decorateRequest } from "../requests.mjs";
import { elementOf } from "../lib/dom.mjs";

/**
 * `renderChatMessageHTML` (v13+): Foundry glue only. Verdict cards (and blind-roll traces) are drawn by
 * chat.mjs, request cards by requests.mjs. Foundry calls it on the message's element before the chat log
 * (or a popped-out log, in another window) inserts it: nothing here depends on the element being in a
 * document yet.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} element
 */
export default function renderChatMessageHTML(message, element) {
  const html = elementOf(element);
  if (!html) return;
  decorateMessage(message, html);
  const request = /** @type {Record<string, any>|undefined} */ (message.getFlag(MODULE_ID, "request"));
  if (request) decorateRequest(message, html, request);
}
