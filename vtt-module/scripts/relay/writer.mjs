/**
 * The relay's writer: the chat messages of the cards, their flags and updates. Only the relay writes them (and
 * a self roll's roller its own card): it pairs each `rolled`/`followed` its GM connection receives with a copy
 * the card's readers may see, and writes the chat message from that copy; every GM browser with the GM key
 * keeps the full copy in memory (`full`, `fullMsg`) to draw its own view of the card (chat.mjs).
 *
 * Who may read a card follows Foundry's visibility for each roll mode (a message without rolls is seen by
 * its author, the relay, and its whisper targets): public -> everyone; gm -> the GMs and the roller;
 * blind -> the GMs only (blind), and the roller a card saying they rolled blind; self -> the roller.
 * Foundry hands every chat message to every client and only hides whispers when drawing, so a document
 * holds nothing a player may not see: a public card the player view's copy, any other card a shell (the
 * rule set and the mode, no label, dice or outcome) that each reader's browser fills in from its own view
 * of the table (a GM's own connection, the roller's own reply). Fail closed: a public roll without a
 * player-safe copy becomes a shell for the GMs alone.
 *
 * Every GM browser with the key records what it hears even when it does not relay, so a GM who takes
 * over writes the cards the previous relay left unwritten (each check's card exactly once).
 */

import { MODULE_ID } from "../constants.mjs";
import { isRelay } from "../client.mjs";
import { diceToThrow } from "../chat.mjs";
import { renderCard, t } from "../render.mjs";
import { actorById, findMessage } from "../documents.mjs";
import { gatherRolled } from "../requests.mjs";
import { escapeHTML, inert } from "../lib/inert.mjs";
// How long to wait for the player view's broadcast copy before asking the ledger for it ("pair"), and how
// long a new relay lets the old relay's last messages land before writing what is missing ("takeover").
import { timing } from "../lib/timings.mjs";

/** @typedef {import("../generated/protocol.mjs").AnyServerMessage} AnyServerMessage */
/** @typedef {import("../generated/protocol.mjs").AnyResult} AnyResult */
/** @typedef {import("../generated/protocol.mjs").Rolled} Rolled */
/** @typedef {import("../generated/protocol.mjs").Followed} Followed */
/**
 * A card's messages as they arrive: the GM connection's, the player view's copy.
 * @typedef {{gm?: Rolled|Followed, pv?: Rolled|Followed, timer?: import("../lib/timings.mjs").Timer, done?: boolean, at: number}} Pending
 */

export class ChatCards {
  /** @param {import("../client.mjs").VerdictClient} client */
  constructor(client) {
    this.client = client;
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    /** @type {Map<string, AnyResult|null>} check id -> the GM's full result */
    this.full = new Map();
    /** @type {Map<string, Record<string, any>>} check id -> the GM connection's message (label and all) */
    this.fullMsg = new Map();
    /** @type {Set<string>} cards already written (a resync must not write them twice) */
    this.written = new Set();
    /** Card writes in order: a follow-up's update never overtakes its card's creation. */
    this.queue = Promise.resolve();
    client.on("message", (/** @type {AnyServerMessage} */ msg, /** @type {string} */ source) => {
      if (source === "own" && client.role === "gm") this._take(msg, "gm");
    });
    client.on("player-message", (/** @type {AnyServerMessage} */ msg) => this._take(msg, "pv"));
    client.on("relay", () => {
      if (isRelay()) setTimeout(() => this._takeOver(), timing("takeover"));
    });
    // A self roll is the roller's alone: the sidecar tells no GM, so the roller's browser writes its card.
    client.on("message", (/** @type {AnyServerMessage} */ msg, /** @type {string} */ _source, /** @type {boolean} */ reply) => {
      if (reply && msg.type === "rolled" && msg.mode === "self" && !msg.gather) this._selfCard(msg);
    });
  }

