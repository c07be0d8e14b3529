/**
 * Text that Foundry's enricher must show literally, in content Foundry's server stores. The server cleans a
 * message's content (`foundry.utils.cleanHTML` keeps only `CONST.ALLOWED_HTML_TAGS`: no `<wbr>`), and the
 * enricher looks for patterns such as `[[/r 1d20]]` (inline rolls) and `@UUID[...]{...}` (content links) in the
 * text of each node. After every `[`, `@` and `&` in the text between tags an empty `<span>` (an allowed
 * element, so it survives the cleaning) splits the text node, so no pattern can match across it, while the
 * reader sees the same characters. Tags and attribute values are left alone. This keeps stored content inert
 * for any reader; the module does not rely on it: each browser draws a card's text from its flags (chat.mjs).
 * Pure, so node units check it.
 * @module
 */

/** `[`, `@` and `&` (escaped as `&amp;` in markup; a bare `&` starts an entity and is left alone). */
const MARK = /(\[|@|&amp;)/g;

/** The empty element that splits a text node (kept by Foundry's server-side cleaning). */
export const SPLIT = '<span class="verdict-split"></span>';

/**
 * @param {string} html  markup whose text may hold enricher patterns
 * @returns {string}
 */
export function inert(html) {
  return html
    .split(/(<[^>]*>)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(MARK, `$1${SPLIT}`)))
    .join("");
}

/**
 * Escape text for HTML (for markup built in code rather than by a template).
 * @param {unknown} text
 * @returns {string}
 */
export function escapeHTML(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}
