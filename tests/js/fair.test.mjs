// The module's fair dice (vtt-module/scripts/lib/fair.mjs) against the golden vectors other clients check
// themselves against: protocol/vectors/fair-dice.jsonl. Node gives WebCrypto as globalThis.crypto.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CLIENT_SEED, canVerify, commitmentOf, faceAt, facesFor, freshClientSeed, keyOf } from "../../vtt-module/scripts/lib/fair.mjs";

const FILE = new URL("../../protocol/vectors/fair-dice.jsonl", import.meta.url);
// Integers beyond a double's exact range (the 2**63 + 1 die) are read as strings, then as bigints.
const cases = readFileSync(FILE, "utf8").trim().split("\n")
  .map((line) => JSON.parse(line.replace(/(?<=[:,[])(\d{16,})(?=[,\]}])/g, '"$1"')));

test("the vectors are there, rejections among them", () => {
  assert.ok(cases.length >= 15);
  assert.ok(cases.some((c) => c.k.some((/** @type {number} */ k) => k > 0)));
});

test("this page can verify (node has WebCrypto)", () => assert.equal(canVerify(), true));

for (const c of cases) {
  test(`vector: ${c.name}`, async () => {
    assert.equal(await commitmentOf(c.seed), c.commitment);
    const key = await keyOf(c.seed);
    for (let i = 0; i < c.count; i++) {
      const { face, k } = await faceAt(key, c.client_seed, c.nonce, i, BigInt(c.F));
      assert.equal(face, BigInt(c.faces[i]), `die ${i}`);
      assert.equal(k, c.k[i], `die ${i}'s k`);
    }
    if (typeof c.F === "number" && Number.isSafeInteger(c.F)) {
      const roll = { seed: c.seed, client_seed: c.client_seed, nonce: c.nonce };
      assert.deepEqual(await facesFor(roll, Array(c.count).fill(c.F)), c.faces);
    }
  });
}

test("a die's index is its place in the sizes: a changed order changes the faces", async () => {
  const c = cases.find((x) => x.F === 6 && x.count >= 10);
  const roll = { seed: c.seed, client_seed: c.client_seed, nonce: c.nonce };
  const mixed = await facesFor(roll, [6, 20, 6]);
  assert.equal(mixed[0], c.faces[0]);
  assert.equal(mixed[2], c.faces[2]);
  assert.notDeepEqual(await facesFor({ ...roll, client_seed: "other" }, Array(10).fill(6)), c.faces.slice(0, 10));
});

test("a seed that is not 64 hex digits and a die of no faces are refused", async () => {
  await assert.rejects(commitmentOf("abc"), /64 hex digits/);
  await assert.rejects(facesFor({ seed: cases[0].seed, client_seed: "", nonce: "n" }, [0]), /1 or more/);
});

test("a fresh client seed is one the sidecar takes, and new each time", () => {
  const seeds = new Set(Array.from({ length: 50 }, freshClientSeed));
  assert.equal(seeds.size, 50);
  for (const s of seeds) {
    assert.match(s, CLIENT_SEED);
    assert.equal(s.length, 32);
  }
});
