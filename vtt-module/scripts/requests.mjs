/**
 * GM roll requests: a card posted to chosen players with a Roll button that opens their dialog prefilled.
 *
 * A gathered request (a group check whose participants each roll their own pool, an opposed check whose
 * sides each roll theirs: the vocabulary says which rule sets gather and how) starts the whole check on the
 * table first (`gather_start`). Each participant's button rolls their part; the card shows every part
 * as the sidecar reports it and, with the last part, the whole check's outcome (and who springs a room
 * trap). The active GM's client is the only writer of the card, and it writes from its own connection's
 * `rolled` messages, never from a player's word.
 *
 * Foundry hands every chat message (and every module socket frame) to every client: a request whose rolls
 * are not public (gm, blind, self) records who rolled and the check, never the outcome. Each reader's browser
 * draws the outcomes it may see from its own view of the table (a GM's connection, the roller's reply, or the
 * sidecar's answer to `verify`), as roll cards do with their shells.
 */

import { MODULE_ID } from "./constants.mjs";
import { isRelay } from "./client.mjs";
import { sendFrame } from "./relay/relay.mjs";
import { FIELDS, fieldActive, gatherOf, labelOf, toneOf } from "./lib/systems.mjs";
import { gatherCheck, gatherModel, gatherable, gathersGroup, partRoll, partValues, resolvedOf, sidesOf } from "./lib/gather.mjs";
import { signed } from "./lib/card-model.mjs";
import { requestForCharacter } from "./lib/mapping.mjs";
import { newId } from "./lib/protocol.mjs";
import { renderMessage, t } from "./render.mjs";
import { findMessage, messageById } from "./documents.mjs";
import { RollDialog } from "./apps/roll-dialog.mjs";

/**
 * @typedef {object} RequestSpec
 * @property {string} system
 * @property {Record<string, any>} values
 * @property {string[]} [fromCharacter]  fields the GM left to each roller's character (the world's mapping fills
 *   them from the rolling player's character; `values` holds the GM's own for the rest)
 * @property {string} [mode]
 * @property {string|null} [label]
 * @property {string[]} users   who is asked to roll (a request that does not gather)
 * @property {boolean} [group]  gather every roll into one check
 * @property {import("./lib/gather.mjs").Participant[]} [participants]  a group check: who rolls, with their pools
 * @property {boolean} [trap]   a group check: its flag (the check field `gather.flag` names: a room trap)
 * @property {Record<string, string>} [sides]  an opposed check: the user who rolls each side
 * @property {string|null} [scene]
 */

/**
 * What a request card's flags hold (`flags.verdict.request`): what the GM asked for, of whom, and what came
 * of each roll so far (a card that gathers: each part's roll and the whole check's result).
 * @typedef {object} RequestCard
 * @property {string} id
 * @property {string} system
 * @property {Record<string, any>} values  the dialog's values (each rule set's own fields)
 * @property {string[]} [fromCharacter]
 * @property {string} [mode]
 * @property {string|null} [label]
 * @property {string[]} users
 * @property {boolean} [group]
 * @property {Record<string, {check: string, outcome: string|null, verified: boolean}>} [rolls]  a card that does not gather
 * @property {string} [gather]  the gathered check's id
 * @property {Record<string, any>} [check]  the gathered check
 * @property {Array<{name: string, user: string}>} [parts]
 * @property {Record<string, import("./lib/gather.mjs").PartRoll>} [partRolls]
 * @property {Record<string, any>|null} [result]  the gathered check's result, once every part is rolled
 */
/** @typedef {import("./generated/protocol.mjs").Sequenced} Sequenced */
/** @typedef {import("./generated/protocol.mjs").GatherStarted} GatherStarted */

/**
 * @param {import("./client.mjs").VerdictClient} client
 * @param {RequestSpec} req
 */
export async function postRequest(client, req) {
  const gms = game.users?.filter((u) => u.isGM).map((u) => u.id) ?? [];
  const names = new Set((FIELDS[req.system] ?? []).map((f) => f.name));
  const fromCharacter = [...new Set((req.fromCharacter ?? []).filter((name) => names.has(name)))];
  const base = { id: newId(), system: req.system, values: req.values, fromCharacter, mode: req.mode ?? "public", label: req.label ?? null };
  /** @type {RequestCard} */
  let request;
  if (req.group && gatherable(req.system, req.values)) {
    const check = gatherCheck(req.system, req.values, req.participants ?? [], req.trap);
    const done = await client.gm({ op: "gather_start", check, name: req.label ?? "", scene: req.scene ?? null });
    const events = /** @type {Sequenced[]} */ (done.events ?? []).map((s) => s?.event);
    const started = /** @type {GatherStarted|undefined} */ (events.find((e) => e?.kind === "gather_started"));
    if (!started) throw new Error("gather_start recorded no gathered check");
    const owner = (/** @type {string} */ part) => (gathersGroup(req.system)
      ? (req.participants ?? []).find((p) => p.name === part)?.user
      : req.sides?.[part]) ?? game.user?.id ?? "";
    const parts = started.parts.map((name) => ({ name, user: owner(name) }));
    request = {
      ...base, users: [...new Set(parts.map((p) => p.user))], group: true,
      gather: started.gather, check: started.check, parts, partRolls: {}, result: null,
    };
  } else {
    request = { ...base, users: req.users, group: false, rolls: {} };
  }
  return ChatMessage.create({
    content: await renderRequest(request),
    whisper: [...new Set([...request.users, ...gms])],
    flags: { [MODULE_ID]: { request } },
  });
}

