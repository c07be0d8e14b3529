/**
 * The chat card's view model: from a `rolled` (and later `followed`) message to what the card template
 * draws. Pure: the template localizes the keys; node --test checks the model.
 * @module
 */

import { BOONS_DIE_SIZE, DIE_SIZE, FEAT_DICE, FLAIRS, toneOf } from "./systems.mjs";

/**
 * @typedef {object} CardEntry  what a chat message's flags hold for a card
 * @property {string} checkId
 * @property {number} seq
 * @property {Record<string, any>} result
 * @property {Record<string, any>} [check]   the wire check, when the roller's client knows it
 * @property {string} by
 * @property {string|null} [user]
 * @property {string|null} [actor]
 * @property {string|null} [target]
 * @property {string|null} [scene]
 * @property {string} [mode]
 * @property {string|null} [label]
 * @property {string|null} [extended]
 * @property {Array<Record<string, any>>} [actions]  follow-up actions applied, in order
 * @property {boolean} [redacted]  the stored result is the player-safe copy
 * @property {string|null} [gather]  the gathered check this roll is a part of
 * @property {OpenFollowup[]} [open]  the follow-ups open to this viewer (its own copy's list; never the document's)
 */

/**
 * @typedef {object} Fact
 * @property {string} key           i18n key of the label
 * @property {string|number} [value]
 * @property {string} [valueKey]    i18n key of the value, instead of `value`
 * @property {string} [tone]
 */

/**
 * @typedef {object} FollowButton
 * @property {string} labelKey
 * @property {Record<string, any>} action   the wire action
 * @property {string} [tone]
 * @property {boolean} [gmOnly]
 * @property {string} [trial]   the trial a bargain button names
 * @property {string} [flair]   the flair a choice button names
 */

const K = "VERDICT";

/**
 * @param {number} n
 * @returns {string} with an explicit sign
 */
export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** @param {Record<string, any>} r @returns {Array<Record<string, any>>} */
function facetsDice(r) {
  let marked = false;
  return (r.dice ?? []).map((/** @type {number} */ f) => {
    const read = !marked && f === r.highest;
    if (read) marked = true;
    return { face: f, size: 6, cls: [read ? "read" : "", f === 6 ? "max" : "", f === 1 ? "min" : ""].join(" ").trim() };
  });
}

/** @param {Record<string, any>} r @returns {Fact[]} */
function facetsFacts(r) {
  /** @type {Fact[]} */
  const facts = [{ key: `${K}.Fact.pool`, value: r.pool }];
  if (r.desperate) facts.push({ key: `${K}.Fact.desperate`, valueKey: `${K}.Yes`, tone: "bad" });
  facts.push({ key: `${K}.Fact.highest`, value: r.highest });
  const harm = r.harm ?? {};
  if ((harm.opponent ?? []).length) {
    facts.push({ key: `${K}.Fact.harmOpponent`, value: harm.opponent.map((/** @type {string} */ h) => `@${K}.Harm.${h}`).join(", "), tone: "good" });
  }
  if ((harm.character ?? []).length) {
    facts.push({ key: `${K}.Fact.harmCharacter`, value: harm.character.map((/** @type {string} */ h) => `@${K}.Harm.${h}`).join(", "), tone: "bad" });
  }
  if (r.facet) facts.push({ key: `${K}.Fact.facet`, valueKey: `${K}.Facet.${r.facet}`, tone: r.facet === "beneficial" ? "good" : "bad" });
  if (r.cost) facts.push({ key: `${K}.Fact.cost`, valueKey: `${K}.Yes`, tone: "mixed" });
  if (r.discord) facts.push({ key: `${K}.Fact.discord`, valueKey: `${K}.Discord.${r.discord}`, tone: "bad" });
  return facts;
}

