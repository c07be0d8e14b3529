// A strict Foundry VTT stand-in (generation 13 or 14): the globals the Verdict module uses, behaving as
// Foundry documents them, so the real module files load unchanged in a plain page. Each user's page runs
// in a browser context of its own and talks to the stand-in server (server.py) over one websocket, as a
// Foundry client talks to its server: documents, presence, the module socket and user queries go through it.
/* global Handlebars */
(() => {
  const params = new URLSearchParams(location.search);
  const me = params.get("user") ?? "gm1";
  const worldId = params.get("world") ?? "";

  window.__errors = [];
  window.__notes = [];
  window.__writes = [];
  window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
  window.addEventListener("unhandledrejection", (e) => window.__errors.push(`unhandled: ${e.reason?.message ?? e.reason}`));

  // --- Hooks ----------------------------------------------------------------------------------------
  const hooks = new Map();
  let hookId = 0;
  const runHook = (name, h, args) => {
    if (h.once) Hooks.off(name, h.id);
    try { return h.fn(...args); } catch (err) {
      // Hooks.onError: a failing hook is logged and the others still run.
      console.error(`hook ${name} failed`, err);
      window.__errors.push(`${name}: ${err.message}`);
      return undefined;
    }
  };
  const Hooks = {
    on(name, fn, opts = {}) {
      if (!hooks.has(name)) hooks.set(name, []);
      const id = ++hookId;
      hooks.get(name).push({ id, fn, once: Boolean(opts.once) });
      return id;
    },
    once(name, fn) { return Hooks.on(name, fn, { once: true }); },
    off(name, fnOrId) {
      const list = hooks.get(name) ?? [];
      hooks.set(name, list.filter((h) => h.id !== fnOrId && h.fn !== fnOrId));
    },
    // Hooks.callAll: every handler runs, return values are ignored.
    callAll(name, ...args) {
      for (const h of [...(hooks.get(name) ?? [])]) runHook(name, h, args);
      return true;
    },
    // Hooks.call: a handler returning false stops the chain and the call returns false.
    call(name, ...args) {
      for (const h of [...(hooks.get(name) ?? [])]) if (runHook(name, h, args) === false) return false;
      return true;
    },
  };

  // --- utils ----------------------------------------------------------------------------------------
  const deepClone = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
  const getProperty = (o, path) => path.split(".").reduce((x, k) => (x == null ? undefined : x[k]), o);
  const setProperty = (o, path, value) => {
    const keys = path.split(".");
    const last = keys.pop();
    let x = o;
    for (const k of keys) x = (x[k] ??= {});
    x[last] = value;
    return true;
  };
  const mergeObject = (a, b) => {
    for (const [k, v] of Object.entries(b ?? {})) {
      if (v && typeof v === "object" && !Array.isArray(v) && a[k] && typeof a[k] === "object" && !Array.isArray(a[k])) mergeObject(a[k], v);
      else a[k] = v;
    }
    return a;
  };
  const randomID = (n = 16) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[b % 62]).join("");
  const escapeHTML = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  class Collection extends Map {
    get contents() { return [...this.values()]; }
    find(fn) { return this.contents.find(fn); }
    filter(fn) { return this.contents.filter(fn); }
    map(fn) { return this.contents.map(fn); }
    some(fn) { return this.contents.some(fn); }
    getName(name) { return this.find((d) => d.name === name); }
  }

  // --- i18n -----------------------------------------------------------------------------------------
  let translations = {};
  const lookup = (key) => key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), translations);
  const i18n = {
    localize: (key) => { const v = lookup(key); return typeof v === "string" ? v : key; },
    has: (key) => typeof lookup(key) === "string",
    format: (key, data = {}) => i18n.localize(key).replace(/\{(\w+)\}/g, (_m, k) => data[k] ?? `{${k}}`),
  };

  // --- the connection to the server -------------------------------------------------------------------
  let ws = null;
  let rid = 0;
  const acks = new Map();
  const send = (frame) => ws.send(JSON.stringify(frame));
  /**
   * The test's own instrument, not Foundry's: tell the server the first time this page is asked for a place
   * where generations 13 and 14 differ (the notifications pane, a popped-out window). The browser suite runs
   * a test in both generations when it asks for one. (The status list's shape differs too, but any roll
   * whose dice set a condition reaches it: the tests that set markers are marked by hand.)
   */
  const branched = new Set();
  const reached = (where) => {
    if (branched.has(where) || ws?.readyState !== WebSocket.OPEN) return;
    branched.add(where);
    send({ op: "reached", where });
  };
  /** A document operation the server confirms or refuses (Foundry rejects what the user may not do). */
  const ask = (frame) => new Promise((resolve, reject) => {
    const id = ++rid;
    acks.set(id, { resolve, reject });
    send({ ...frame, rid: id });
  });

  // --- users ----------------------------------------------------------------------------------------
  const ROLES = { NONE: 0, PLAYER: 1, TRUSTED: 2, ASSISTANT: 3, GAMEMASTER: 4 };
  class User {
    constructor(d) { this.id = d.id; this._id = d.id; this.name = d.name; this.role = d.role; this.characterId = d.character; this.active = false; }
    /** User#isGM: assistant GMs are GMs too. */
    get isGM() { return this.role >= ROLES.ASSISTANT; }
    get isSelf() { return this.id === me; }
    hasRole(role) { return this.role >= (typeof role === "string" ? ROLES[role] : role); }
    /** User#character: the Actor document. */
    get character() { return this.characterId ? game.actors.get(this.characterId) ?? null : null; }
    /** User#assignHotbarMacro: the macro in the first free slot (or the one given), the hotbar drawn again. */
    async assignHotbarMacro(macro, slot) {
      this.hotbar ??= {};
      const free = slot ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].find((n) => !this.hotbar[n]) ?? 1;
      this.hotbar[free] = macro.id;
      window.__hotbar = { macro: macro.name, slot: free };
      drawHotbar();
      return this;
    }
    /** User#can: a permission the world grants from a least role (MACRO_SCRIPT here); GMs may do all. */
    can(permission) { return this.isGM || (permission === "MACRO_SCRIPT" ? this.role >= macroScriptRole : true); }
    /** User#query: run CONFIG.queries[name] on this user's client and resolve with its answer; refused for an inactive user. */
    query(name, data, { timeout } = {}) {
      if (!this.active) return Promise.reject(new Error(`User ${this.id} is not active`));
      if (this.isSelf) return runQuery(name, deepClone(data), { timeout });
      return new Promise((resolve, reject) => {
        const qid = randomID();
        const timer = timeout ? setTimeout(() => { queries.delete(qid); reject(new Error(`query ${name} timed out`)); }, timeout) : null;
        queries.set(qid, { resolve, reject, timer });
        send({ op: "query", qid, to: this.id, name, data: deepClone(data) });
      });
    }
  }
  const queries = new Map();
  async function runQuery(name, data, options) {
    const handler = CONFIG.queries[name];
    if (typeof handler !== "function") throw new Error(`Unknown query "${name}"`);
    return handler(data, options);
  }
  class Users extends Collection {
    /** Users#activeGM: the connected GM with the highest role, then the lowest id. */
    get activeGM() {
      const gms = this.filter((u) => u.isGM && u.active).sort((a, b) => (b.role - a.role) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return gms[0] ?? null;
    }
    get players() { return this.filter((u) => !u.isGM); }
  }

  // --- actors and tokens ----------------------------------------------------------------------------
  const statusConfig = (id) => (Array.isArray(CONFIG.statusEffects) ? CONFIG.statusEffects.find((e) => e.id === id) : CONFIG.statusEffects[id]);
  class Actor {
    /** An unlinked token's actor is synthetic: the base actor's data with the token's ActorDelta over it. */
    constructor(d, token = null) {
      this.id = d.id; this._id = d.id; this.name = d.name; this.owner = d.owner; this.token = token;
      this.flags = deepClone(token ? mergeObject(deepClone(d.flags ?? {}), token.delta.flags ?? {}) : d.flags ?? {});
      this.statuses = new Set(token ? token.delta.statuses ?? [] : d.statuses ?? []);
      this.system = deepClone(d.system ?? {});
    }
    /** Actor#isToken: a synthetic actor (its id is still the base actor's). */
    get isToken() { return Boolean(this.token && !this.token.actorLink); }
    get uuid() { return this.isToken ? `${this.token.uuid}.Actor.${this.id}` : `Actor.${this.id}`; }
    /** Actor#getRollData: the system data; Simple Worldbuilding also puts each attribute's value at the top (`@rank`). */
    getRollData() {
      const data = deepClone(this.system);
      for (const [k, a] of Object.entries(this.system.attributes ?? {})) data[k] ??= a?.value;
      return data;
    }
    getFlag(scope, key) { return getProperty(this.flags[scope] ?? {}, key); }
    /** Document#setFlag: an update the server may refuse (ownership); applied when the server broadcasts it. */
    async setFlag(scope, key, value) {
      const flags = { [scope]: {} };
      setProperty(flags[scope], key, deepClone(value ?? null));
      await ask({ op: "updateActor", id: this.id, token: this.isToken ? this.token.id : null, flags });
      return this;
    }
    /** Actor#toggleStatusEffect: refuses a status not registered in CONFIG.statusEffects ("Invalid status ID"). */
    async toggleStatusEffect(id, { active } = {}) {
      if (!statusConfig(id)) throw new Error(`Invalid status ID "${id}" provided to Actor#toggleStatusEffect`);
      const on = active ?? !this.statuses.has(id);
      if (on === this.statuses.has(id)) return on;
      await ask({ op: "updateActor", id: this.id, token: this.isToken ? this.token.id : null, status: { id, active: on } });
      return on;
    }
    /** Document#testUserPermission: GMs own everything; a player owns their character (an actor of no one is the GMs'). */
    testUserPermission(user, level) { return user.isGM || (this.owner && user.id === this.owner) || level === "NONE"; }
    get isOwner() { return this.testUserPermission(game.user, "OWNER"); }
    getActiveTokens() { return (canvas.tokens?.placeables ?? []).filter((t) => t.actor === this); }
    _onUpdate(frame) {
      if (frame.flags) {
        mergeObject(this.flags, deepClone(frame.flags));
        for (const [scope, v] of Object.entries(frame.flags)) for (const key of Object.keys(v)) window.__writes.push({ by: frame.by, actor: this.id, what: `flag ${scope}.${key}` });
      }
      if (frame.status) {
        if (frame.status.active) this.statuses.add(frame.status.id); else this.statuses.delete(frame.status.id);
        window.__writes.push({ by: frame.by, actor: this.id, token: this.isToken ? this.token.id : null, what: `status ${frame.status.id} ${frame.status.active ? "on" : "off"}` });
      }
      if (this.isToken) {
        // A synthetic actor's change is its token's ActorDelta (the base actor is untouched).
        if (frame.flags) mergeObject(this.token.delta.flags, deepClone(frame.flags));
        if (frame.status) this.token.delta.statuses = [...this.statuses];
      }
      combatApp.drawCombatants();
      Hooks.callAll("updateActor", this, { flags: frame.flags ?? undefined, statuses: frame.status ? [...this.statuses] : undefined }, {}, frame.by);
      if (frame.status) for (const token of this.getActiveTokens()) token.renderFlags.set({ refreshEffects: true });
    }
  }

  class PIXIText {
    constructor(text, style) {
      this.text = text;
      this.style = style;
      this.visible = true;
      this.name = "";
      this.anchor = { x: 0, y: 0, set(x, y) { this.x = x; this.y = y ?? x; } };
      this.position = { x: 0, y: 0, set(x, y) { this.x = x; this.y = y ?? x; } };
    }
  }
  const STATUS_ICONS = { "verdict-condition": "fa-face-dizzy", "verdict-wound": "fa-droplet", "verdict-scratch": "fa-bandage", "verdict-taken-down": "fa-skull", dead: "fa-skull-crossbones" };
  /** TokenDocument: a token of a scene; linked (actorLink) to its world actor, or with a synthetic actor of its own. */
  class TokenDocument {
    constructor(d, parent) {
      this.id = d.id; this._id = d.id; this.name = d.name; this.actorId = d.actorId; this.actorLink = Boolean(d.actorLink);
      this.x = d.x; this.y = d.y; this.parent = parent; this.delta = deepClone(d.delta ?? { flags: {}, statuses: [] });
      this._synthetic = null;
    }
    get uuid() { return `Scene.${this.parent.id}.Token.${this.id}`; }
    /** TokenDocument#actor: the world actor for a linked token, else the token's synthetic actor (one per token). */
    get actor() {
      const base = actors.get(this.actorId);
      if (!base || this.actorLink) return base ?? null;
      // The token's ActorDelta may hold system data of its own (a stronger goblin): it overrides the base actor's.
      const system = mergeObject(deepClone(base.system ?? {}), deepClone(this.delta.system ?? {}));
      this._synthetic ??= new Actor({ id: base.id, name: base.name, owner: base.owner, flags: base.flags, system }, this);
      return this._synthetic;
    }
    get object() { return canvas.tokens.placeables.find((t) => t.document === this) ?? null; }
  }
  /** fromUuidSync: an actor, a token or a token's synthetic actor by uuid. */
  function fromUuidSync(uuid) {
    const parts = String(uuid ?? "").split(".");
    if (parts[0] === "Actor" && parts.length === 2) return actors.get(parts[1]) ?? null;
    if (parts[0] === "Scene" && parts[2] === "Token") {
      const token = game.scenes.get(parts[1])?.tokens.get(parts[3]);
      if (!token) return null;
      if (parts.length === 4) return token;
      if (parts[4] === "Actor" && parts.length === 6) return token.actor;
    }
    return null;
  }

  class Token {
    constructor(doc) {
      this.id = doc.id;
      this.document = doc;
      this.x = doc.x;
      this.y = doc.y;
      this.w = 100;
      this.h = 100;
      this.children = [];
      // Token#renderFlags: a refresh is scheduled, then `refreshToken` is called and the token drawn.
      this.renderFlags = { set: (flags) => queueMicrotask(() => this.refresh(flags)) };
    }
    /** Token#actor: the token document's actor (synthetic for an unlinked token). */
    get actor() { return this.document.actor; }
    addChild(child) { this.children.push(child); child.parent = this; return child; }
    refresh(flags = {}) {
      Hooks.callAll("refreshToken", this, flags);
      this.draw();
    }
    draw() {
      const board = document.getElementById("board");
      let el = board.querySelector(`[data-token="${this.id}"]`);
      if (!el) {
        el = document.createElement("div");
        el.className = "token";
        el.dataset.token = this.id;
        el.dataset.actor = this.actor.id;
        el.dataset.linked = String(this.document.actorLink);
        board.append(el);
      }
      Object.assign(el.style, { left: `${this.x}px`, top: `${this.y}px`, width: `${this.w}px`, height: `${this.h}px` });
      const initials = this.document.name.split(/\s+/).map((w) => w[0]).join("");
      // A status the configuration no longer lists is not drawn (Foundry draws effects from their config).
      const effects = [...this.actor.statuses].filter((id) => statusConfig(id)).map((id) => {
        const cfg = statusConfig(id);
        return `<li data-status="${id}" title="${escapeHTML(i18n.localize(cfg.name ?? id))}"><i class="fa-solid ${STATUS_ICONS[id] ?? "fa-circle"}"></i></li>`;
      }).join("");
      const texts = this.children.filter((c) => c instanceof PIXIText && c.visible).map((c) =>
        `<span class="token-text" data-name="${c.name}" style="left:${c.position.x}px;top:${c.position.y}px;color:${c.style?.fill ?? "#fff"};transform:translate(${-100 * c.anchor.x}%,${-100 * c.anchor.y}%)">${escapeHTML(c.text)}</span>`).join("");
      el.innerHTML = `<div class="token-img">${initials}</div><ul class="token-effects">${effects}</ul>${texts}<div class="token-name">${escapeHTML(this.document.name)}</div>`;
    }
  }

  // --- dice terms (foundry.dice.terms) -------------------------------------------------------------
  /** DiceTerm: a term of a roll formula; a subclass names its DENOMINATION (the letters after the number of dice). */
  class DiceTerm {
    static DENOMINATION = "";
    constructor({ number = 1, faces = 6, modifiers = [], results = [], options = {} } = {}) {
      this.number = number; this.faces = faces; this.modifiers = modifiers; this.results = results; this.options = options;
    }
    get denomination() { return this.constructor.DENOMINATION; }
    /** DiceTerm#getResultLabel: the text a face shows (the number, unless a subclass says otherwise). */
    getResultLabel(result) { return String(result.result); }
  }
  class Die extends DiceTerm { static DENOMINATION = "d"; }
  class Coin extends DiceTerm { static DENOMINATION = "c"; constructor(data = {}) { super({ ...data, faces: 2 }); } }
  class FateDie extends DiceTerm { static DENOMINATION = "f"; constructor(data = {}) { super({ ...data, faces: 3 }); } }

  // --- the text enricher ----------------------------------------------------------------------------
  /** TextEditor.enrichHTML: `[[...]]` becomes an inline roll and `@UUID[...]{label}` a content link, in text anywhere in the HTML. */
  async function enrichHTML(content) {
    const tpl = document.createElement("template");
    tpl.innerHTML = String(content ?? "");
    const walker = document.createTreeWalker(tpl.content, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    const pattern = /\[\[(\/[a-z]+\s+)?([^\]]+)\]\]|@UUID\[([^\]]+)\](?:\{([^}]*)\})?/g;
    for (const node of nodes) {
      const text = node.textContent;
      if (!pattern.test(text)) continue;
      pattern.lastIndex = 0;
      const frag = document.createDocumentFragment();
      let last = 0;
      for (const m of text.matchAll(pattern)) {
        frag.append(text.slice(last, m.index));
        const a = document.createElement("a");
        if (m[2] !== undefined) {
          a.className = "inline-roll roll";
          a.dataset.formula = m[2].trim();
          a.innerHTML = `<i class="fas fa-dice-d20"></i>${escapeHTML(String(1 + Math.floor(Math.random() * 20)))}`;
        } else {
          a.className = "content-link";
          a.dataset.uuid = m[3];
          a.textContent = m[4] ?? m[3];
        }
        frag.append(a);
        last = m.index + m[0].length;
      }
      frag.append(text.slice(last));
      node.replaceWith(frag);
    }
    return tpl.innerHTML;
  }

  // --- chat -----------------------------------------------------------------------------------------
  class ChatMessage {
    // `logged` (ChatMessage#logged): whether the sidebar's chat log has drawn it (a batch or a new message did).
    constructor({ author, ...data }) { Object.assign(this, deepClone(data)); this._authorRaw = author; this.flags ??= {}; this.whisper ??= []; this.blind ??= false; this.logged = false; }
    get id() { return this._id; }
    /** ChatMessage#author: the User who created it, as the server recorded. */
    get author() { return game.users.get(this._authorRaw) ?? null; }
    get isAuthor() { return this._authorRaw === me; }
    /** ChatMessage#visible: a whispered message (without rolls) is visible to its author and its recipients only. */
    get visible() { return !this.whisper.length || this.isAuthor || this.whisper.includes(me); }
    /** ChatMessage#isContentVisible (v13): a blind roll hides its content from everyone not among its recipients; a
     *  message without rolls shows its content to whoever sees it, blind or not. */
    get isContentVisible() {
      if (!this.visible) return false;
      if (!this.rolls?.length || !this.whisper.length) return true;
      return this.whisper.includes(me) || (this.isAuthor && !this.blind);
    }
    getFlag(scope, key) { return getProperty(this.flags[scope] ?? {}, key); }
    async setFlag(scope, key, value) { const flags = { [scope]: {} }; setProperty(flags[scope], key, value); return this.update({ flags }); }
    /** Document#update: the server refuses it unless the user is the author or a GM. */
    async update(changes) { await ask({ op: "updateMessage", id: this.id, changes: deepClone(changes) }); return this; }
    toJSON() { return { _id: this._id, content: this.content, speaker: this.speaker, whisper: this.whisper, blind: this.blind, flags: this.flags, author: this._authorRaw }; }
    /** ChatMessage.getSpeaker: a synthetic actor speaks as its token (alias: the token's name). */
    static getSpeaker({ actor, token } = {}) {
      const tok = token ?? (actor?.isToken ? actor.token : null);
      if (tok) return { scene: tok.parent?.id ?? null, token: tok.id, actor: tok.actorId, alias: tok.name };
      return actor ? { actor: actor.id, alias: actor.name } : { alias: game.user.name };
    }
    /** ChatMessage.create: the server assigns the id; the author is the creating user unless a GM names another. */
    static async create(data) {
      const body = deepClone(data);
      delete body.user; delete body._id;
      if (body.author && typeof body.author === "object") body.author = body.author.id;
      const created = await ask({ op: "create", data: body });
      return game.messages.get(created._id);
    }
    /**
     * ChatMessage#renderHTML({canDelete, canClose}): the enriched content in a new element, passed to
     * `renderChatMessageHTML` before anyone inserts it. The header has a delete control when `canDelete` (by
     * default for a GM) and a dismiss control when `canClose` (a notification's copy).
     */
    async renderHTML({ canDelete = game.user.isGM, canClose = false } = {}) {
      const content = this.isContentVisible ? await enrichHTML(this.content) : "";
      // The test's own instrument: a render that takes this long (Foundry's enrichment may be slow).
      if (window.__renderDelay) await new Promise((r) => setTimeout(r, window.__renderDelay));
      const li = document.createElement("li");
      li.className = `chat-message message flexcol${this.whisper.length ? " whisper" : ""}${this.blind ? " blind" : ""}`;
      li.dataset.messageId = this.id;
      li.innerHTML = `<header class="message-header flexrow"><h4 class="message-sender">${escapeHTML(this.speaker?.alias ?? this.author?.name ?? "?")}</h4>`
        + `<span class="message-metadata"><time>now</time>`
        + (canDelete ? `<button type="button" class="message-delete" data-action="deleteMessage" aria-label="Delete"><i class="fa-solid fa-trash"></i></button>` : "")
        + (canClose ? `<button type="button" class="message-close" data-action="dismissMessage" aria-label="Dismiss"><i class="fa-solid fa-xmark"></i></button>` : "")
        + `</span></header>`
        + (this.whisper.length ? `<span class="whisper-to">To: ${this.whisper.map((id) => escapeHTML(game.users.get(id)?.name ?? id)).join(", ")}</span>` : "")
        + `<div class="message-content">${content}</div>`;
      Hooks.callAll("renderChatMessageHTML", this, li, { message: this.toJSON(), author: this.author, isWhisper: this.whisper.length > 0, canDelete, canClose });
      return li;
    }
  }
  const messageFrom = (d) => new ChatMessage(d);

  // The chat log: renders each visible message and inserts it afterwards, one at a time in order. One message
  // may be drawn in several elements: the log; the notifications pane (a copy of each new message while the
  // chat tab is not on screen, generations 13 and 14 alike, drawn again when it changes); a popped-out log (a
  // window of its own). Each copy is its own render.
  let chatQueue = Promise.resolve();
  let chatPopout = null;
  // The notifications pane shows new messages while the chat tab is not on screen (the sidebar collapsed).
  let chatNotifications = false;
  // ChatLog.NOTIFY_DURATION, NOTIFY_TICKER: how long a notification's copy stays, how often the ticker looks.
  const NOTIFY_DURATION = 5000;
  const NOTIFY_TICKER = 500;
  /** A notification copy's hover listeners: the pointer over it holds its lifespan (Foundry pauses the queue). */
  const hover = {
    enter(ev) { ev.currentTarget._paused = true; },
    leave(ev) { ev.currentTarget._paused = false; ev.currentTarget._lifeSpan = Math.max(ev.currentTarget._lifeSpan, Date.now() + 2000); },
  };
  const listen = (el) => {
    el.addEventListener("mouseenter", hover.enter);
    el.addEventListener("mouseleave", hover.leave);
    el.querySelector("[data-action=dismissMessage]")?.addEventListener("click", () => el.remove());
  };
  // The ticker: a copy whose lifespan is over is dismissed (a lifespan that is no number never is).
  setInterval(() => {
    for (const el of document.querySelectorAll("#chat-notifications > .chat-message")) {
      if (!el._paused && Date.now() >= el._lifeSpan) el.remove();
    }
  }, NOTIFY_TICKER);
  const notificationPane = () => document.getElementById("chat-notifications");
  /** Whether a log is scrolled to its oldest messages (ChatLog's scroll handler: under 1 % of its scroll range). */
  const nearTop = (list) => {
    const range = list.scrollHeight - list.clientHeight;
    const pct = list.scrollTop / range;
    return Number.isNaN(pct) || pct < 0.01;
  };
  const chatLog = {
    /** ChatLog##lastId: the oldest message a batch has drawn (the next batch ends before it); null before any. */
    lastId: null,
    /** ChatLog##renderingBatch: a batch is being drawn; another asked for meanwhile is dropped, not queued. */
    renderingBatch: false,
    /**
     * ChatLog#renderBatch(size): the `size` messages before the oldest drawn (by index in `game.messages`, visible
     * or not: a batch draws those of them this user sees), each rendered in turn (`renderChatMessageHTML` on its
     * detached element), then all prepended at once. The first batch is drawn while the UI is set up, before
     * `ready`; later ones when the log is scrolled to its top. Runs in the log's one rendering queue.
     */
    renderBatch(size) {
      if (chatLog.renderingBatch) return chatQueue;
      chatLog.renderingBatch = true;
      chatQueue = chatQueue.then(() => chatLog._renderBatch(size)).catch((err) => window.__errors.push(`chat: ${err.message}`))
        .finally(() => { chatLog.renderingBatch = false; });
      return chatQueue;
    },
    async _renderBatch(size) {
      const all = messages.contents;
      const found = all.findIndex((m) => m.id === chatLog.lastId);
      const lastIdx = found > -1 ? found : all.length;
      if (!lastIdx) return;
      const targetIdx = Math.max(lastIdx - size, 0);
      const elements = [];
      for (let i = targetIdx; i < lastIdx; i++) {
        const m = all[i];
        if (!m.visible) continue;
        m.logged = true;
        elements.push(await m.renderHTML());
      }
      const list = document.getElementById("chat-log");
      const first = !chatLog.lastId;
      list.prepend(...elements);
      chatLog.lastId = all[targetIdx].id;
      window.__batches = (window.__batches ?? 0) + 1;
      // The first batch leaves the log at its newest message (ChatLog#scrollBottom after the first render).
      if (first) list.scrollTop = list.scrollHeight;
    },
    /** ChatLog's scroll handler: the log scrolled to its top draws the next batch of older messages. */
    onScroll(ev) {
      if (nearTop(ev.currentTarget)) chatLog.renderBatch(CONFIG.ChatMessage.batchSize);
    },
    /** ChatLog#postOne: the message rendered and appended to the log (and to a pop-out); a copy in the pane when asked to notify while the chat is not on screen. */
    post(msg, { notify = false } = {}) { chatQueue = chatQueue.then(() => chatLog._post(msg, notify)).catch((err) => window.__errors.push(`chat: ${err.message}`)); return chatQueue; },
    async _post(msg, notify) {
      const lists = [document.getElementById("chat-log"), ...(chatPopout ? [chatPopout] : [])];
      // A message posted before any batch is the newest: batches draw only what is older than it.
      chatLog.lastId ??= msg.id;
      for (const list of lists) {
        const old = list.querySelector(`[data-message-id="${msg.id}"]`);
        if (!msg.visible) { old?.remove(); continue; }
        msg.logged = true;
        const el = await msg.renderHTML();
        // The log inserts the element a task after rendering it (Foundry awaits the render, then animates it in).
        await new Promise((r) => setTimeout(r, 5));
        const current = list.querySelector(`[data-message-id="${msg.id}"]`);
        if (current) current.replaceWith(el); else list.append(el);
        list.scrollTop = list.scrollHeight;
      }
      const pane = notificationPane();
      if (notify && chatNotifications && pane && msg.visible) {
        const copy = await msg.renderHTML({ canDelete: false, canClose: true });
        copy._lifeSpan = Date.now() + NOTIFY_DURATION;
        listen(copy);
        pane.append(copy);
      }
    },
    /**
     * ChatLog#updateMessage: each element of the message is taken first, then the new one rendered (which
     * takes time) and put in that element's place; an element that left its document meanwhile is replaced in
     * vain (the update is lost there). A notification's copy is rendered as one (no delete, a dismiss) and keeps
     * the old copy's lifespan, `hidden` and hover listeners. A message not yet in the log is posted.
     */
    async updateMessage(msg) {
      const lists = [document.getElementById("chat-log"), ...(chatPopout ? [chatPopout] : [])];
      if (!lists[0].querySelector(`[data-message-id="${msg.id}"]`)) return chatLog.post(msg);
      const pane = notificationPane();
      const work = lists.map(async (list) => {
        const old = list.querySelector(`[data-message-id="${msg.id}"]`);
        if (!msg.visible) { old?.remove(); return; }
        if (!old) return;
        const el = await msg.renderHTML();
        old.replaceWith(el);
      });
      const oldCopy = pane?.querySelector(`[data-message-id="${msg.id}"]`);
      if (oldCopy) {
        work.push((async () => {
          if (!msg.visible) { oldCopy.remove(); return; }
          const copy = await msg.renderHTML({ canDelete: false, canClose: true });
          copy._lifeSpan = oldCopy._lifeSpan;
          copy._paused = oldCopy._paused;
          copy.hidden = oldCopy.hidden;
          listen(copy);
          oldCopy.replaceWith(copy);
        })());
      }
      await Promise.all(work);
    },
    /** Every message the log has drawn, drawn again (those a batch has not reached stay undrawn). */
    rerender() { for (const m of game.messages.contents) if (m.logged) chatLog.post(m); return chatQueue; },
    /** ChatLog#renderPopout: the log in a window of its own (generation 14: its own document), every message drawn there. */
    async renderPopout() {
      reached("a popped-out chat log");
      const markup = `<section id="chat-popout" class="sidebar-tab chat-sidebar"><ol class="chat-log" id="chat-popout-log"></ol></section>`;
      if (game.release.generation >= 14) {
        const frame = document.createElement("iframe");
        frame.id = "chat-popout-window";
        frame.title = "Chat Log";
        frame.style.cssText = "position: fixed; left: 40px; top: 420px; width: 360px; height: 400px; z-index: 5000; background: #222; border: 1px solid #999";
        document.body.append(frame);
        const doc = frame.contentDocument;
        doc.open();
        doc.write(`<!doctype html><html lang="en"><head><title>Chat Log</title>${[...document.querySelectorAll("link[rel=stylesheet]")].map((l) => `<link rel="stylesheet" href="${l.href}">`).join("")}</head><body class="vtt theme-dark">${markup}</body></html>`);
        doc.close();
        chatPopout = doc.getElementById("chat-popout-log");
      } else {
        const holder = document.createElement("div");
        holder.className = "application window-app popout";
        holder.id = "chat-popout-window";
        holder.style.cssText = "position: fixed; left: 40px; top: 420px; width: 360px; z-index: 5000";
        holder.innerHTML = markup;
        document.body.append(holder);
        chatPopout = holder.querySelector("#chat-popout-log");
      }
      const list = chatPopout;
      // The pop-out is a chat log of its own: its first batch, the newest messages.
      chatQueue = chatQueue.then(async () => {
        for (const m of game.messages.contents.slice(-CONFIG.ChatMessage.batchSize)) {
          if (!m.visible) continue;
          const el = await m.renderHTML();
          list.append(el);
        }
      });
      await chatQueue;
      return list;
    },
  };

  /** Macro: a world document; a script macro needs the MACRO_SCRIPT permission (the server refuses it otherwise). */
  class Macro {
    constructor({ author, ...d }) { Object.assign(this, deepClone(d)); this.id = d._id; this._author = author; }
    /** Macro#author: the User who made it. */
    get author() { return game.users.get(this._author) ?? null; }
    static async create(data) {
      const created = await ask({ op: "createMacro", data: deepClone(data) });
      return game.macros.get(created._id) ?? new Macro(created);
    }
    /** Macro#execute: a script macro's command runs as an async function body. */
    async execute() {
      const AsyncFunction = (async () => {}).constructor;
      return new AsyncFunction("speaker", "actor", "token", "character", this.command)(null, null, null, game.user.character);
    }
  }
  const macros = new Collection();
  let macroScriptRole = 1;
  /** The hotbar: ten slots; a drop runs the `hotbarDrop` hook (a handler returning false takes the drop). */
  function drawHotbar() {
    const bar = document.getElementById("hotbar");
    if (!bar) return;
    if (!bar.children.length) {
      for (let n = 1; n <= 10; n++) {
        const li = document.createElement("li");
        li.className = "macro";
        li.dataset.slot = String(n);
        li.addEventListener("dragover", (ev) => ev.preventDefault());
        li.addEventListener("drop", (ev) => {
          ev.preventDefault();
          let data;
          try { data = JSON.parse(ev.dataTransfer.getData("text/plain")); } catch { return; }
          if (Hooks.call("hotbarDrop", hotbarApp, data, n) === false) return;
          if (data?.type === "Macro" && macros.get(data.id)) game.user.assignHotbarMacro(macros.get(data.id), n);
        });
        li.addEventListener("click", () => { const m = macros.get(game.user.hotbar?.[n]); m?.execute(); });
        bar.append(li);
      }
    }
    for (const li of bar.children) {
      const m = macros.get(game.user?.hotbar?.[li.dataset.slot]);
      li.dataset.macro = m?.id ?? "";
      li.textContent = m ? m.name : "";
      li.title = m ? m.name : "";
    }
  }
  const hotbarApp = { id: "hotbar" };

  // --- the module socket ----------------------------------------------------------------------------
  const socketHandlers = new Map();
  const socket = {
    /** game.socket.emit: only a module that declares `socket: true` gets a channel; the server relays to every other client. */
    emit(name, data) {
      const id = /^module\.(.+)$/.exec(name)?.[1];
      if (!id || !moduleManifests.get(id)?.socket) throw new Error(`The socket channel ${name} is not registered`);
      send({ op: "emit", name, data: deepClone(data) });
    },
    /** game.socket.on: the handler receives the data and the sender's user id. */
    on(name, fn) { if (!socketHandlers.has(name)) socketHandlers.set(name, []); socketHandlers.get(name).push(fn); },
    off(name, fn) { socketHandlers.set(name, (socketHandlers.get(name) ?? []).filter((f) => f !== fn)); },
  };

  // --- settings -------------------------------------------------------------------------------------
  let worldSettings = {};
  const settingCfg = new Map();
  const settingMenus = new Map();
  const settings = {
    register(ns, key, cfg) { settingCfg.set(`${ns}.${key}`, { ...cfg, scope: cfg.scope ?? "world" }); },
    /** ClientSettings#registerMenu: a button in the settings form that opens the given application class. */
    registerMenu(ns, key, cfg) { settingMenus.set(`${ns}.${key}`, cfg); },
    get menus() { return settingMenus; },
    get settings() { return settingCfg; },
    /** ClientSettings#get: world and user values come from the server (user: this world's, this user's), client
     *  values from this browser's localStorage (one per origin: every world on this server shares them). */
    get(ns, key) {
      const full = `${ns}.${key}`;
      const cfg = settingCfg.get(full);
      if (!cfg) throw new Error(`"${full}" is not a registered game setting`);
      if (cfg.scope === "client") {
        const raw = localStorage.getItem(full);
        return raw === null ? cfg.default : JSON.parse(raw);
      }
      const k = cfg.scope === "user" ? `${me}:${full}` : full;
      return k in worldSettings ? worldSettings[k] : cfg.default;
    },
    /** ClientSettings#set: world settings only by a GM (the server refuses others); onChange runs where the value arrives. */
    async set(ns, key, value) {
      const full = `${ns}.${key}`;
      const cfg = settingCfg.get(full);
      if (!cfg) throw new Error(`"${full}" is not a registered game setting`);
      if (cfg.scope === "client") {
        localStorage.setItem(full, JSON.stringify(value));
        cfg.onChange?.(value);
        return value;
      }
      await ask({ op: "setting", key: cfg.scope === "user" ? `${me}:${full}` : full, value });
      return value;
    },
  };

  // --- ui -------------------------------------------------------------------------------------------
  const notify = (level) => (text) => {
    const box = document.getElementById("notifications");
    const li = document.createElement("li");
    li.className = `notification ${level}`;
    li.textContent = text;
    box?.append(li);
    window.__notes.push({ level, text: String(text) });
    setTimeout(() => li.remove(), 8000);
    (level === "error" ? console.warn : console.log)(`[${level}] ${text}`);
    return li;
  };

  // --- templates and applications -------------------------------------------------------------------
  const templateCache = new Map();
  async function getTemplate(path) {
    if (!templateCache.has(path)) {
      templateCache.set(path, fetch(`/${path}`).then((r) => {
        if (!r.ok) throw new Error(`template ${path}: ${r.status}`);
        return r.text();
      // As Foundry's getTemplate: the compiled template is also registered as a partial named by its path.
      }).then((src) => { const compiled = Handlebars.compile(src); Handlebars.registerPartial(path, compiled); return compiled; }));
    }
    return templateCache.get(path);
  }
  async function renderTemplate(path, data) { return (await getTemplate(path))(data, { allowProtoPropertiesByDefault: true }); }
  async function loadTemplates(paths) { await Promise.all((Array.isArray(paths) ? paths : Object.values(paths)).map(getTemplate)); }
  Handlebars.registerHelper("localize", (key) => i18n.localize(String(key)));

  const mergeOptions = (target, source) => {
    for (const [k, v] of Object.entries(source ?? {})) {
      if (k === "classes") target.classes = [...new Set([...(target.classes ?? []), ...v])];
      else if (v && typeof v === "object" && !Array.isArray(v) && typeof v !== "function") target[k] = mergeOptions({ ...(target[k] ?? {}) }, v);
      else target[k] = v;
    }
    return target;
  };
  const classChain = (obj) => {
    const out = [];
    for (let c = obj.constructor; c && c !== Object; c = Object.getPrototypeOf(c)) out.push(c);
    return out;
  };
  let appCount = 0;
  let zIndex = 100;
  class ApplicationV2 {
    static DEFAULT_OPTIONS = { classes: [], tag: "div", window: { frame: true, title: "", icon: "", controls: [] }, position: {}, actions: {}, form: null };
    /** ApplicationV2 options: the class chain's DEFAULT_OPTIONS merged, then this instance's; each instance has its own copy. */
    constructor(options = {}) {
      const defaults = classChain(this).reverse().filter((c) => Object.hasOwn(c, "DEFAULT_OPTIONS")).map((c) => c.DEFAULT_OPTIONS);
      this.options = deepCloneOptions(defaults.reduce((acc, o) => mergeOptions(acc, o), {}));
      mergeOptions(this.options, options);
      this.id = this.options.id ?? `app-${++appCount}`;
      this.element = null;
      this.rendered = false;
      this.window = { title: null, controls: null };
    }
    get title() { return i18n.localize(this.options.window?.title ?? ""); }
    async _prepareContext(_options) { return {}; }
    async _onFirstRender(_context, _options) {}
    async _preFirstRender(_context, _options) {}
    async _preRender(_context, _options) {}
    async _onRender(_context, _options) {}
    _onClose(_options) {}
    async _preClose(_options) {}
    _getHeaderControls() { return [...(this.options.window?.controls ?? [])]; }
    /** A close asked for while a render is under way wins: the render stops at its next step and draws
     *  nothing (Foundry's ApplicationV2 lets the two take turns; either way no render draws into a closed
     *  window, and none throws for it). */
    async render(options = {}) {
      if (typeof options === "boolean") options = { force: options };
      if (!this.rendered && !options.force) return this;
      const closes = this._closes ?? 0;
      const closed = () => (this._closes ?? 0) !== closes;
      const first = !this.element;
      const context = await this._prepareContext(options);
      if (closed()) return this;
      // As Foundry: the pre-render steps run after the context is ready and before the parts are replaced.
      if (first) await this._preFirstRender(context, options);
      await this._preRender(context, options);
      if (closed()) return this;
      // As Foundry: every part is rendered to HTML first (`_renderHTML`, asynchronous), then the frame is
      // made (first render only, with the window title), the parts replaced in one synchronous step
      // (`_replaceHTML`) and the window inserted; so a window never shows with some parts drawn and its
      // listeners not yet bound.
      const result = await this._renderHTML(context, options);
      if (closed()) return this;
      // (Another render may have made the frame while this one waited.)
      const made = !this.element;
      if (made) this._createFrame();
      this._replaceHTML(result, this.element.querySelector(".window-content"), options);
      if (made) {
        // As Foundry's frame: the header controls are built once, at the first render.
        this._buildControls();
        // Foundry inserts an application's window into the body, outside the interface (its own colour scheme).
        document.body.append(this.element);
      }
      this.rendered = true;
      if (made) await this._onFirstRender(context, options);
      await this._onRender(context, options);
      if (closed()) return this;
      // Render hooks: one per class of the chain, most generic first (renderApplicationV2 ... renderMyApp).
      for (const c of classChain(this).reverse()) if (c.name) Hooks.callAll(`render${c.name}`, this, this.element, context, options);
      return this;
    }
    async _renderHTML(_context, _options) { return null; }
    _replaceHTML(_result, _content, _options) {}
    /** The window's frame, not yet in the document (the first render inserts it once its parts are in). */
    _createFrame() {
      const el = document.createElement(this.options.tag ?? "div");
      el.id = this.id;
      el.className = ["application", "window-app", ...(this.options.classes ?? [])].join(" ");
      el.style.zIndex = String(++zIndex);
      const pos = this.options.position ?? {};
      el.style.width = `${pos.width ?? 400}px`;
      el.style.left = `${pos.left ?? 120 + appCount * 30}px`;
      el.style.top = `${pos.top ?? 60 + appCount * 20}px`;
      el.innerHTML = `<header class="window-header"><i class="window-icon ${this.options.window?.icon ?? ""}" aria-hidden="true"></i><h1 class="window-title"></h1>`
        + `<button type="button" class="header-control icon fa-solid fa-ellipsis-vertical" data-action="toggleControls" aria-label="Toggle controls"></button>`
        + `<button type="button" class="header-control icon fa-solid fa-xmark" data-action="close" aria-label="Close"></button></header>`
        + `<section class="window-content"></section>`;
      el.querySelector(".window-title").textContent = this.title;
      el.addEventListener("click", (ev) => {
        const target = ev.target.closest("[data-action]");
        if (!target || !el.contains(target)) return;
        const action = target.dataset.action;
        if (action === "close") { ev.preventDefault(); this.close(); return; }
        if (action === "toggleControls") { ev.preventDefault(); this._toggleControls(); return; }
        const handler = this.options.actions?.[action];
        if (handler) { ev.preventDefault(); (handler.handler ?? handler).call(this, ev, target); }
      });
      if (this.options.tag === "form") {
        el.addEventListener("submit", (ev) => {
          ev.preventDefault();
          this.options.form?.handler?.call(this, ev, el, new FormData(el));
        });
      }
      this.element = el;
    }
    /** The header-controls menu, built once at the first render: `_getHeaderControls` then `getHeaderControls{Class}` hooks, filtered by visibility and ownership. */
    _buildControls() {
      const controls = this._getHeaderControls();
      for (const c of classChain(this).reverse()) if (c.name) Hooks.callAll(`getHeaderControls${c.name}`, this, controls);
      const doc = this.document ?? this.actor;
      const shown = controls.filter((c) => {
        const visible = typeof c.visible === "function" ? c.visible.call(this) : c.visible ?? true;
        const owns = !c.ownership || !doc || doc.testUserPermission(game.user, c.ownership);
        return visible && owns;
      });
      const menu = document.createElement("menu");
      menu.className = "controls-dropdown";
      menu.hidden = true;
      for (const c of shown) {
        const li = document.createElement("li");
        li.innerHTML = `<button type="button" class="header-control" data-action="${escapeHTML(c.action)}"><i class="${escapeHTML(c.icon ?? "")}"></i><span>${escapeHTML(i18n.localize(c.label ?? ""))}</span></button>`;
        menu.append(li);
      }
      this.window.controls = menu;
      this.element.querySelector(".window-header").after(menu);
    }
    /** Opening and closing the menu shows and hides what the first render built. */
    _toggleControls() {
      const menu = this.element.querySelector(".controls-dropdown");
      if (menu) menu.hidden = !menu.hidden;
    }
    async close(options = {}) {
      this._closes = (this._closes ?? 0) + 1;
      await this._preClose(options);
      this.element?.remove();
      this.element = null;
      this.rendered = false;
      this._onClose(options);
      for (const c of classChain(this).reverse()) if (c.name) Hooks.callAll(`close${c.name}`, this, null);
      return this;
    }
    bringToFront() { if (this.element) this.element.style.zIndex = String(++zIndex); }
    setPosition(pos = {}) { Object.assign(this.options.position, pos); return this.options.position; }
  }
  const deepCloneOptions = (o) => {
    const out = Array.isArray(o) ? [] : {};
    for (const [k, v] of Object.entries(o)) out[k] = v && typeof v === "object" && typeof v !== "function" ? deepCloneOptions(v) : v;
    return out;
  };
  const HandlebarsApplicationMixin = (Base) => class HandlebarsApplication extends Base {
    static PARTS = {};
    /** Parts re-render in place; each part's `scrollable` selectors keep their scroll ("" is the part's own root). */
    async _renderHTML(context, options) {
      const parts = this.constructor.PARTS ?? {};
      const wanted = options.parts ?? Object.keys(parts);
      const rendered = {};
      for (const [id, part] of Object.entries(parts)) {
        if (wanted.includes(id)) rendered[id] = await renderTemplate(part.template, context);
      }
      return rendered;
    }
    _replaceHTML(rendered, content, _options) {
      const parts = this.constructor.PARTS ?? {};
      for (const [id, part] of Object.entries(parts)) {
        if (!(id in rendered)) continue;
        const html = rendered[id];
        const tmp = document.createElement("div");
        tmp.innerHTML = html.trim();
        const node = tmp.children.length === 1 ? tmp.firstElementChild : Object.assign(document.createElement("div"), { innerHTML: html });
        node.dataset.applicationPart = id;
        const old = content.querySelector(`:scope > [data-application-part="${id}"]`);
        const pick = (root, sel) => (sel === "" ? [root] : [...root.querySelectorAll(sel)]);
        const scrolls = old ? (part.scrollable ?? []).map((sel) => pick(old, sel).map((e) => e.scrollTop)) : [];
        if (old) old.replaceWith(node);
        else {
          const order = Object.keys(parts);
          const next = order.slice(order.indexOf(id) + 1).map((p) => content.querySelector(`:scope > [data-application-part="${p}"]`)).find(Boolean);
          content.insertBefore(node, next ?? null);
        }
        (part.scrollable ?? []).forEach((sel, i) => pick(node, sel).forEach((e, j) => { if (scrolls[i]?.[j] !== undefined) e.scrollTop = scrolls[i][j]; }));
      }
    }
  };
  class DocumentSheetV2 extends ApplicationV2 {
    constructor(options = {}) { super(options); this.document = options.document; }
    get title() { return this.document?.name ?? super.title; }
  }
  class ActorSheetV2 extends DocumentSheetV2 {
    get actor() { return this.document; }
  }

  // ApplicationV1, still registered in v13 and v14: header buttons come from `_getHeaderButtons` and the
  // `get{Class}HeaderButtons` hooks (Hooks.call, most specific class first), each an {label, class, icon,
  // onclick}; render hooks pass a jQuery-like wrapper of the inner HTML.
  const wrap = (el) => Object.assign([el], { jquery: "3.7.1", find: (sel) => [...el.querySelectorAll(sel)] });
  class Application {
    constructor(options = {}) {
      this.options = { width: 480, ...options };
      this.appId = ++appCount;
      this._element = null;
      this.rendered = false;
    }
    get id() { return this.options.id ?? `app-${this.appId}`; }
    get element() { return this._element ? wrap(this._element) : null; }
    get title() { return this.options.title ?? ""; }
    getData() { return {}; }
    async _renderInner(_data) { return document.createElement("div"); }
    _getHeaderButtons() {
      const buttons = [{ label: "Close", class: "close", icon: "fa-solid fa-xmark", onclick: () => this.close() }];
      for (let c = this.constructor; c && c !== Object && c.name; c = Object.getPrototypeOf(c)) Hooks.call(`get${c.name}HeaderButtons`, this, buttons);
      return buttons;
    }
    async render(force = false) {
      if (!force && !this.rendered) return this;
      const data = await this.getData();
      const inner = await this._renderInner(data);
      if (!this._element) {
        const el = document.createElement("div");
        el.id = this.id;
        el.className = "app window-app sheet";
        el.style.cssText = `z-index: ${++zIndex}; width: ${this.options.width}px; left: ${140 + this.appId * 20}px; top: ${80 + this.appId * 16}px`;
        el.innerHTML = `<header class="window-header flexrow"><h4 class="window-title"></h4></header><section class="window-content"></section>`;
        el.querySelector(".window-title").textContent = this.title;
        const header = el.querySelector(".window-header");
        for (const b of this._getHeaderButtons()) {
          const a = document.createElement("a");
          a.className = `header-button control ${b.class ?? ""}`;
          a.setAttribute("role", "button");
          a.tabIndex = 0;
          a.innerHTML = `<i class="${escapeHTML(b.icon ?? "")}"></i>${escapeHTML(i18n.localize(b.label ?? ""))}`;
          a.addEventListener("click", (ev) => { ev.preventDefault(); b.onclick?.(ev); });
          header.append(a);
        }
        document.body.append(el);
        this._element = el;
      }
      const first = !this.rendered;
      this._element.querySelector(".window-content").replaceChildren(inner);
      this.rendered = true;
      // As Foundry's ApplicationV1: the render hooks receive the outer window on the first render, the inner
      // HTML (the sheet's form) on every later one.
      const root = first ? this._element : inner;
      for (let c = this.constructor; c && c !== Object && c.name; c = Object.getPrototypeOf(c)) Hooks.callAll(`render${c.name}`, this, wrap(root), data);
      return this;
    }
    async close() {
      this._element?.remove();
      this._element = null;
      this.rendered = false;
    }
  }
  class FormApplication extends Application {
    constructor(object, options = {}) { super(options); this.object = object; }
  }
  class DocumentSheet extends FormApplication {
    get document() { return this.object; }
    get title() { return this.document?.name ?? ""; }
  }
  class ActorSheet extends DocumentSheet {
    get actor() { return this.object; }
  }
  /** Simple Worldbuilding's character sheet: an ActorSheet (ApplicationV1) listing the actor's attributes. */
  class SimpleActorSheet extends ActorSheet {
    getData() { return { actor: this.actor, attributes: this.actor.system?.attributes ?? {} }; }
    async _renderInner(data) {
      const form = document.createElement("form");
      form.className = "worldbuilding sheet actor";
      form.innerHTML = `<header class="sheet-header"><h1 class="charname">${escapeHTML(data.actor.name)}</h1></header>`
        + `<section class="sheet-body"><ol class="attributes-list">${Object.entries(data.attributes).map(([k, a]) =>
          `<li data-attribute="${escapeHTML(k)}"><span class="attribute-key">${escapeHTML(a.label ?? k)}</span> <span class="attribute-value">${escapeHTML(String(a.value ?? ""))}</span></li>`).join("")}</ol></section>`;
      return form;
    }
  }

  // --- the combat tracker, and pop-outs ---------------------------------------------------------------
  const combatApp = {
    id: "combat",
    element: null,
    /** Render the sidebar's combat tracker (hook `renderCombatTracker` with its element). */
    render() {
      combatApp.element = document.getElementById("combat");
      Hooks.callAll("renderCombatTracker", combatApp, combatApp.element, {});
    },
    /** The encounter's combatants (the scene's tokens): one is shown defeated when its actor has the status
     *  CONFIG.specialStatusEffects.DEFEATED names. */
    drawCombatants() {
      const list = document.getElementById("combatants");
      if (!list || !canvas.tokens) return;
      const defeated = CONFIG.specialStatusEffects?.DEFEATED;
      list.innerHTML = canvas.tokens.placeables.map((t) => {
        const down = Boolean(defeated && t.actor?.statuses.has(defeated));
        return `<li class="combatant${down ? " defeated" : ""}" data-token="${t.id}" data-defeated="${down}">${escapeHTML(t.document.name)}</li>`;
      }).join("");
    },
    /**
     * Pop the tracker out. Generation 14: into a window of its own (an iframe here, with its own document and
     * its own HTMLElement); generation 13: a floating window in the same document.
     */
    async renderPopout() {
      reached("a popped-out combat tracker");
      // A popped-out application is a window: its own frame header (title, controls) before the tracker's content.
      const markup = `<header class="window-header"><h1 class="window-title">Combat Tracker</h1>`
        + `<button type="button" class="header-control icon fa-solid fa-xmark" data-action="close" aria-label="Close"></button></header>`
        + `<section class="window-content"><section id="combat-popout" class="sidebar-tab combat-sidebar"><header class="combat-tracker-header"><h3>Combat Tracker</h3>`
        + `<nav class="encounter-controls"></nav></header><ol class="combat-tracker"></ol></section></section>`;
      let root;
      if (game.release.generation >= 14) {
        const frame = document.createElement("iframe");
        frame.id = "combat-popout-window";
        frame.title = "Combat Tracker";
        frame.style.cssText = "position: fixed; left: 700px; top: 80px; width: 360px; height: 260px; z-index: 5000; background: #222; border: 1px solid #999";
        document.body.append(frame);
        const doc = frame.contentDocument;
        doc.open();
        doc.write(`<!doctype html><html lang="en"><head><title>Combat Tracker</title>${[...document.querySelectorAll("link[rel=stylesheet]")].map((l) => `<link rel="stylesheet" href="${l.href}">`).join("")}</head><body class="vtt theme-dark"><div id="combat-popout-app" class="application window-app popout">${markup}</div></body></html>`);
        doc.close();
        root = doc.getElementById("combat-popout-app");
      } else {
        const holder = document.createElement("div");
        holder.className = "application window-app popout";
        holder.id = "combat-popout-window";
        holder.style.cssText = "position: fixed; left: 700px; top: 80px; width: 360px; z-index: 5000";
        holder.innerHTML = markup;
        document.body.append(holder);
        root = holder;
      }
      // The render hook of a popped-out application gets its whole window, frame header first.
      Hooks.callAll("renderCombatTracker", { ...combatApp, popOut: true }, root, {});
      return root;
    },
  };

  // --- the game -------------------------------------------------------------------------------------
  const users = new Users();
  const actors = new Collection();
  const messages = new Collection();
  // Scene#active: the one scene the GM activated for everyone; a user may view another (Scene#view).
  const scene = { id: "scene1", name: "The Old Mill", active: false, tokens: new Collection() };
  const crypt = { id: "scene2", name: "The Crypt", active: false, tokens: new Collection() };
  const moduleManifests = new Map();
  const modules = new Map();
  const baseStatuses = () => [{ id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" }];
  // CONFIG.statusEffects: an array in generation 13, an object keyed by status id in generation 14.
  const statusList = (gen, list) => (gen >= 14 ? Object.fromEntries(list.map((e) => [e.id, e])) : list);

  window.Hooks = Hooks;
  window.ChatMessage = ChatMessage;
  /** Roll.replaceFormulaData: each `@path` of the formula replaced by the roll data's value (a missing one by `missing`, else left). */
  window.Roll = class Roll {
    static replaceFormulaData(formula, data, { missing } = {}) {
      return String(formula).replace(/@([a-z.0-9_-]+)/gi, (m, path) => {
        const v = getProperty(data, path);
        return v === undefined || v === null ? missing ?? m : String(v);
      });
    }
  };
  window.Macro = Macro;
  window.fromUuidSync = fromUuidSync;
  window.ui = { notifications: { info: notify("info"), warn: notify("warning"), error: notify("error") }, combat: combatApp, chat: chatLog };
  window.PIXI = { Text: PIXIText };
  window.canvas = { scene, ready: false, tokens: { placeables: [] } };
  const TextEditor = { enrichHTML, implementation: { enrichHTML } };
  window.foundry = {
    applications: {
      api: { ApplicationV2, HandlebarsApplicationMixin, DocumentSheetV2 },
      sheets: { ActorSheetV2 },
      appv1: { api: { Application, FormApplication, DocumentSheet }, sheets: { ActorSheet } },
      handlebars: { renderTemplate, loadTemplates, getTemplate },
      ux: { TextEditor },
    },
    dice: { terms: { DiceTerm, Die, Coin, FateDie } },
    utils: { deepClone, getProperty, setProperty, mergeObject, randomID, escapeHTML, fromUuidSync },
  };
  window.game = {
    user: null,
    users,
    actors,
    messages,
    macros,
    scenes: new Collection([[scene.id, scene], [crypt.id, crypt]]),
    settings,
    socket,
    i18n,
    modules,
    ready: false,
  };
  game.scenes.viewed = scene;
  // Scenes#active: the active scene, or undefined.
  Object.defineProperty(game.scenes, "active", { get() { return this.find((s) => s.active); } });

  function onFrame(f) {
    switch (f.op) {
      case "ack": {
        const p = acks.get(f.rid);
        if (!p) return;
        acks.delete(f.rid);
        if (f.error) p.reject(new Error(f.error)); else p.resolve(f.data);
        return;
      }
      case "presence": {
        const user = users.get(f.user);
        if (!user) return;
        user.active = f.active;
        // Foundry's `userConnected` hook: a user joined or left.
        Hooks.callAll("userConnected", user, f.active);
        renderPlayers();
        return;
      }
      case "socket":
        for (const fn of socketHandlers.get(f.name) ?? []) {
          try { fn(f.data, f.sender); } catch (err) { console.error(err); window.__errors.push(`socket: ${err.message}`); }
        }
        return;
      case "query":
        runQuery(f.name, f.data, {}).then((result) => send({ op: "queryReply", qid: f.qid, result: result ?? null }),
          (err) => send({ op: "queryReply", qid: f.qid, error: String(err?.message ?? err) }));
        return;
      case "queryResult": {
        const q = queries.get(f.qid);
        if (!q) return;
        queries.delete(f.qid);
        clearTimeout(q.timer);
        if (f.error) q.reject(new Error(f.error)); else q.resolve(f.result);
        return;
      }
      case "created": {
        const msg = messageFrom(f.data);
        messages.set(msg.id, msg);
        Hooks.callAll("createChatMessage", msg, {}, msg.author?.id);
        // `window.__chatUndrawn`: the suite's own instrument, not Foundry's (a page that writes a long log for a
        // test keeps its documents but draws none of them).
        if (window.__chatUndrawn) return;
        if (game.ready || document.body.dataset.booted) chatLog.post(msg, { notify: true });
        return;
      }
      case "updatedMessage": {
        const msg = messages.get(f.id);
        if (!msg) return;
        mergeObject(msg, deepClone(f.changes));
        Hooks.callAll("updateChatMessage", msg, f.changes, {});
        if (window.__chatUndrawn) return;
        // ChatMessage#_onUpdate: the log updates the message at once (not after the messages being posted).
        chatLog.updateMessage(msg).catch((err) => window.__errors.push(`chat: ${err.message}`));
        return;
      }
      case "updatedActor":
        if (f.token) scene.tokens.get(f.token)?.actor?._onUpdate(f);
        else actors.get(f.id)?._onUpdate(f);
        return;
      case "createdMacro":
        macros.set(f.data._id, new Macro(f.data));
        return;
      case "setting": {
        worldSettings[f.key] = f.value;
        const full = f.key.includes(":") ? f.key.split(":")[1] : f.key;
        if (!f.key.includes(":") || f.key.startsWith(`${me}:`)) settingCfg.get(full)?.onChange?.(f.value);
        return;
      }
      default:
    }
  }

  function renderPlayers() {
    const list = document.getElementById("players");
    if (!list) return;
    list.innerHTML = users.map((u) => `<li data-user="${u.id}" class="${u.active ? "active" : "inactive"}">${escapeHTML(u.name)}${u.isGM ? " [GM]" : ""}</li>`).join("");
  }

  /** Draw the scene: tokens, then `canvasReady` (Foundry calls it on every scene draw). */
  function drawCanvas() {
    document.getElementById("board").replaceChildren();
    canvas.tokens.placeables = scene.tokens.contents.map((doc) => new Token(doc));
    canvas.ready = true;
    Hooks.callAll("canvasReady", canvas);
    for (const token of canvas.tokens.placeables) token.refresh({ refreshState: true });
    combatApp.drawCombatants();
  }

  /** The test system: like systems that rebuild the status list after init, it replaces CONFIG.statusEffects on every canvasReady. */
  function installSystem(system) {
    if (system !== "rebuild") return;
    Hooks.on("canvasReady", () => {
      CONFIG.statusEffects = statusList(game.release.generation, [...baseStatuses(), { id: "prone", name: "EFFECT.StatusProne", img: "icons/svg/falling.svg" }]);
    });
  }

  /**
   * Dice So Nice 5.x, as a double. Its factory is built in its own `ready` handler (after `diceSoNiceInit`):
   * every DiceTerm class in CONFIG.Dice.terms other than core's, made with no data, gets a preset of its faces
   * when its face count has a model; then `diceSoNiceReady`. `addDicePreset({type, labels, system}, shape)` reads
   * `CONFIG.Dice.terms[denomination].name` for a type whose denomination (the type less its leading "d") is not a
   * number, and throws for one no DiceTerm is registered under. `show` resolves when the animation ends (after a
   * short delay, or, while a test holds the dice, when it lets them land); a throw of a type with no preset
   * fails inside the animation queue, which nobody awaits: its promise never settles (an unhandled rejection on
   * the page). `immediatelyDisplayChatMessages` is a world setting (false by default): whether messages that
   * carry rolls wait for the dice (this double's messages never carry rolls).
   */
  const DSN_MODELS = [2, 3, 4, 6, 8, 10, 12, 14, 16, 20, 24, 30];
  class DiceSoNiceDouble {
    constructor() {
      this.presets = []; this.systems = []; this.pending = []; window.__throws = [];
      this.types = new Set([...DSN_MODELS, 100].map((n) => `d${n}`));
      Hooks.call("diceSoNiceInit", this);
      // DiceFactory: a preset for each DiceTerm a system or module registered, with the labels its term gives.
      for (const term of Object.values(CONFIG.Dice.terms)) {
        if ([Coin, FateDie, Die].includes(term)) continue;
        const made = new term({});
        if (!DSN_MODELS.includes(made.faces)) continue;
        const labels = Array.from({ length: made.faces }, (_, i) => made.getResultLabel({ result: i + 1 }));
        this._register({ type: `d${term.DENOMINATION}`, labels, system: "standard", term: term.name, shape: `d${made.faces}` });
      }
    }
    _register(preset) { this.presets.push(preset); this.types.add(preset.type); }
    addSystem(system, mode) { this.systems.push({ ...system, mode }); }
    addDicePreset(preset, shape = null) {
      const denomination = preset.type.substring(1);
      // Dice So Nice names the preset's DiceTerm by its class name: an unregistered denomination throws here.
      const term = Number.isNaN(Number(denomination)) ? CONFIG.Dice.terms[denomination].name : "Die";
      this._register({ ...preset, shape: shape ?? preset.type, term });
    }
    isEnabled() { return true; }
    show(data, user = game.user, synchronize = false, users = null, blind = false) {
      window.__throws.push({ data: deepClone(data), user: user?.id ?? null, sync: synchronize, users, blind });
      const unknown = (data?.throws ?? []).flatMap((t) => t.dice ?? []).map((d) => d.type).find((type) => !this.types.has(type));
      return new Promise((resolve) => {
        if (unknown) {
          // The animation queue's async step fails and nobody awaits it: this promise is never settled.
          Promise.reject(new Error(`Dice So Nice: no preset for the die type "${unknown}"`));
          return;
        }
        if (window.__diceNeverLand) return;
        this.pending.push(resolve);
        if (!window.__holdDice) setTimeout(() => this.land(), 150);
      });
    }
    /** The animation ends for every throw in flight. */
    land() { for (const done of this.pending.splice(0)) done(true); }
  }
  function installDiceSoNice() {
    settings.register("dice-so-nice", "immediatelyDisplayChatMessages", { scope: "world", config: true, type: Boolean, default: false });
    moduleManifests.set("dice-so-nice", { id: "dice-so-nice" });
    modules.set("dice-so-nice", { id: "dice-so-nice", active: true, title: "Dice So Nice!" });
    // Dice So Nice makes `game.dice3d` in its own `ready` handler: its factory, then `diceSoNiceReady`.
    Hooks.once("ready", () => {
      game.dice3d = new DiceSoNiceDouble();
      Hooks.callAll("diceSoNiceReady", game.dice3d);
    });
  }

  /** Boot like Foundry: connect, then init, i18nInit, setup, the UI, the canvas, ready. */
  window.standinBoot = async () => {
    ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/ws?world=${encodeURIComponent(worldId)}&user=${encodeURIComponent(me)}`);
    const init = await new Promise((resolve, reject) => {
      ws.addEventListener("message", function first(ev) {
        const f = JSON.parse(ev.data);
        if (f.op !== "init") return;
        ws.removeEventListener("message", first);
        resolve(f);
      });
      ws.addEventListener("close", (ev) => reject(new Error(`the server closed the connection: ${ev.code} ${ev.reason}`)), { once: true });
    });
    const gen = init.generation;
    for (const u of init.users) users.set(u.id, new User(u));
    for (const id of init.active) users.get(id).active = true;
    for (const s of game.scenes.contents) s.active = s.id === init.activeScene;
    game.user = users.get(me);
    if (!game.user) throw new Error(`no user ${me}`);
    for (const a of init.actors) actors.set(a.id, new Actor(a));
    for (const t of init.tokens ?? []) game.scenes.get(t.scene)?.tokens.set(t.id, new TokenDocument(t, game.scenes.get(t.scene)));
    for (const m of init.macros ?? []) macros.set(m._id, new Macro(m));
    macroScriptRole = init.macroScriptRole ?? 1;
    worldSettings = init.settings;
    for (const d of init.messages) { const m = messageFrom(d); messages.set(m.id, m); }
    ws.addEventListener("message", (ev) => onFrame(JSON.parse(ev.data)));
    ws.addEventListener("close", () => { document.body.dataset.disconnected = "1"; });

    game.release = { generation: gen, build: gen >= 14 ? 369 : 351 };
    game.version = `${gen}.${game.release.build}`;
    window.CONFIG = {
      statusEffects: statusList(gen, baseStatuses()), queries: {}, TextEditor: { enrichers: [] },
      // CONFIG.Dice.terms: the DiceTerm classes by denomination (core's coin, die and Fate die).
      Dice: { terms: { c: Coin, d: Die, f: FateDie } },
      // The status the combat tracker shows as defeated (and the token HUD's "defeated" toggle sets).
      specialStatusEffects: { DEFEATED: "dead", INVISIBLE: "invisible", BLIND: "blind" },
      // CONFIG.ChatMessage.batchSize: how many messages one batch of the chat log covers (v13's default).
      ChatMessage: { batchSize: 100 },
    };
    const manifest = await (await fetch("/modules/verdict/module.json")).json();
    moduleManifests.set(manifest.id, manifest);
    modules.set(manifest.id, { id: manifest.id, active: true, title: manifest.title, manifest });
    translations = await (await fetch("/modules/verdict/lang/en.json")).json();
    installSystem(init.system);
    // The world's own scripts run before the modules' init, and may set CONFIG for them.
    for (const [key, value] of Object.entries(init.config ?? {})) CONFIG[key] = structuredClone(value);
    if ((init.modules ?? []).includes("dice-so-nice")) installDiceSoNice();
    document.body.dataset.user = me;
    document.body.dataset.generation = String(gen);
    document.getElementById("user-name").textContent = `${game.user.name}${game.user.isGM ? " (GM)" : ""}`;
    renderPlayers();

    // As Foundry's page does: each of the manifest's stylesheets linked, each of its ES modules loaded in order.
    await Promise.all((manifest.styles ?? []).map((path) => new Promise((resolve, reject) => {
      const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: `/modules/verdict/${path}` });
      link.addEventListener("load", resolve);
      link.addEventListener("error", () => reject(new Error(`the stylesheet ${path} did not load`)));
      document.head.append(link);
    })));
    for (const path of manifest.esmodules ?? []) await import(`/modules/verdict/${path}`);
    Hooks.callAll("init");
    Hooks.callAll("i18nInit");
    Hooks.callAll("setup");
    // The UI: scene controls, the chat log (existing messages), the combat tracker.
    const controls = { tokens: { name: "tokens", title: "Tokens", icon: "fa-solid fa-user-alt", tools: { select: { name: "select", order: 1 } } } };
    Hooks.callAll("getSceneControlButtons", controls);
    const bar = document.getElementById("scene-controls");
    for (const tool of Object.values(controls.tokens.tools)) {
      if (!tool.button || tool.visible === false) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = `control ${tool.icon}`;
      b.dataset.tool = tool.name;
      b.title = i18n.localize(tool.title);
      b.setAttribute("aria-label", i18n.localize(tool.title));
      b.addEventListener("click", (ev) => tool.onChange?.(ev, true));
      bar.append(b);
    }
    document.body.dataset.booted = "1";
    // Game#initializeUI is not awaited: the chat log draws its first batch of the messages it holds (the newest
    // CONFIG.ChatMessage.batchSize) while the canvas is drawn, and (here always) before `ready` runs; older ones
    // when the log is scrolled to its top.
    document.getElementById("chat-log").addEventListener("scroll", chatLog.onScroll, { passive: true });
    chatLog.renderBatch(CONFIG.ChatMessage.batchSize);
    combatApp.render();
    drawHotbar();
    drawCanvas();
    await chatQueue;
    game.ready = true;
    Hooks.callAll("ready");
    await chatQueue;
    document.body.dataset.ready = "1";
  };

  window.standin = {
    rerenderChat: () => chatLog.rerender(),
    drawCanvas,
    /** Scene#view: this user looks at another scene (the canvas draws it); the active scene stays. */
    viewScene: (id) => {
      canvas.scene = game.scenes.get(id);
      game.scenes.viewed = canvas.scene;
      drawCanvas();
    },
    /** Scene#activate on this page: one scene active, `updateScene` with `{active: true}`, the GM views it. */
    activateScene: (id) => {
      for (const s of game.scenes.contents) s.active = s.id === id;
      Hooks.callAll("updateScene", game.scenes.get(id), { active: true }, {}, game.user.id);
      window.standin.viewScene(id);
    },
    popoutCombat: () => combatApp.renderPopout(),
    popoutChat: () => chatLog.renderPopout(),
    /**
     * The two colour schemes of v13's `core.uiConfig` (`colorScheme.applications`, `colorScheme.interface`):
     * the body carries the applications' (`theme-light`/`theme-dark`), the interface (sidebar, chat,
     * notifications, hotbar) the other's.
     */
    setColorScheme: (applications, iface) => {
      for (const [el, scheme] of [[document.body, applications], [document.getElementById("interface"), iface]]) {
        el.classList.remove("theme-light", "theme-dark");
        el.classList.add(`theme-${scheme}`);
      }
    },
    /** Collapse the sidebar: the chat tab is not on screen, so new messages show in the notifications pane too. */
    collapseSidebar: () => { reached("the notifications pane"); chatNotifications = true; document.getElementById("sidebar").classList.add("collapsed"); },
    ActorSheet: ActorSheetV2,
    SimpleActorSheet,
    /** A setting menu's application, as the settings form's button opens it. */
    openSettingsMenu: (key) => { const App = settingMenus.get(key)?.type; return App ? new App().render({ force: true }) : null; },
    /** Let Dice So Nice's throws in flight land (while `window.__holdDice` holds them). */
    landDice: () => game.dice3d?.land(),
  };
})();