/** Card updates in arrival order: two parts rolled at once must both land on the card. */
let queue = Promise.resolve();

/**
 * @param {() => Promise<void>} work
 */
function serial(work) {
  queue = queue.then(work).catch((err) => console.error(`${MODULE_ID} | updating a request card failed`, err));
  return queue;
}

/**
 * A participant rolled for a request card that does not gather: the active GM records it.
 * @param {import("./relay/writer.mjs").ChatCards|null} cards
 * @param {string} messageId
 * @param {Record<string, any>} rolled
 * @param {string|null} userId
 */
export function requestRolled(cards, messageId, rolled, userId) {
  if (!isRelay()) {
    // The frame reaches every client: a secret roll's outcome stays out of it (the request's mode, or the
    // mode the roller chose in the dialog).
    const open = !secretRequest(messageById(messageId)?.getFlag(MODULE_ID, "request")) && (rolled.mode ?? "public") === "public";
    sendFrame("request-rolled", {
      message: messageId, check: rolled.check, mode: rolled.mode ?? "public",
      outcome: open ? rolled.result?.outcome : undefined, system: open ? rolled.result?.system : undefined,
    });
    return Promise.resolve();
  }
  return serial(async () => {
    const message = messageById(messageId);
    const request = /** @type {RequestCard|undefined} */ (message?.getFlag(MODULE_ID, "request"));
    if (!message || !request || !userId || !request.users.includes(userId)) return;
    // The outcome comes from the GM's own copy of the roll when it has one, not from the player's word.
    const full = cards?.full.get(rolled.check);
    // A roll the GM connection saw made by someone else is not this user's to record.
    const seen = cards?.pending.get(`rolled:${rolled.check}`)?.gm;
    if (seen && seen.user && seen.user !== userId) return;
    // A secret roll's outcome is not the document's to hold: each reader draws what it may see. Secret by the
    // request's mode or the roll's own (as this GM's connection heard it; a self roll it never hears).
    const mode = cards?.fullMsg.get(rolled.check)?.mode ?? rolled.mode ?? (full ? "public" : null);
    const secret = secretRequest(request) || mode !== "public";
    const outcome = secret ? null : full?.outcome ?? rolled.result?.outcome ?? rolled.outcome ?? null;
    const rolls = { ...(request.rolls ?? {}), [userId]: { check: rolled.check, outcome, verified: Boolean(full) } };
    const next = { ...request, rolls };
    await message.update({ content: await renderRequest(next), flags: { [MODULE_ID]: { request: next } } });
  });
}

/**
 * Are the rolls a request asks for hidden from some of its readers (any mode but public)?
 * @param {{mode?: string}|undefined|null} request
 */
export function secretRequest(request) {
  return (request?.mode ?? "public") !== "public";
}

/**
 * Active GM: a part of a gathered check was rolled (the GM connection's `rolled`, with `gather`).
 * @param {import("./generated/protocol.mjs").Rolled} rolled
 */
export function gatherRolled(rolled) {
  if (!isRelay()) return Promise.resolve();
  return serial(async () => {
    const { gather, part } = rolled;
    if (!gather || !part) return; // no card gathers it, no part of one is named so
    const message = requestMessage(gather);
    const request = /** @type {RequestCard|undefined} */ (message?.getFlag(MODULE_ID, "request"));
    if (!message || !request || !(request.parts ?? []).some((p) => p.name === part)) return;
    // The card is a document every client receives: a part rolled in secret shows only that it was rolled,
    // and the whole check (which tells every part's faces) only when no part was secret.
    const secret = secretRequest(request) || (rolled.mode ?? "public") !== "public";
    const partRolls = { ...(request.partRolls ?? {}), [part]: secret ? hiddenPart(rolled.check, rolled.user) : partRoll(rolled) };
    const result = hidesWhole(partRolls) ? null : resolvedOf(rolled) ?? request.result ?? null;
    const next = { ...request, partRolls, result };
    await message.update({ content: await renderRequest(next), flags: { [MODULE_ID]: { request: next } } });
  });
}