/** @param {Record<string, any>} r @returns {Fact[]} */
function challengeFacts(r) {
  /** @type {Fact[]} */
  const facts = [
    { key: `${K}.Fact.total`, value: r.total },
    { key: `${K}.Fact.levelVsCl`, value: `${r.level} / ${r.cl ?? "?"}` },
    { key: `${K}.Fact.margin`, value: signed(r.margin ?? 0) },
  ];
  if (r.strain) facts.push({ key: `${K}.Fact.strain`, value: signed(r.strain), tone: r.strain > 0 ? "bad" : "good" });
  if (r.game_changers) facts.push({ key: `${K}.Fact.gameChangers`, value: signed(r.game_changers), tone: "good" });
  if (r.chosen) facts.push({ key: `${K}.Fact.chosen`, valueKey: `${K}.Choice.${r.chosen}`, tone: "good" });
  if (r.condition) facts.push({ key: `${K}.Fact.condition`, valueKey: `${K}.Yes`, tone: "bad" });
  if (r.complication) facts.push({ key: `${K}.Fact.complication`, valueKey: `${K}.Complication.${r.complication}`, tone: r.complication === "add" ? "bad" : "good" });
  if (r.addresses) facts.push({ key: `${K}.Fact.addresses`, value: r.addresses });
  if (r.natural === 1) facts.push({ key: `${K}.Fact.natural`, value: 1, tone: "dire" });
  return facts;
}

/** @param {Record<string, any>} r @returns {Array<Record<string, any>>} */
function flairsDice(r) {
  const removed = [...(r.removed ?? [])];
  const kept = r.kept ?? [];
  const high = kept.length ? Math.max(...kept) : null;
  let readMarked = false;
  return (r.dice ?? []).map((/** @type {number} */ f) => {
    const i = removed.indexOf(f);
    const isRemoved = i >= 0 && !kept.includes(f) ? (removed.splice(i, 1), true) : false;
    const read = !isRemoved && !readMarked && f === high;
    if (read) readMarked = true;
    return { face: f, size: 6, cls: [isRemoved ? "removed" : "", read ? "read" : ""].join(" ").trim() };
  });
}

/** @param {Record<string, any>} r @returns {Fact[]} */
function flairsFacts(r) {
  /** @type {Fact[]} */
  const facts = [];
  if (r.flairs) facts.push({ key: `${K}.Fact.flairs`, value: r.flairs, tone: "good" });
  if (r.trials) facts.push({ key: `${K}.Fact.trials`, value: r.trials, tone: "bad" });
  if (r.tainted) facts.push({ key: `${K}.Fact.tainted`, value: r.tainted, tone: "bad" });
  if (r.desperate) facts.push({ key: `${K}.Fact.desperate`, valueKey: `${K}.Yes`, tone: "bad" });
  if ((r.chosen_flairs ?? []).length) facts.push({ key: `${K}.Fact.chosenFlairs`, value: r.chosen_flairs.map((/** @type {string} */ f) => `@${K}.Flair.${f}`).join(", "), tone: "good" });
  const named = (r.standing ?? []).filter((/** @type {any} */ t) => t.name).map((/** @type {any} */ t) => `@${K}.Trial.${t.name}`);
  if (named.length) facts.push({ key: `${K}.Fact.trialNames`, value: named.join(", "), tone: "bad" });
  if (r.lurking > 0) {
    const names = Array.isArray(r.lurking_trials) ? r.lurking_trials.map((/** @type {string} */ t) => `@${K}.Trial.${t}`).join(", ") : null;
    facts.push({ key: `${K}.Fact.lurking`, value: names ? `${r.lurking}: ${names}` : `${r.lurking} (@${K}.Card.secret)`, tone: "bad" });
  }
  if ((r.banished ?? []).length) facts.push({ key: `${K}.Fact.banished`, value: r.banished.map((/** @type {string} */ t) => `@${K}.Trial.${t}`).join(", "), tone: "good" });
  if (r.bargain) facts.push({ key: `${K}.Fact.bargain`, value: `@${K}.Trial.${r.bargain}`, tone: "mixed" });
  if (Array.isArray(r.group)) {
    for (const p of r.group) facts.push({ key: `${K}.Fact.participant`, value: `${p.name}: @${K}.Outcome.flairs.${p.outcome} (${p.highest})`, tone: p.outcome === "success" ? "good" : "bad" });
  }
  if ((r.springs ?? []).length) facts.push({ key: `${K}.Fact.springs`, value: r.springs.join(", "), tone: "dire" });
  return facts;
}

