/** A small event emitter: the connection and the client both tell listeners what happened. */

export class Emitter {
  constructor() {
    /** @type {Map<string, Set<Function>>} */
    this.listeners = new Map();
  }

  /**
   * @param {string} event
   * @param {Function} fn
   * @returns {() => void} unsubscribe
   */
  on(event, fn) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)?.add(fn);
    return () => this.listeners.get(event)?.delete(fn);
  }

  /**
   * Call every listener of `event`; one that throws is logged and does not stop the others.
   * @param {string} event
   * @param {...unknown} args
   */
  emit(event, ...args) {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(...args);
      } catch (err) {
        console.error("verdict |", event, "listener failed", err);
      }
    }
  }
}