/**
 * Active GM: bring gathered request cards in line with the snapshot's `gathers` (parts rolled while this
 * client was away, or a result it missed).
 * @param {{gathers?: Record<string, import("./generated/protocol.mjs").GatherState>}|null} snapshot
 */
export function syncGathers(snapshot) {
  if (!snapshot?.gathers || !isRelay()) return Promise.resolve();
  return serial(async () => {
    for (const [id, g] of Object.entries(snapshot.gathers ?? {})) {
      const message = requestMessage(id);
      const request = /** @type {RequestCard|undefined} */ (message?.getFlag(MODULE_ID, "request"));
      if (!message || !request) continue;
      /** @type {Record<string, import("./lib/gather.mjs").PartRoll>} */
      const partRolls = { ...(request.partRolls ?? {}) };
      let changed = false;
      for (const part of Object.keys(g.rolled ?? {})) {
        if (partRolls[part]) continue;
        // Rolled while this client was away, in a mode it cannot tell from the snapshot: only that it was.
        const user = (request.parts ?? []).find((p) => p.name === part)?.user ?? null;
        partRolls[part] = hiddenPart("", user);
        changed = true;
      }
      const result = request.result ?? (hidesWhole(partRolls) ? null : g.result ?? null);
      if (result !== request.result) changed = true;
      if (!changed) continue;
      const next = { ...request, partRolls, result };
      await message.update({ content: await renderRequest(next), flags: { [MODULE_ID]: { request: next } } });
    }
  });
}

/**
 * A part on a request card that shows only who rolled it (no faces, no outcome).
 * @param {string} check
 * @param {string|null|undefined} user
 */
function hiddenPart(check, user) {
  return { check, user: user ?? null, outcome: null, dice: [], secret: true };
}

/**
 * Does a part shown without its faces keep the whole check off the card?
 * @param {Record<string, {secret?: boolean}>} partRolls
 */
function hidesWhole(partRolls) {
  return Object.values(partRolls).some((p) => p?.secret);
}

/**
 * The chat message holding a gathered check's request card.
 * @param {string} gather
 */
export function requestMessage(gather) {
  return findMessage((m) => /** @type {RequestCard|undefined} */ (m.getFlag(MODULE_ID, "request"))?.gather === gather);
}

/**
 * The request card's HTML.
 * @param {RequestCard} request
 */
export async function renderRequest(request) {
  const system = request.system;
  const values = request.values ?? {};
  const gathered = Boolean(request.gather);
  const character = new Set(request.fromCharacter ?? []);
  /** @type {Array<{label: string, text: string}>} */
  let facts;
  if (gathered && gathersGroup(system)) {
    const flag = gatherOf(system)?.flag;
    facts = flag && request.check?.[flag] ? [{ label: t("VERDICT.Request.trap"), text: t("VERDICT.Yes") }] : [];
  } else {
    facts = (FIELDS[system] ?? [])
      .filter((f) => f.wire !== false && fieldActive(f, values) && values[f.name] !== null && values[f.name] !== undefined && values[f.name] !== "")
      .filter((f) => !(Array.isArray(values[f.name]) && !values[f.name].length))
      // A count left at its default of none says nothing worth a line.
      .filter((f) => !(values[f.name] === 0 && f.default === 0) && values[f.name] !== false)
      .map((f) => ({
        label: labelOf(system, f, t),
        text: character.has(f.name) ? t("VERDICT.Request.fromCharacter")
          : f.options ? t(`VERDICT.Option.${f.name}.${values[f.name]}`) : String(values[f.name]),
      }));
  }
  const participants = gathered ? [] : request.users.map((id) => {
    const roll = request.rolls?.[id];
    const outcome = roll?.outcome ?? null;
    return {
      id, name: game.users?.get(id)?.name ?? id, rolled: Boolean(roll),
      outcomeLabel: outcome ? t(`VERDICT.Outcome.${system}.${outcome}`) : null,
      tone: outcome ? toneOf(system, outcome) : null,
    };
  });
  const g = gathered ? gatherModel(request, (id) => game.users?.get(id)?.name ?? id) : null;
  const rows = (g?.rows ?? []).map((/** @type {any} */ r) => ({
    ...r,
    partLabel: r.partKey ? t(r.partKey) : r.part,
    showUser: Boolean(r.partKey) || r.userName !== r.part,
    outcomeLabel: r.outcomeKey ? t(r.outcomeKey) : null,
    netText: r.net !== null ? `${t("VERDICT.Fact.netSuccesses")} ${signed(r.net)}` : null,
  }));
  return renderMessage("request-card.hbs", {
    ...request,
    gathered,
    systemLabel: t(`VERDICT.System.${system}`),
    facts,
    participants,
    rows,
    groupOutcomeLabel: g?.outcomeKey
      ? `${t(sidesOf(system).length ? `VERDICT.Request.part.${sidesOf(system)[0]}` : "VERDICT.Request.groupOutcome")}: ${t(g.outcomeKey)}` : null,
    groupTone: g?.tone ?? null,
    springsText: g?.springs.length ? g.springs.join(", ") : null,
    winnerLabel: g?.winnerKey ? t(g.winnerKey) : null,
    netText: g?.net !== null && g?.net !== undefined ? signed(g.net) : null,
  });
}