  /**
   * The roller's own card for a self roll: a shell whispered to the roller, drawn from the roller's reply.
   * @param {Rolled} msg  the `rolled` reply to this user's request
   */
  _selfCard(msg) {
    if (this.written.has(msg.check)) return;
    this.written.add(msg.check);
    const me = game.user?.id ?? null;
    this.queue = this.queue.then(async () => {
      if (findCardMessage(msg.check)) return;
      const entry = {
        checkId: msg.check, seq: msg.seq, result: null, by: msg.by, user: msg.user ?? me, actor: msg.actor ?? null,
        target: msg.target ?? null, scene: msg.scene ?? null, mode: "self", label: null, extended: msg.extended ?? null,
        actions: [], redacted: true, shell: true, system: msg.result?.system ?? null,
      };
      const actor = actorById(entry.actor);
      const speaker = actor ? ChatMessage.getSpeaker({ actor }) : { alias: game.user?.name ?? "Verdict" };
      await ChatMessage.create({
        content: renderShell(entry, msg.result?.system ?? ""), speaker, whisper: me ? [me] : [],
        flags: { [MODULE_ID]: { card: /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (entry)) } },
      });
    }).catch((err) => console.error(`${MODULE_ID} | writing the self roll's card failed`, err));
  }

  /**
   * @param {AnyServerMessage} msg
   * @param {"gm"|"pv"} side
   */
  _take(msg, side) {
    if (msg.type !== "rolled" && msg.type !== "followed") return;
    if (msg.type === "rolled" && msg.gather) {
      // A part of a gathered check: drawn on its request card, not as a card of its own.
      if (side === "gm") {
        this.full.set(msg.check, msg.result);
        if (isRelay()) {
          gatherRolled(msg);
          if ((msg.mode ?? "public") === "public") throwForEveryone(msg.result, msg.user);
        }
      }
      return;
    }
    if (msg.type === "rolled" && msg.mode === "self") {
      // The roller's browser writes a self roll's card (see _selfCard); a GM hears only their own.
      if (side === "gm") this._keepFull(msg);
      return;
    }
    const key = cardKey(msg);
    const entry = this.pending.get(key) ?? { at: Date.now() };
    if (entry.done) return;
    entry[side] = msg;
    this.pending.set(key, entry);
    if (side === "gm") this._keepFull(msg);
    if (!entry.timer && !entry.at) entry.at = Date.now();
    setTimeout(() => this.pending.get(key) === entry && this.pending.delete(key), 120000);
    if (!isRelay() || !entry.gm) return;
    const publicMode = (("mode" in entry.gm ? entry.gm.mode : undefined) ?? "public") === "public";
    if (entry.pv || !publicMode) this._flush(key);
    else if (!entry.timer) entry.timer = setTimeout(() => this._flush(key), timing("pair"));
  }

  /** @param {Rolled|Followed} msg */
  _keepFull(msg) {
    this.full.set(msg.check, msg.result);
    const prev = this.fullMsg.get(msg.check);
    // `open`: the follow-ups open to this GM on the check as it now stands (none from an older sidecar)
    this.fullMsg.set(msg.check, { ...(prev ?? {}), ...msg, label: prev?.label ?? ("label" in msg ? msg.label : null) ?? null, open: msg.open });
  }

  /** A new relay: write the cards of what this browser heard and nobody wrote. */
  _takeOver() {
    if (!isRelay()) return;
    for (const [key, entry] of this.pending) if (!entry.done && entry.gm) this._flush(key);
  }

  /** @param {string} key */
  _flush(key) {
    const entry = this.pending.get(key);
    if (!entry || entry.done || !entry.gm || !isRelay()) return;
    entry.done = true;
    clearTimeout(entry.timer);
    const gm = entry.gm;
    this.queue = this.queue
      .then(async () => {
        const readers = await this._readersCopy(gm, entry.pv);
        if (gm.type === "rolled") await this._create(gm, readers);
        else await this._update(gm, readers);
      })
      .catch((err) => console.error(`${MODULE_ID} | writing the card failed`, err));
  }

  /**
   * The copy of a message every reader of a public card may see; null for other modes, or when no such
   * copy can be had (then the card is a shell for the GMs alone).
   * @param {Rolled|Followed} gm
   * @param {Rolled|Followed} [pv]  the player view's broadcast copy
   * @returns {Promise<Rolled|Followed|null>}
   */
  async _readersCopy(gm, pv) {
    const mode = ("mode" in gm ? gm.mode : undefined) ?? this._modeOf(gm.check) ?? "public";
    // Any other mode: a shell, which each reader's browser fills in from its own view.
    if (mode !== "public") return null;
    return pv ?? this._askPlayerView(gm);
  }

  /**
   * The ledger's word on a check as players see it: when the broadcast copy did not come (the player view
   * was down, or this relay took over after the roll).
   * @param {Rolled|Followed} gm
   * @returns {Promise<Rolled|Followed|null>}
   */
  async _askPlayerView(gm) {
    const pv = this.client.playerView;
    if (!pv) return null;
    try {
      const reply = await pv.request({ type: "verify", check: gm.check });
      if (!reply.found || !reply.result) return null;
      return { ...gm, result: reply.result };
    } catch {
      return null;
    }
  }

  /** @param {string} checkId */
  _modeOf(checkId) {
    return /** @type {{mode?: string}|undefined} */ (findCardMessage(checkId)?.getFlag(MODULE_ID, "card"))?.mode ?? null;
  }

  /**
   * @param {Rolled} gm  the GM connection's `rolled`
   * @param {Rolled|Followed|null} readers  the copy every reader may see (null: a shell)
   */
  async _create(gm, readers) {
    if (this.written.has(gm.check) || findCardMessage(gm.check)) return;
    this.written.add(gm.check);
    const gms = game.users?.filter((u) => u.isGM).map((u) => u.id) ?? [];
    const roller = gm.user ?? null;
    const mode = gm.mode ?? "public";
    const shell = mode !== "public" || !readers;
    /** @type {string[]} */
    let whisper = [];
    let blind = false;
    if (mode === "blind" || (mode === "public" && !readers)) {
      whisper = gms;
      blind = mode === "blind";
    } else if (mode === "gm") {
      whisper = [...new Set([...gms, ...(roller ? [roller] : [])])];
    } else if (mode === "self") {
      whisper = roller ? [roller] : gms;
    }
    /** @type {import("../lib/card-model.mjs").CardEntry & {shell?: boolean}} */
    const entry = {
      checkId: gm.check, seq: gm.seq,
      // A shell holds no result (the card model's type does not say it may be null).
      result: shell ? null : /** @type {AnyResult} */ (/** @type {Rolled|Followed} */ (readers).result),
      by: gm.by, user: roller, actor: gm.actor ?? null, target: gm.target ?? null, scene: gm.scene ?? null, mode,
      label: shell ? null : gm.label ?? null, extended: gm.extended ?? null, actions: [],
      redacted: shell || JSON.stringify(readers?.result) !== JSON.stringify(gm.result), shell,
    };
    const actor = actorById(entry.actor);
    const speaker = actor ? ChatMessage.getSpeaker({ actor }) : { alias: game.users?.get(roller ?? "")?.name ?? game.user?.name ?? "Verdict" };
    const content = shell ? renderShell(entry, gm.result?.system ?? "") : await renderCard(entry, { isGM: false, verified: true });
    // The roller is the card's author (a GM may create a message for another user): they may delete it, and
    // portrait and colour modules credit them. A card only the GMs may see stays the relay's (its author
    // would see it).
    const author = roller && game.users?.get(roller) && !(mode === "blind" || (mode === "public" && !readers)) ? roller : undefined;
    await ChatMessage.create({
      content, speaker, whisper, blind, .../** @type {{}} */ (author ? { author } : {}),
      flags: { [MODULE_ID]: { card: /** @type {Record<string, unknown>} */ (/** @type {unknown} */ ({ ...entry, system: gm.result?.system ?? null })) } },
    });
    if (blind && roller && !gms.includes(roller)) await this._blindTrace(entry, gm.result?.system ?? "", roller, speaker);
  }

  /**
   * The roller of a blind roll: a card saying they rolled, without the result (their browser adds the
   * label from its own reply).
   * @param {{checkId: string}} entry
   * @param {string} system
   * @param {string} roller
   * @param {object} speaker
   */
  async _blindTrace(entry, system, roller, speaker) {
    const content = `<div class="verdict-trace verdict-blind-trace" data-check-id="${escapeHTML(entry.checkId)}">`
      + `<header class="verdict-card-header"><span class="verdict-system">${escapeHTML(t(`VERDICT.System.${system}`))}</span></header>`
      + `<p class="verdict-blind-note"><i class="fa-solid fa-eye-slash" aria-hidden="true"></i> ${escapeHTML(t("VERDICT.Card.rolledBlind"))}</p></div>`;
    await ChatMessage.create({
      content: inert(content), speaker, whisper: [roller], .../** @type {{}} */ ({ author: roller }),
      flags: { [MODULE_ID]: { trace: { checkId: entry.checkId, user: roller } } },
    });
  }

  /**
   * @param {Followed} gm  the GM connection's `followed`
   * @param {Rolled|Followed|null} readers
   */
  async _update(gm, readers) {
    const message = findCardMessage(gm.check);
    if (!message) return;
    const old = /** @type {Record<string, any>} */ (message.getFlag(MODULE_ID, "card") ?? {});
    // Already on the card (the previous relay wrote it before handing over): never applied twice.
    if (typeof old.seq === "number" && old.seq >= gm.seq) return;
    const shell = Boolean(old.shell);
    const entry = {
      ...old,
      seq: gm.seq,
      result: shell ? null : readers ? readers.result : old.result,
      actions: [...(old.actions ?? []), gm.action],
      redacted: shell || !readers || JSON.stringify(readers.result) !== JSON.stringify(gm.result),
    };
    const content = shell ? renderShell(entry, old.system ?? gm.result?.system ?? "") : await renderCard(/** @type {import("../lib/card-model.mjs").CardEntry} */ (entry), { isGM: false, verified: true });
    await message.update({ content, flags: { [MODULE_ID]: { card: entry } } });
  }
}

