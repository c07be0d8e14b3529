/**
 * What a user has typed, ticked or opened in a form that re-renders whenever the table changes: a
 * re-render replaces the form's elements, so without this a roll at the table would wipe a GM's half-typed
 * complication or flip its "hidden" box back on. Only controls the user changed are kept (a value unlike
 * the one the template wrote), so a fresh value from the table still shows where the user typed nothing.
 */

/**
 * @typedef {object} Draft
 * @property {string} [value]
 * @property {boolean} [checked]
 * @property {boolean} [shown]   an edit field the user opened (the template writes it hidden; opening it
 *   marks it with `data-opened`)
 */

/**
 * @typedef {object} Drafts
 * @property {Map<string, Draft>} controls
 * @property {string|null} focus   the key of the control that had the focus
 * @property {[number|null, number|null]|null} selection
 */

/** Tag checks instead of `instanceof`: a popped-out window has its own element classes. */
const isBox = (/** @type {Element} */ el) => el.tagName === "INPUT" && ["checkbox", "radio"].includes(/** @type {HTMLInputElement} */ (el).type);

/**
 * A control's name in the form: its row (`data-id`), its name, and for a box of a group its value.
 * @param {Element} el
 * @returns {string|null}
 */
function keyOf(el) {
  const name = el.getAttribute("name");
  if (!name) return null;
  const row = el.closest("[data-id]")?.getAttribute("data-id") ?? "";
  return `${row}|${name}|${isBox(el) ? /** @type {HTMLInputElement} */ (el).value : ""}`;
}

/**
 * @param {Element} el
 * @returns {Draft|null}  what differs from the template's own state, or null
 */
function draftOf(el) {
  /** @type {Draft} */
  const d = {};
  if (isBox(el)) {
    const box = /** @type {HTMLInputElement} */ (el);
    if (box.checked !== box.defaultChecked) d.checked = box.checked;
  } else if (el.tagName === "SELECT") {
    const select = /** @type {HTMLSelectElement} */ (el);
    const initial = [...select.options].find((o) => o.defaultSelected) ?? select.options[0];
    if (initial && select.value !== initial.value) d.value = select.value;
  } else {
    const field = /** @type {HTMLInputElement|HTMLTextAreaElement} */ (el);
    if (field.value !== field.defaultValue) d.value = field.value;
    if (field.dataset.opened === "1" && !field.hidden) d.shown = true;
  }
  return Object.keys(d).length ? d : null;
}

/**
 * Read the changed controls under `root`.
 * @param {Element|null|undefined} root
 * @returns {Drafts|null}
 */
export function captureDrafts(root) {
  if (!root) return null;
  /** @type {Map<string, Draft>} */
  const controls = new Map();
  for (const el of root.querySelectorAll("input[name], select[name], textarea[name]")) {
    const key = keyOf(el);
    const d = key ? draftOf(el) : null;
    if (key && d) controls.set(key, d);
  }
  const active = root.ownerDocument.activeElement;
  const focus = active && root.contains(active) ? keyOf(active) : null;
  /** @type {[number|null, number|null]|null} */
  let selection = null;
  if (focus && active?.tagName === "INPUT") {
    try {
      const input = /** @type {HTMLInputElement} */ (active);
      selection = [input.selectionStart, input.selectionEnd];
    } catch {
      selection = null; // number inputs have no selection
    }
  }
  return { controls, focus, selection };
}

/**
 * Put captured drafts back on the freshly rendered controls under `root`. A control whose row is gone
 * (the complication was removed meanwhile) is simply not there to restore.
 * @param {Element|null|undefined} root
 * @param {Drafts|null} drafts
 */
export function restoreDrafts(root, drafts) {
  if (!root || !drafts) return;
  for (const el of root.querySelectorAll("input[name], select[name], textarea[name]")) {
    const key = keyOf(el);
    const d = key ? drafts.controls.get(key) : undefined;
    if (d) {
      const control = /** @type {HTMLInputElement} */ (el);
      if (d.checked !== undefined) control.checked = d.checked;
      if (d.value !== undefined) control.value = d.value;
      if (d.shown) {
        control.hidden = false;
        control.dataset.opened = "1";
      }
    }
    if (key && key === drafts.focus) {
      const control = /** @type {HTMLInputElement} */ (el);
      control.focus();
      if (drafts.selection && drafts.selection[0] !== null) {
        try {
          control.setSelectionRange(drafts.selection[0], drafts.selection[1]);
        } catch {
          // a control without a text selection
        }
      }
    }
  }
}

/**
 * Forget the draft of one control (it was sent), so the next render shows the template's state.
 * @param {Element|null|undefined} el
 */
export function clearDraft(el) {
  if (!el) return;
  const control = /** @type {HTMLInputElement} */ (el);
  if (isBox(el)) control.checked = control.defaultChecked;
  else if (el.tagName === "SELECT") {
    const select = /** @type {HTMLSelectElement} */ (el);
    select.selectedIndex = Math.max(0, [...select.options].findIndex((o) => o.defaultSelected));
  } else control.value = control.defaultValue;
  if (control.dataset.opened) {
    delete control.dataset.opened;
    control.hidden = true;
  }
}
