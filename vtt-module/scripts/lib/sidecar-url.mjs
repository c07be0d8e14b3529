/**
 * The *Sidecar URL* setting as people paste it, made the sidecar's base URL (`http(s)://host[:port][/prefix]`,
 * no trailing slash), or the reason it cannot be. What gets pasted: the URL `verdict serve` prints, the
 * manifest URL (`…/module/module.json`), the websocket URL (`ws://…/ws`, `wss://…/ws`), `host:port`, a bare
 * host. Pure: no Foundry, so node's units test it.
 */

import { addressSpace } from "./local-network.mjs";

/** Paths of the sidecar's own that a pasted URL may end with: taken off, they leave the sidecar's base. */
const OWN_PATHS = ["/module/module.json", "/module/verdict.zip", "/module", "/ws"];

/** Schemes accepted, and the one each stands for. */
const SCHEMES = { "http:": "http:", "https:": "https:", "ws:": "http:", "wss:": "https:" };

/**
 * @typedef {{ ok: true, url: string } | { ok: false, reason: "empty" | "scheme" | "invalid" | "query" }} Normalised
 */

/**
 * @param {string} text  what was pasted
 * @returns {Normalised}
 */
export function normaliseSidecarUrl(text) {
  const given = String(text ?? "").trim();
  if (!given) return { ok: false, reason: "empty" };
  let withScheme = given;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(given);
  if (!scheme) {
    if (/^[a-z][a-z0-9+.-]*:(?!\d)/i.test(given)) return { ok: false, reason: "scheme" }; // e.g. "mailto:x"
    // No scheme: a sidecar on this machine or the local network speaks plain http; one elsewhere is behind TLS.
    const host = given.split(/[/?#]/)[0];
    const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
    const plain = /:\d+$/.test(host) || addressSpace(name) !== "public";
    withScheme = `${plain ? "http" : "https"}://${given}`;
  }
  let url;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, reason: "invalid" };
  }
  const protocol = SCHEMES[/** @type {keyof typeof SCHEMES} */ (url.protocol)];
  if (!protocol) return { ok: false, reason: "scheme" };
  if (!url.hostname || url.username || url.password) return { ok: false, reason: "invalid" };
  if (url.search || url.hash) return { ok: false, reason: "query" };
  let path = url.pathname.replace(/\/+$/, "");
  for (const own of OWN_PATHS) {
    if (path.endsWith(own)) {
      path = path.slice(0, -own.length);
      break;
    }
  }
  const base = new URL(`${protocol}//${url.host}`);
  return { ok: true, url: `${base.protocol}//${base.host}${path.replace(/\/+$/, "")}` };
}