/**
 * A card that holds nothing secret: the rule set and the mode. Each reader's browser draws the rest from
 * its own view of the table.
 * @param {Record<string, any>} entry
 * @param {string} system
 */
export function renderShell(entry, system) {
  const mode = entry.mode ?? "public";
  return inert(`<div class="verdict-card verdict-shell system-${escapeHTML(system)}" data-check-id="${escapeHTML(entry.checkId)}" data-system="${escapeHTML(system)}">`
    + `<header class="verdict-card-header"><span class="verdict-system">${escapeHTML(t(`VERDICT.System.${system}`))}</span>`
    + `<span class="verdict-mode" data-mode="${escapeHTML(mode)}"><i class="fa-solid fa-eye-slash" aria-hidden="true"></i> ${escapeHTML(t(`VERDICT.Mode.${mode}`))}</span></header>`
    + `<p class="verdict-shell-note">${escapeHTML(t("VERDICT.Card.shell"))}</p></div>`);
}

/**
 * The pairing key of a card's message: the same on the GM's connection and the player view's. A follow-up is
 * known by its request id, not its seq (each connection numbers only the events it is told of).
 * @param {Rolled|Followed} msg
 */
function cardKey(msg) {
  return msg.type === "rolled" ? `rolled:${msg.check}` : `followed:${msg.check}:${msg.id || `seq-${msg.seq}`}`;
}