const FEATS_COLOURS = FEAT_DICE;

/** @param {Record<string, any>} r @returns {Array<Record<string, any>>} */
function featsDice(r) {
  return (r.dice ?? []).map((/** @type {number} */ f, /** @type {number} */ i) => ({
    face: f, size: 8, cls: `feat-${FEATS_COLOURS[i] ?? "white"}${(r.bought ?? []).includes(FEATS_COLOURS[i]) ? " bought" : ""}`,
  }));
}

/** @param {Record<string, any>} r @returns {Fact[]} */
function featsFacts(r) {
  /** @type {Fact[]} */
  const facts = [{ key: `${K}.Fact.featLevel`, value: signed(r.level ?? 0) }, { key: `${K}.Fact.degree`, value: signed(r.degree ?? 0), tone: (r.degree ?? 0) > 0 ? "good" : (r.degree ?? 0) < 0 ? "bad" : undefined }];
  if ((r.bought ?? []).length) facts.push({ key: `${K}.Fact.bought`, value: r.bought.map((/** @type {string} */ c) => `@${K}.FeatDie.${c}`).join(", ") });
  if (r.cost) facts.push({ key: `${K}.Fact.wyrdCost`, value: r.cost });
  return facts;
}

/** @param {Record<string, any>} r @returns {Array<Record<string, any>>} */
function boonsDice(r) {
  const types = r.types ?? [];
  const symbols = r.symbols ?? [];
  return (r.dice ?? []).map((/** @type {number} */ f, /** @type {number} */ i) => {
    const type = types[i] ?? "ability";
    return { face: symbols[i] ?? f, size: /** @type {Record<string, number>} */ (BOONS_DIE_SIZE)[type] ?? 6, cls: `boons-${type}`, title: `${type} ${f}` };
  });
}

/** @param {Record<string, any>} r @returns {Fact[]} */
function boonsFacts(r) {
  /** @type {Fact[]} */
  const facts = [{ key: `${K}.Fact.netSuccesses`, value: signed(r.net_successes ?? 0), tone: (r.net_successes ?? 0) > 0 ? "good" : "bad" }];
  if (r.net_boons) facts.push({ key: r.net_boons > 0 ? `${K}.Fact.netBoons` : `${K}.Fact.netBanes`, value: Math.abs(r.net_boons), tone: r.net_boons > 0 ? "good" : "bad" });
  if (r.breakthroughs) facts.push({ key: `${K}.Fact.breakthroughs`, value: r.breakthroughs, tone: "great" });
  if (r.calamities) facts.push({ key: `${K}.Fact.calamities`, value: r.calamities, tone: "dire" });
  if (r.group_banes) facts.push({ key: `${K}.Fact.groupBanes`, value: r.group_banes });
  if (r.winner) facts.push({ key: `${K}.Fact.winner`, valueKey: `${K}.Winner.${r.winner}`, tone: r.winner === "actor" ? "good" : "bad" });
  if (r.defender) {
    facts.push({ key: `${K}.Fact.defenderNet`, value: signed(r.defender.net_successes ?? 0) });
    if (r.defender.remaining_boons) facts.push({ key: `${K}.Fact.defenderBoons`, value: r.defender.remaining_boons });
    if (r.defender.remaining_banes) facts.push({ key: `${K}.Fact.defenderBanes`, value: r.defender.remaining_banes });
  }
  if (r.extended) {
    const x = r.extended;
    facts.push({ key: `${K}.Fact.extended`, value: `${x.progress} / ${x.threshold}${x.limit ? ` (${x.attempts}/${x.limit})` : ""}` });
    facts.push({ key: `${K}.Fact.extendedStatus`, valueKey: `${K}.Extended.${x.status}`, tone: x.status === "complete" ? "good" : x.status === "failed" ? "bad" : undefined });
  }
  return facts;
}

/**
 * @typedef {object} OpenFollowup  a follow-up the sidecar says is open to this viewer (`rolled.open`)
 * @property {string} action   the follow-up action's tag, or `extended_next`
 * @property {boolean} [gm]    the GM's (the Judge's) to make
 * @property {string[]} [options]  `challenge_choice`: the options
 * @property {number} [flairs]     `flairs_choose`: at most this many
 * @property {string[]} [trials]   `flairs_bargain`: the trials it may name
 * @property {number} [count]      `flairs_name_trials`, `flairs_set_lurking`: how many trials
 * @property {string} [extended]   `extended_next`: the extended check
 */

