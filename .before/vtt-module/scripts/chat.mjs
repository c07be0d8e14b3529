/**
 * Chat cards. The active GM's client is the only writer: it pairs each `rolled`/`followed` the GM
 * connection receives with the player view's copy of it (what players may see), writes the chat message
 * from the player-safe copy and keeps the full copy in memory to draw its own view of the card.
 */

import { MODULE_ID } from "./constants.mjs";
import { isActiveGM } from "./client.mjs";
import { BOONS_DIE_SIZE, DIE_SIZE } from "./lib/systems.mjs";
import { renderCard } from "./render.mjs";
import { actorById, findMessage } from "./documents.mjs";
import { gatherRolled } from "./requests.mjs";

/** How long to wait for the player view's copy before writing a GM-only card. */
const PAIR_MS = 800;

export class ChatCards {
  /** @param {import("./client.mjs").VerdictClient} client */
  constructor(client) {
    this.client = client;
    /** @type {Map<string, {gm?: Record<string, any>, pv?: Record<string, any>, timer?: any, done?: boolean}>} */
    this.pending = new Map();
    /** @type {Map<string, Record<string, any>>} check id -> the GM's full result */
    this.full = new Map();
    /** @type {Set<string>} cards already written (a resync must not write them twice) */
    this.written = new Set();
    client.on("message", (/** @type {Record<string, any>} */ msg, /** @type {string} */ source) => {
      if (source === "own" && isActiveGM()) this._take(msg, "gm");
    });
    client.on("player-message", (/** @type {Record<string, any>} */ msg) => {
      if (isActiveGM()) this._take(msg, "pv");
    });
  }

  /**
   * @param {Record<string, any>} msg
   * @param {"gm"|"pv"} side
   */
  _take(msg, side) {
    if (msg.type !== "rolled" && msg.type !== "followed") return;
    if (msg.type === "rolled" && msg.gather) {
      // A part of a gathered check: drawn on its request card, not as a card of its own.
      if (side === "gm") {
        this.full.set(msg.check, msg.result);
        gatherRolled(msg);
        if ((msg.mode ?? "public") === "public") showDice(msg.result, [], false);
      }
      return;
    }
    const key = msg.type === "rolled" ? `rolled:${msg.check}` : `followed:${msg.check}:${msg.seq}`;
    const entry = this.pending.get(key) ?? {};
    if (entry.done) return;
    entry[side] = msg;
    this.pending.set(key, entry);
    if (side === "gm") this.full.set(msg.check, msg.result);
    const pvOpen = this.client.playerView?.state === "open";
    if (entry.gm && (entry.pv || !pvOpen)) this._flush(key);
    else if (entry.gm && !entry.timer) entry.timer = setTimeout(() => this._flush(key), PAIR_MS);
  }

  /** @param {string} key */
  _flush(key) {
    const entry = this.pending.get(key);
    if (!entry || entry.done || !entry.gm) return;
    entry.done = true;
    clearTimeout(entry.timer);
    setTimeout(() => this.pending.delete(key), 60000);
    const work = entry.gm.type === "rolled" ? this._create(entry.gm, entry.pv) : this._update(entry.gm, entry.pv);
    work.catch((err) => console.error(`${MODULE_ID} | writing the card failed`, err));
  }

  /**
   * @param {Record<string, any>} gm  the GM connection's `rolled`
   * @param {Record<string, any>} [pv] the player view's copy, when players may see it
   */
  async _create(gm, pv) {
    if (this.written.has(gm.check) || findCardMessage(gm.check)) return;
    this.written.add(gm.check);
    const safe = pv ?? gm;
    /** @type {import("./lib/card-model.mjs").CardEntry} */
    const entry = {
      checkId: gm.check, seq: gm.seq, result: safe.result, by: gm.by, user: gm.user ?? null, actor: gm.actor ?? null,
      target: gm.target ?? null, scene: gm.scene ?? null, mode: gm.mode ?? "public", label: gm.label ?? null,
      extended: gm.extended ?? null, actions: [], redacted: pv !== undefined && JSON.stringify(pv.result) !== JSON.stringify(gm.result),
    };
    const gms = game.users?.filter((u) => u.isGM).map((u) => u.id) ?? [];
    const roller = entry.user ?? null;
    /** @type {string[]} */
    let whisper = [];
    let blind = false;
    if (!pv && this.client.playerView && entry.mode !== "public") whisper = gms;
    else if (entry.mode === "gm") whisper = [...new Set([...gms, ...(roller ? [roller] : [])])];
    else if (entry.mode === "blind") { whisper = gms; blind = true; }
    else if (entry.mode === "self") whisper = roller ? [roller] : gms;
    const actor = actorById(entry.actor);
    const speaker = actor ? ChatMessage.getSpeaker({ actor }) : { alias: game.users?.get(roller ?? "")?.name ?? game.user?.name ?? "Verdict" };
    const content = await renderCard(entry, { isGM: false, verified: true });
    await ChatMessage.create({
      content, speaker, whisper, blind,
      flags: { [MODULE_ID]: { card: /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (entry)) } },
    });
    showDice(entry.result, whisper, blind);
  }

  /**
   * @param {Record<string, any>} gm  the GM connection's `followed`
   * @param {Record<string, any>} [pv]
   */
  async _update(gm, pv) {
    const message = findCardMessage(gm.check);
    if (!message) return;
    const old = /** @type {Record<string, any>} */ (message.getFlag(MODULE_ID, "card") ?? {});
    const safe = pv ?? (old.redacted ? null : gm);
    const entry = {
      ...old,
      seq: gm.seq,
      result: safe ? safe.result : old.result,
      actions: [...(old.actions ?? []), gm.action],
      redacted: pv !== undefined && JSON.stringify(pv.result) !== JSON.stringify(gm.result),
    };
    const content = await renderCard(/** @type {any} */ (entry), { isGM: false, verified: true });
    await message.update({ content, flags: { [MODULE_ID]: { card: entry } } });
    const dice = (gm.result?.dice ?? []).length - (old.result?.dice ?? []).length;
    if (dice > 0) showDice({ ...gm.result, dice: gm.result.dice.slice(-dice), types: (gm.result.types ?? []).slice(-dice) }, /** @type {string[]} */ ([...(message.whisper ?? [])].map(String)), Boolean(message.blind));
  }
}

/**
 * The chat message holding a check's card.
 * @param {string} checkId
 */
export function findCardMessage(checkId) {
  return findMessage((m) => /** @type {any} */ (m.getFlag(MODULE_ID, "card"))?.checkId === checkId);
}

/**
 * Dice So Nice, when installed, throws the real faces (never its own random ones).
 * @param {Record<string, any>} result
 * @param {string[]} whisper
 * @param {boolean} blind
 */
function showDice(result, whisper, blind) {
  const dice3d = /** @type {any} */ (game).dice3d;
  if (!dice3d || !Array.isArray(result?.dice)) return;
  const types = result.types ?? [];
  const dice = result.dice.map((/** @type {number} */ face, /** @type {number} */ i) => {
    const size = result.system === "boons" ? /** @type {Record<string, number>} */ (BOONS_DIE_SIZE)[types[i]] ?? 6 : /** @type {Record<string, number>} */ (DIE_SIZE)[result.system] ?? 6;
    return { result: face, resultLabel: String(face), type: `d${size}`, vectors: [], options: {} };
  });
  dice3d.show({ throws: [{ dice }] }, game.user, true, whisper.length ? whisper : null, blind).catch(() => {});
}