/**
 * The chat message holding a check's card: one written by a GM (the relay) or by the roller the card names
 * (the relay writes cards for the roller; a self roll's roller writes its own). A message another user made
 * with a card's flags is not it.
 * @param {string} checkId
 */
export function findCardMessage(checkId) {
  return findMessage((m) => {
    const card = /** @type {{checkId?: string, user?: string|null}|undefined} */ (m.getFlag(MODULE_ID, "card"));
    if (card?.checkId !== checkId) return false;
    /** @typedef {{isGM?: boolean, id?: string|null}|null|undefined} Author */
    const written = /** @type {{author?: Author, user?: Author}} */ (/** @type {unknown} */ (m));
    const author = written.author ?? written.user;
    return Boolean(author?.isGM || (author?.id && author.id === card.user));
  });
}

/**
 * A public part of a gathered check has no card of its own: the relay throws it for everyone.
 * @param {AnyResult|null} result
 * @param {string|null|undefined} roller
 */
function throwForEveryone(result, roller) {
  const dice3d = /** @type {{dice3d?: {show?: (...args: unknown[]) => unknown}}} */ (/** @type {unknown} */ (game)).dice3d;
  if (!dice3d?.show || !Array.isArray(result?.dice)) return;
  const user = (roller && game.users?.get(roller)) || game.user;
  Promise.resolve(dice3d.show({ throws: [{ dice: diceToThrow(result) }] }, user, true, null, false)).catch(() => {});
}