/**
 * The follow-ups open to this viewer, as the sidecar listed them for this viewer's own copy of the check. A
 * card whose entry has no list (the shared document, an older sidecar's message) offers none: the module
 * decides no rule.
 * @param {CardEntry} entry
 * @returns {OpenFollowup[]}
 */
export function openFollowups(entry) {
  return Array.isArray(entry.open) ? entry.open.filter((o) => o && typeof o.action === "string") : [];
}

/**
 * The buttons of the open follow-ups that are sent as they are (one click, one wire action). Each carries
 * the wire action it sends; `extended_next` opens the roll dialog instead.
 * @param {OpenFollowup[]} open
 * @param {CardEntry} entry
 * @returns {FollowButton[]}
 */
export function followups(open, entry) {
  /** @type {FollowButton[]} */
  const out = [];
  for (const o of open) {
    const gmOnly = Boolean(o.gm);
    switch (o.action) {
      case "challenge_choice":
        for (const option of o.options ?? []) out.push({ labelKey: `${K}.Follow.challenge_choice.${option}`, action: { action: o.action, option }, tone: "good", gmOnly });
        break;
      case "flairs_reveal":
        out.push({ labelKey: `${K}.Follow.flairs_reveal`, action: { action: o.action }, gmOnly });
        break;
      case "flairs_name_trials":
      case "flairs_set_lurking":
        // the card asks the sidecar to draw them at random (one d6 each)
        out.push({ labelKey: `${K}.Follow.${o.action}`, action: { action: o.action, trials: null, dice: null }, gmOnly });
        break;
      case "extended_next":
        out.push({ labelKey: `${K}.Follow.extended_next`, action: { action: o.action, extended: o.extended ?? entry.extended ?? null }, gmOnly });
        break;
      default:
        break; // drawn as a form (the flair choice, the bargain, the removal), or unknown to this module
    }
  }
  return out;
}

/**
 * The flair choice and the devil's bargain need a selection before they are sent: the card draws them as
 * small forms, from what the open follow-up gives (how many flairs, which trials).
 * @param {OpenFollowup[]} open
 */
export function flairsForms(open) {
  const choose = open.find((o) => o.action === "flairs_choose");
  const bargain = open.find((o) => o.action === "flairs_bargain");
  return {
    choose: choose ? { max: choose.flairs ?? 0, flairs: FLAIRS.map((f) => ({ value: f, labelKey: `${K}.Flair.${f}` })) } : null,
    bargain: bargain ? { trials: (bargain.trials ?? []).map((x) => ({ value: x, labelKey: `${K}.Trial.${x}` })) } : null,
  };
}

/**
 * Is the GM's removal of a complication (after an epic success) open to this viewer?
 * @param {CardEntry} entry
 */
export function removesComplication(entry) {
  return openFollowups(entry).some((o) => o.action === "challenge_remove_complication");
}

/**
 * The complications the GM may remove after an epic success: the open ones of the roll's scene, as the
 * GM's own snapshot holds them (never from the shared chat document, which players receive too).
 * @param {CardEntry} entry
 * @param {Record<string, any>|null|undefined} snapshot  the GM connection's table snapshot
 * @returns {Array<{value: string, text: string, hidden: boolean}>}
 */
export function complicationChoices(entry, snapshot) {
  if (!removesComplication(entry) || !entry.scene) return [];
  const scene = snapshot?.scenes?.[entry.scene];
  return (scene?.complications ?? []).map((/** @type {Record<string, any>} */ c) => ({ value: String(c.id), text: String(c.text), hidden: Boolean(c.hidden) }));
}

/**
 * Build the card model.
 * @param {CardEntry} entry
 * @param {{isGM?: boolean, canFollow?: boolean, verified?: boolean|null, actorName?: string|null}} [opts]
 */
