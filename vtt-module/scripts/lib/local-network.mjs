/**
 * Why a page cannot open its websocket to the sidecar, as far as the page itself can tell. Chrome's Local
 * Network Access (enforced for WebSockets from Chrome 147) gates a connection from a public page to a private
 * or loopback address, and from a private page to loopback, behind a permission that only a secure (https)
 * page can ask for; an https page may not open a plain ws:// connection to anything but a potentially
 * trustworthy host (mixed content) unless that permission was granted. Pure: the caller passes what it knows.
 * @module
 */

/** @typedef {"loopback"|"private"|"public"} AddressSpace */
/** @typedef {"lna-insecure"|"lna-prompt"|"lna-denied"|"mixed-content"|"refused"} Unreachable */

/**
 * The address space a host name is in (names other than localhost count as public: the page cannot resolve them).
 * @param {string} host
 * @returns {AddressSpace}
 */
export function addressSpace(host) {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\./.test(h) || h === "0.0.0.0") return "loopback";
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)) return "private";
    return "public";
  }
  if (/^f[cd][0-9a-f]{2}:/.test(h) || /^fe80:/.test(h)) return "private";
  if (h.endsWith(".local") || h.endsWith(".lan") || h.endsWith(".internal") || h.endsWith(".home.arpa")) return "private";
  return "public";
}

const RANK = { public: 0, private: 1, loopback: 2 };

/**
 * Does Local Network Access gate a connection from this page to this target?
 * @param {string} page  the page's URL
 * @param {string} target  the websocket URL
 */
export function gated(page, target) {
  const from = addressSpace(new URL(page).hostname);
  const to = addressSpace(new URL(target).hostname);
  return RANK[to] > RANK[from];
}

/**
 * The likeliest reason a websocket to the sidecar did not open.
 * @param {{page: string, target: string, secure: boolean, permission: "granted"|"denied"|"prompt"|null}} facts
 *   `secure`: the page is a secure context; `permission`: the state of the local-network permission, null where
 *   the browser has none (other browsers, older Chrome)
 * @returns {Unreachable}
 */
export function diagnose({ page, target, secure, permission }) {
  const pageUrl = new URL(page);
  const targetUrl = new URL(target);
  if (gated(page, target) && permission !== null) {
    if (!secure) return "lna-insecure";
    if (permission === "prompt") return "lna-prompt";
    if (permission === "denied") return "lna-denied";
  }
  const trustworthy = targetUrl.protocol === "wss:" || addressSpace(targetUrl.hostname) === "loopback";
  if (pageUrl.protocol === "https:" && !trustworthy && permission !== "granted") return "mixed-content";
  return "refused";
}
