/**
 * Every element a message is drawn in. One message may be on screen several times at once (the chat log,
 * v14's notifications pane, a popped-out log in another window), and each draw makes a new element that the
 * log inserts after the render hook ran. An element that was in a document and has left it is forgotten; one
 * never inserted yet is kept (the log inserts it a moment later).
 * @module
 */

/**
 * @template T
 * @typedef {{el: {isConnected: boolean}, value: T, seen: boolean}} Entry
 */

/** @template T */
export class Drawn {
  constructor() {
    /** @type {Map<string, Entry<T>[]>} */
    this.byKey = new Map();
  }

  /**
   * Remember an element drawn for `key` (with what its redraw needs). The same element drawn again replaces
   * its entry.
   * @param {string} key
   * @param {{isConnected: boolean}} el
   * @param {T} value
   */
  add(key, el, value) {
    const list = this.live(key).filter((e) => e.el !== el);
    list.push({ el, value, seen: el.isConnected });
    this.byKey.set(key, list);
  }

  /**
   * The entries of `key` still on screen or about to be; those that left a document are dropped.
   * @param {string} key
   * @returns {Entry<T>[]}
   */
  live(key) {
    const list = (this.byKey.get(key) ?? []).filter((e) => {
      if (e.el.isConnected) e.seen = true;
      return e.el.isConnected || !e.seen;
    });
    if (list.length) this.byKey.set(key, list);
    else this.byKey.delete(key);
    return list;
  }

  /** @returns {string[]} every key with an element on screen */
  keys() {
    return [...this.byKey.keys()].filter((k) => this.live(k).length > 0);
  }
}