export function buildCard(entry, opts = {}) {
  const r = entry.result ?? {};
  const system = r.system ?? "unknown";
  const builders = {
    facets: [facetsDice, facetsFacts],
    challenge: [(/** @type {Record<string, any>} */ x) => (x.dice ?? []).map((/** @type {number} */ f) => ({ face: f, size: 20, cls: f === 20 ? "max" : f === 1 ? "min" : "" })), challengeFacts],
    flairs: [flairsDice, flairsFacts],
    feats: [featsDice, featsFacts],
    boons: [boonsDice, boonsFacts],
  };
  const [diceOf, factsOf] = /** @type {Record<string, Function[]>} */ (builders)[system]
    ?? [(/** @type {any} */ x) => (x.dice ?? []).map((/** @type {number} */ f) => ({ face: f, size: /** @type {any} */ (DIE_SIZE)[system] ?? 6, cls: "" })), () => []];
  const mode = entry.mode ?? "public";
  const open = opts.canFollow === false ? [] : openFollowups(entry);
  const buttons = followups(open, entry);
  return {
    checkId: entry.checkId,
    seq: entry.seq,
    system,
    systemKey: `${K}.System.${system}`,
    outcome: r.outcome,
    outcomeKey: `${K}.Outcome.${system}.${r.outcome}`,
    tone: toneOf(system, r.outcome),
    label: entry.label ?? null,
    actorName: opts.actorName ?? null,
    mode,
    modeKey: `${K}.Mode.${mode}`,
    secret: mode !== "public",
    dice: diceOf(r),
    facts: factsOf(r),
    suggestion: r.suggestion ?? null,
    followups: buttons.filter((b) => !b.gmOnly).map((b) => ({ ...b, actionJson: JSON.stringify(b.action) })),
    gmFollowups: buttons.filter((b) => b.gmOnly).map((b) => ({ ...b, actionJson: JSON.stringify(b.action) })),
    ...flairsForms(open),
    // The GM's follow-up after an epic success: the card draws an empty list that the GM's browser fills
    // from its own snapshot (see complicationChoices).
    removeComplication: open.some((o) => o.action === "challenge_remove_complication"),
    extendedNext: buttons.some((b) => b.action.action === "extended_next"),
    // "Apply" brings the tokens of the card's actor and target in line with the table: only a card
    // that names one has it (the GM's alone; the card marks it GM-only).
    apply: Boolean(entry.actor || entry.target),
    unverified: opts.verified === false,
    redacted: Boolean(entry.redacted),
    actions: (entry.actions ?? []).map((a) => a.action),
  };
}

/**
 * Resolve a model's i18n keys with `localize` (Foundry's `game.i18n.localize`), including `@KEY` tokens
 * inside fact values, so the template only prints strings.
 * @param {ReturnType<typeof buildCard>} model
 * @param {(key: string) => string} localize
 */
export function localizeCard(model, localize) {
  const tokens = (/** @type {string} */ s) => s.replace(/@(VERDICT\.[\w.]+)/g, (_m, key) => localize(key));
  return {
    ...model,
    systemLabel: localize(model.systemKey),
    outcomeLabel: localize(model.outcomeKey),
    modeLabel: localize(model.modeKey),
    facts: model.facts.map((/** @type {Fact} */ f) => ({
      ...f,
      label: localize(f.key),
      text: f.valueKey ? localize(f.valueKey) : tokens(String(f.value ?? "")),
    })),
    followups: model.followups.map((b) => ({ ...b, label: localizeButton(b, localize) })),
    gmFollowups: model.gmFollowups.map((b) => ({ ...b, label: localizeButton(b, localize) })),
    choose: model.choose && { ...model.choose, flairs: model.choose.flairs.map((f) => ({ ...f, label: localize(f.labelKey) })) },
    bargain: model.bargain && { ...model.bargain, trials: model.bargain.trials.map((x) => ({ ...x, label: localize(x.labelKey) })) },
  };
}

/**
 * @param {FollowButton & {trial?: string, flair?: string}} b
 * @param {(key: string) => string} localize
 */
function localizeButton(b, localize) {
  if (b.trial) return `${localize(b.labelKey)}: ${localize(`VERDICT.Trial.${b.trial}`)}`;
  return localize(b.labelKey);
}
