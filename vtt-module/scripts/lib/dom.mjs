/**
 * DOM helpers that work in any window. An application popped out into another browser window (v14) has
 * elements of that window: `instanceof HTMLElement` is false for them and nodes must come from their own
 * document, so every check here is structural and every node is made by the element's `ownerDocument`.
 * @module
 */

/**
 * Is this an element (of any window)?
 * @param {unknown} x
 * @returns {x is HTMLElement}
 */
export function isElement(x) {
  const node = /** @type {{nodeType?: unknown, querySelector?: unknown}} */ (x);
  return Boolean(x) && typeof x === "object" && node.nodeType === 1 && typeof node.querySelector === "function";
}

/**
 * The element a hook was given: an element of any window, or the first of an array-like wrapper.
 * @param {unknown} html
 * @returns {HTMLElement|null}
 */
export function elementOf(html) {
  if (isElement(html)) return html;
  const first = /** @type {ArrayLike<unknown>|null|undefined} */ (html)?.[0];
  return isElement(first) ? first : null;
}

/**
 * Create an element in the document `near` belongs to.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {Node} near
 * @param {K} tag
 * @returns {HTMLElementTagNameMap[K]}
 */
export function make(near, tag) {
  const doc = near.ownerDocument ?? /** @type {Document} */ (/** @type {unknown} */ (near));
  return doc.createElement(tag);
}

/**
 * Parse markup into an element of `near`'s document (the first element of the markup).
 * @param {Node} near
 * @param {string} markup
 * @returns {HTMLElement|null}
 */
export function fromMarkup(near, markup) {
  const tmp = make(near, "div");
  tmp.innerHTML = markup;
  const first = tmp.firstElementChild;
  return isElement(first) ? first : null;
}
