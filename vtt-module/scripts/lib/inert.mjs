/**
 * Text that Foundry's enricher must show literally. Foundry runs chat message content through its text
 * enricher, which looks for patterns such as `[[/r 1d20]]` (inline rolls) and `@UUID[...]{...}` (content
 * links) in the text of each node. A label or a complication typed by a user must stay text: after every
 * `[`, `@` and `&` in the text between tags an empty `<wbr>` element splits the text node, so no pattern can
 * match across it, while the reader sees the same characters. Tags and attribute values are left alone.
 * Pure, so node units check it.
 * @module
 */

/** `[`, `@` and `&` (escaped as `&amp;` in markup; a bare `&` starts an entity and is left alone). */
const MARK = /(\[|@|&amp;)/g;

/**
 * @param {string} html  markup whose text may hold enricher patterns
 * @returns {string}
 */
export function inert(html) {
  return html
    .split(/(<[^>]*>)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(MARK, "$1<wbr>")))
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