// --- the request card for this viewer (the `renderChatMessageHTML` hook delegates here) ----------------

/**
 * Request cards: the Roll button opens the invited player's dialog, prefilled and locked. On a gathered
 * check each part has its own button, shown only to the user who rolls that part.
 * @param {ChatMessage.Implementation} message
 * @param {HTMLElement} html
 * @param {RequestCard} request
 */
export function decorateRequest(message, html, request) {
  const me = game.user?.id ?? "";
  const api = game.modules?.get(MODULE_ID)?.api;
  const locked = ["system", ...(FIELDS[request.system] ?? []).map((f) => f.name)];
  // The typed label is drawn from the flags as text: what Foundry's cleaning and enrichers made of the stored
  // content never decides what it reads.
  const title = html.querySelector(".verdict-request .verdict-label");
  if (title && typeof request.label === "string" && request.label) title.textContent = request.label;
  if (request.gather) {
    html.querySelectorAll("[data-verdict-part-roll]").forEach((el) => {
      const btn = /** @type {HTMLElement} */ (el);
      const part = btn.dataset.verdictPartRoll ?? "";
      if (btn.dataset.user !== me || request.partRolls?.[part]) {
        btn.remove();
        return;
      }
      btn.addEventListener("click", (ev) => {
        ev.preventDefault();
        new RollDialog({
          system: request.system,
          actor: game.user?.character?.id ?? null,
          values: partValues(/** @type {Record<string, any>} */ (request.check), part),
          locked,
          mode: request.mode,
          label: request.label ? `${request.label}: ${partName(request, part)}` : partName(request, part),
          request: message.id,
          gather: request.gather,
          part,
        }).render({ force: true });
      });
    });
    return;
  }
  drawOwnOutcomes(html, request);
  const invited = request.users.includes(me) && !request.rolls?.[me];
  if (!invited) html.querySelectorAll("[data-request-roll]").forEach((el) => el.remove());
  html.querySelector("[data-verdict-request-roll]")?.addEventListener("click", (ev) => {
    ev.preventDefault();
    // The fields the GM left to the character: the dialog fills them from this player's character.
    const own = requestForCharacter(request.values, request.fromCharacter, locked);
    new RollDialog({
      system: request.system,
      actor: game.user?.character?.id ?? null,
      values: own.values,
      locked: own.locked,
      mode: request.mode,
      label: request.label,
      request: message.id,
      onRolled: (rolled) => api?.requestRolled(/** @type {string} */ (message.id), rolled),
    }).render({ force: true });
  });
}

/**
 * A secret roll's outcome is not on a request card: draw those this viewer may see, from its own copy of each roll
 * (a GM's connection, the roller's reply) or, after a reload, from the sidecar's answer to `verify`.
 * @param {HTMLElement} html
 * @param {RequestCard} request
 */
function drawOwnOutcomes(html, request) {
  const api = game.modules?.get(MODULE_ID)?.api;
  const client = api?.client;
  const isGM = Boolean(game.user?.isGM);
  const me = game.user?.id ?? "";
  for (const [user, roll] of Object.entries(request.rolls ?? {})) {
    const chip = /** @type {HTMLElement|null} */ (html.querySelector(`li[data-user="${CSS.escape(user)}"] [data-rolled]`));
    if (!chip || !roll?.check || !(isGM || user === me)) continue;
    const draw = (/** @type {{outcome?: string}|null|undefined} */ result) => {
      if (!result?.outcome) return;
      chip.textContent = t(`VERDICT.Outcome.${request.system}.${result.outcome}`);
      chip.className = `verdict-outcome-chip tone-${toneOf(request.system, result.outcome)}`;
    };
    const copy = isGM ? api?.cards?.full.get(roll.check) : client?.mine.get(roll.check)?.result;
    if (copy) draw(copy);
    else if (client && (isGM ? client.own : true)) client.verify(roll.check).then((reply) => draw(reply.found ? reply.result : null)).catch(() => {});
  }
}

/**
 * A part's display name: a side of an opposed check is named by its role, a participant by their name.
 * @param {RequestCard} request
 * @param {string} part
 */
function partName(request, part) {
  return sidesOf(request.system).includes(part) ? t(`VERDICT.Request.part.${part}`) : part;
}
