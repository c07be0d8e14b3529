/**
 * The fair dice's derivation, in the browser (docs/fair-dice.md): a card rolled under a commitment is
 * recomputed from its own fields once the table's seed is revealed. For the die at index `i` with `F`
 * faces, for k = 0, 1, …: `h = HMAC-SHA256(key = seed, message = UTF-8 "{client_seed}:{nonce}:{i}:{k}")`,
 * `u` = the first 8 bytes of `h` as a big-endian unsigned integer; the first k with `u < floor(2^64 / F) * F`
 * gives the face `u % F + 1`. WebCrypto (`crypto.subtle`) does the hashing, so this needs a secure page
 * (https or localhost); `crypto.getRandomValues`, for the roller's client seed, works on any page.
 * Pure: no Foundry globals, so node --test checks it against protocol/vectors/fair-dice.jsonl.
 * @module
 */

/** A roller's client seed: up to 64 of A–Z a–z 0–9 _ - (as the sidecar takes it). */
export const CLIENT_SEED = /^[A-Za-z0-9_-]{0,64}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const TWO_64 = 1n << 64n;

/**
 * What a card rolled under a commitment carries (the `fair` of `rolled` and `followed`), with the seed
 * once it is revealed.
 * @typedef {object} FairRoll
 * @property {string} seed the revealed seed, 64 hex digits
 * @property {string} client_seed the roller's client seed ("" when none was sent)
 * @property {string} nonce the request's id, as the roller sent it
 */

/**
 * Whether this page can recompute dice: WebCrypto's digest and HMAC are only given to secure pages.
 * @returns {boolean}
 */
export function canVerify() {
  return typeof globalThis.crypto?.subtle?.importKey === "function";
}

/**
 * The 32 bytes of a seed written as 64 hex digits.
 * @param {string} hex
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function seedBytes(hex) {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`a dice seed is 64 hex digits, not ${JSON.stringify(hex)}`);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * @param {ArrayBuffer} buffer
 * @returns {string}
 */
function hexOf(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The commitment a seed answers: the lowercase hex SHA-256 of its 32 bytes.
 * @param {string} seedHex
 * @returns {Promise<string>}
 */
export async function commitmentOf(seedHex) {
  return hexOf(await crypto.subtle.digest("SHA-256", seedBytes(seedHex)));
}

/**
 * HMAC-SHA256 keyed with a seed, ready to sign messages.
 * @param {string} seedHex
 * @returns {Promise<CryptoKey>}
 */
export function keyOf(seedHex) {
  return crypto.subtle.importKey("raw", seedBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/**
 * The face of the die at `index` with `faces` faces, and the counter `k` that gave it. `faces` is a
 * bigint so that any die of the contract (up to 2^64 faces) is exact.
 * @param {CryptoKey} key the seed's key ({@link keyOf})
 * @param {string} clientSeed
 * @param {string} nonce
 * @param {number} index
 * @param {bigint} faces
 * @returns {Promise<{face: bigint, k: number}>}
 */
export async function faceAt(key, clientSeed, nonce, index, faces) {
  if (faces < 1n || faces > TWO_64) throw new Error(`a die has 1 to 2^64 faces, not ${faces}`);
  const acceptBelow = (TWO_64 / faces) * faces;
  const encoder = new TextEncoder();
  for (let k = 0; ; k++) {
    const h = await crypto.subtle.sign("HMAC", key, encoder.encode(`${clientSeed}:${nonce}:${index}:${k}`));
    const u = new DataView(h).getBigUint64(0, false);
    if (u < acceptBelow) return { face: (u % faces) + 1n, k };
  }
}

/**
 * The faces of the dice `sizes` (one number of faces each, in the order the result lists its dice) rolled
 * under `roll`, at indices 0, 1, …
 * @param {FairRoll} roll
 * @param {number[]} sizes
 * @returns {Promise<number[]>}
 */
export async function facesFor(roll, sizes) {
  for (const f of sizes) {
    if (!Number.isSafeInteger(f) || f < 1) throw new Error(`a die has a whole number of faces, 1 or more, not ${f}`);
  }
  const key = await keyOf(roll.seed);
  const faces = await Promise.all(sizes.map((f, i) => faceAt(key, roll.client_seed, roll.nonce, i, BigInt(f))));
  return faces.map(({ face }) => Number(face));
}

/**
 * A fresh client seed for one request: 32 characters of the alphabet from `crypto.getRandomValues`
 * (192 bits; 64 symbols, so each byte's low 6 bits pick one without bias).
 * @returns {string}
 */
export function freshClientSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => ALPHABET[b & 63]).join("");
}
