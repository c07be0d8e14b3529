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
    async assignHotbarMacro(macro, slot) { window.__hotbar = { macro: macro.name, slot }; }
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
    constructor(d) { this.id = d.id; this._id = d.id; this.name = d.name; this.owner = d.owner; this.flags = deepClone(d.flags ?? {}); this.statuses = new Set(d.statuses ?? []); }
    get uuid() { return `Actor.${this.id}`; }
    getFlag(scope, key) { return getProperty(this.flags[scope] ?? {}, key); }
    /** Document#setFlag: an update the server may refuse (ownership); applied when the server broadcasts it. */
    async setFlag(scope, key, value) {
      const flags = { [scope]: {} };
      setProperty(flags[scope], key, deepClone(value ?? null));
      await ask({ op: "updateActor", id: this.id, flags });
      return this;
    }
    /** Actor#toggleStatusEffect: refuses a status not registered in CONFIG.statusEffects ("Invalid status ID"). */
    async toggleStatusEffect(id, { active } = {}) {
      if (!statusConfig(id)) throw new Error(`Invalid status ID "${id}" provided to Actor#toggleStatusEffect`);
      const on = active ?? !this.statuses.has(id);
      if (on === this.statuses.has(id)) return on;
      await ask({ op: "updateActor", id: this.id, status: { id, active: on } });
      return on;
    }
    /** Document#testUserPermission: GMs own everything; a player owns their character. */
    testUserPermission(user, level) { return user.isGM || user.id === this.owner || level === "NONE"; }
    get isOwner() { return this.testUserPermission(game.user, "OWNER"); }
    getActiveTokens() { return (canvas.tokens?.placeables ?? []).filter((t) => t.actor === this); }
    _onUpdate(frame) {
      if (frame.flags) {
        mergeObject(this.flags, deepClone(frame.flags));
        for (const [scope, v] of Object.entries(frame.flags)) for (const key of Object.keys(v)) window.__writes.push({ by: frame.by, actor: this.id, what: `flag ${scope}.${key}` });
      }
      if (frame.status) {
        if (frame.status.active) this.statuses.add(frame.status.id); else this.statuses.delete(frame.status.id);
        window.__writes.push({ by: frame.by, actor: this.id, what: `status ${frame.status.id} ${frame.status.active ? "on" : "off"}` });
      }
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
  class Token {
    constructor(actor, x, y) {
      this.id = `token-${actor.id}`;
      this.actor = actor;
      this.document = { id: this.id, actorId: actor.id, name: actor.name, x, y };
      this.x = x;
      this.y = y;
      this.w = 100;
      this.h = 100;
      this.children = [];
      // Token#renderFlags: a refresh is scheduled, then `refreshToken` is called and the token drawn.
      this.renderFlags = { set: (flags) => queueMicrotask(() => this.refresh(flags)) };
    }
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
        board.append(el);
      }
      Object.assign(el.style, { left: `${this.x}px`, top: `${this.y}px`, width: `${this.w}px`, height: `${this.h}px` });
      const initials = this.actor.name.split(/\s+/).map((w) => w[0]).join("");
      // A status the configuration no longer lists is not drawn (Foundry draws effects from their config).
      const effects = [...this.actor.statuses].filter((id) => statusConfig(id)).map((id) => {
        const cfg = statusConfig(id);
        return `<li data-status="${id}" title="${escapeHTML(i18n.localize(cfg.name ?? id))}"><i class="fa-solid ${STATUS_ICONS[id] ?? "fa-circle"}"></i></li>`;
      }).join("");
      const texts = this.children.filter((c) => c instanceof PIXIText && c.visible).map((c) =>
        `<span class="token-text" data-name="${c.name}" style="left:${c.position.x}px;top:${c.position.y}px;color:${c.style?.fill ?? "#fff"};transform:translate(${-100 * c.anchor.x}%,${-100 * c.anchor.y}%)">${escapeHTML(c.text)}</span>`).join("");
      el.innerHTML = `<div class="token-img">${initials}</div><ul class="token-effects">${effects}</ul>${texts}<div class="token-name">${this.actor.name}</div>`;
    }
  }

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
    constructor({ author, ...data }) { Object.assign(this, deepClone(data)); this._authorRaw = author; this.flags ??= {}; this.whisper ??= []; this.blind ??= false; }
    get id() { return this._id; }
    /** ChatMessage#author: the User who created it, as the server recorded. */
    get author() { return game.users.get(this._authorRaw) ?? null; }
    get isAuthor() { return this._authorRaw === me; }
    /** ChatMessage#visible: a whispered message (without rolls) is visible to its author and its recipients only. */
    get visible() { return !this.whisper.length || this.isAuthor || this.whisper.includes(me); }
    /** ChatMessage#isContentVisible: a blind message hides its content from everyone not among its recipients. */
    get isContentVisible() {
      if (!this.visible) return false;
      if (!this.whisper.length) return true;
      return this.whisper.includes(me) || (this.isAuthor && !this.blind);
    }
    getFlag(scope, key) { return getProperty(this.flags[scope] ?? {}, key); }
    async setFlag(scope, key, value) { const flags = { [scope]: {} }; setProperty(flags[scope], key, value); return this.update({ flags }); }
    /** Document#update: the server refuses it unless the user is the author or a GM. */
    async update(changes) { await ask({ op: "updateMessage", id: this.id, changes: deepClone(changes) }); return this; }
    toJSON() { return { _id: this._id, content: this.content, speaker: this.speaker, whisper: this.whisper, blind: this.blind, flags: this.flags, author: this._authorRaw }; }
    static getSpeaker({ actor } = {}) { return actor ? { actor: actor.id, alias: actor.name } : { alias: game.user.name }; }
    /** ChatMessage.create: the server assigns id and author (the creating user); resolves once created. */
    static async create(data) {
      const body = deepClone(data);
      delete body.author; delete body.user; delete body._id;
      const created = await ask({ op: "create", data: body });
      return game.messages.get(created._id);
    }
    /** ChatMessage#renderHTML: the enriched content in a new element, passed to `renderChatMessageHTML` before anyone inserts it. */
    async renderHTML() {
      const content = this.isContentVisible ? await enrichHTML(this.content) : "";
      const li = document.createElement("li");
      li.className = `chat-message message flexcol${this.whisper.length ? " whisper" : ""}${this.blind ? " blind" : ""}`;
      li.dataset.messageId = this.id;
      li.innerHTML = `<header class="message-header flexrow"><h4 class="message-sender">${escapeHTML(this.speaker?.alias ?? this.author?.name ?? "?")}</h4>`
        + `<span class="message-metadata"><time>now</time></span></header>`
        + (this.whisper.length ? `<span class="whisper-to">To: ${this.whisper.map((id) => escapeHTML(game.users.get(id)?.name ?? id)).join(", ")}</span>` : "")
        + `<div class="message-content">${content}</div>`;
      Hooks.callAll("renderChatMessageHTML", this, li, { message: this.toJSON(), author: this.author, isWhisper: this.whisper.length > 0 });
      return li;
    }
  }
  const messageFrom = (d) => new ChatMessage(d);

  // The chat log: renders each visible message and inserts it afterwards, one at a time in order.
  let chatQueue = Promise.resolve();
  const chatLog = {
    post(msg) { chatQueue = chatQueue.then(() => chatLog._render(msg)).catch((err) => window.__errors.push(`chat: ${err.message}`)); return chatQueue; },
    async _render(msg) {
      const log = document.getElementById("chat-log");
      const old = log.querySelector(`[data-message-id="${msg.id}"]`);
      if (!msg.visible) { old?.remove(); return; }
      const el = await msg.renderHTML();
      // The log inserts the element a task after rendering it (Foundry awaits the render, then animates it in).
      await new Promise((r) => setTimeout(r, 5));
      const current = log.querySelector(`[data-message-id="${msg.id}"]`);
      if (current) current.replaceWith(el); else log.append(el);
      log.scrollTop = log.scrollHeight;
    },
    rerender() { for (const m of game.messages.contents) chatLog.post(m); return chatQueue; },
  };

  class Macro {
    static async create(data) { return { ...data, id: "macro1" }; }
  }

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
  const settings = {
    register(ns, key, cfg) { settingCfg.set(`${ns}.${key}`, { ...cfg, scope: cfg.scope ?? "world" }); },
    /** ClientSettings#get: world values come from the server, client values from this browser's localStorage. */
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
      }).then((src) => Handlebars.compile(src)));
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
    async render(options = {}) {
      if (typeof options === "boolean") options = { force: options };
      if (!this.rendered && !options.force) return this;
      const first = !this.element;
      const context = await this._prepareContext(options);
      // As Foundry: the pre-render steps run after the context is ready and before the parts are replaced.
      if (first) await this._preFirstRender(context, options);
      await this._preRender(context, options);
      // The frame, and with it the window title, is made on the first render only.
      if (first) this._createFrame();
      await this._renderParts(context, options);
      this.rendered = true;
      if (first) await this._onFirstRender(context, options);
      await this._onRender(context, options);
      // Render hooks: one per class of the chain, most generic first (renderApplicationV2 ... renderMyApp).
      for (const c of classChain(this).reverse()) if (c.name) Hooks.callAll(`render${c.name}`, this, this.element, context, options);
      return this;
    }
    async _renderParts(_context, _options) {}
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
      document.getElementById("interface").append(el);
      this.element = el;
    }
    /** The header-controls menu is built each time it opens: `_getHeaderControls` then `getHeaderControls{Class}` hooks, filtered by visibility and ownership. */
    _toggleControls() {
      const old = this.element.querySelector(".controls-dropdown");
      if (old) { old.remove(); return; }
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
      for (const c of shown) {
        const li = document.createElement("li");
        li.innerHTML = `<button type="button" class="header-control" data-action="${escapeHTML(c.action)}"><i class="${escapeHTML(c.icon ?? "")}"></i><span>${escapeHTML(i18n.localize(c.label ?? ""))}</span></button>`;
        menu.append(li);
      }
      this.element.querySelector(".window-header").after(menu);
    }
    async close(options = {}) {
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
    async _renderParts(context, options) {
      const content = this.element.querySelector(".window-content");
      const parts = this.constructor.PARTS ?? {};
      const wanted = options.parts ?? Object.keys(parts);
      for (const [id, part] of Object.entries(parts)) {
        if (!wanted.includes(id)) continue;
        const html = await renderTemplate(part.template, context);
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

  // --- the combat tracker, and pop-outs ---------------------------------------------------------------
  const combatApp = {
    id: "combat",
    element: null,
    /** Render the sidebar's combat tracker (hook `renderCombatTracker` with its element). */
    render() {
      combatApp.element = document.getElementById("combat");
      Hooks.callAll("renderCombatTracker", combatApp, combatApp.element, {});
    },
    /**
     * Pop the tracker out. Generation 14: into a window of its own (an iframe here, with its own document and
     * its own HTMLElement); generation 13: a floating window in the same document.
     */
    async renderPopout() {
      const markup = `<section id="combat-popout" class="sidebar-tab combat-sidebar"><header class="combat-tracker-header"><h3>Combat Tracker</h3></header><ol class="combat-tracker"></ol></section>`;
      let root;
      if (game.release.generation >= 14) {
        const frame = document.createElement("iframe");
        frame.id = "combat-popout-window";
        frame.title = "Combat Tracker";
        frame.style.cssText = "position: fixed; left: 700px; top: 80px; width: 360px; height: 260px; z-index: 5000; background: #222; border: 1px solid #999";
        document.body.append(frame);
        const doc = frame.contentDocument;
        doc.open();
        doc.write(`<!doctype html><html lang="en"><head><title>Combat Tracker</title>${[...document.querySelectorAll("link[rel=stylesheet]")].map((l) => `<link rel="stylesheet" href="${l.href}">`).join("")}</head><body class="vtt theme-dark">${markup}</body></html>`);
        doc.close();
        root = doc.getElementById("combat-popout");
      } else {
        const holder = document.createElement("div");
        holder.className = "application window-app popout";
        holder.id = "combat-popout-window";
        holder.style.cssText = "position: fixed; left: 700px; top: 80px; width: 360px; z-index: 5000";
        holder.innerHTML = markup;
        document.body.append(holder);
        root = holder.querySelector("#combat-popout");
      }
      Hooks.callAll("renderCombatTracker", { ...combatApp, popOut: true }, root, {});
      return root;
    },
  };

  // --- the game -------------------------------------------------------------------------------------
  const users = new Users();
  const actors = new Collection();
  const messages = new Collection();
  // Scene#active: the one scene the GM activated for everyone; a user may view another (Scene#view).
  const scene = { id: "scene1", name: "The Old Mill", active: false };
  const crypt = { id: "scene2", name: "The Crypt", active: false };
  const moduleManifests = new Map();
  const modules = new Map();
  const baseStatuses = () => [{ id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" }];
  // CONFIG.statusEffects: an array in generation 13, an object keyed by status id in generation 14.
  const statusList = (gen, list) => (gen >= 14 ? Object.fromEntries(list.map((e) => [e.id, e])) : list);

  window.Hooks = Hooks;
  window.ChatMessage = ChatMessage;
  window.Macro = Macro;
  window.ui = { notifications: { info: notify("info"), warn: notify("warning"), error: notify("error") }, combat: combatApp, chat: chatLog };
  window.PIXI = { Text: PIXIText };
  window.canvas = { scene, ready: false, tokens: { placeables: [] } };
  const TextEditor = { enrichHTML, implementation: { enrichHTML } };
  window.foundry = {
    applications: {
      api: { ApplicationV2, HandlebarsApplicationMixin, DocumentSheetV2 },
      sheets: { ActorSheetV2 },
      handlebars: { renderTemplate, loadTemplates, getTemplate },
      ux: { TextEditor },
    },
    utils: { deepClone, getProperty, setProperty, mergeObject, randomID, escapeHTML },
  };
  window.game = {
    user: null,
    users,
    actors,
    messages,
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
        if (game.ready || document.body.dataset.booted) chatLog.post(msg);
        return;
      }
      case "updatedMessage": {
        const msg = messages.get(f.id);
        if (!msg) return;
        mergeObject(msg, deepClone(f.changes));
        Hooks.callAll("updateChatMessage", msg, f.changes, {});
        chatLog.post(msg);
        return;
      }
      case "updatedActor":
        actors.get(f.id)?._onUpdate(f);
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
    canvas.tokens.placeables = [new Token(actors.get("actorAyla"), 360, 220), new Token(actors.get("actorBram"), 500, 220)];
    canvas.ready = true;
    Hooks.callAll("canvasReady", canvas);
    for (const token of canvas.tokens.placeables) token.refresh({ refreshState: true });
  }

  /** The test system: like systems that rebuild the status list after init, it replaces CONFIG.statusEffects on every canvasReady. */
  function installSystem(system) {
    if (system !== "rebuild") return;
    Hooks.on("canvasReady", () => {
      CONFIG.statusEffects = statusList(game.release.generation, [...baseStatuses(), { id: "prone", name: "EFFECT.StatusProne", img: "icons/svg/falling.svg" }]);
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
    worldSettings = init.settings;
    for (const d of init.messages) { const m = messageFrom(d); messages.set(m.id, m); }
    ws.addEventListener("message", (ev) => onFrame(JSON.parse(ev.data)));
    ws.addEventListener("close", () => { document.body.dataset.disconnected = "1"; });

    game.release = { generation: gen, build: gen >= 14 ? 369 : 351 };
    game.version = `${gen}.${game.release.build}`;
    window.CONFIG = { statusEffects: statusList(gen, baseStatuses()), queries: {}, TextEditor: { enrichers: [] } };
    const manifest = await (await fetch("/modules/verdict/module.json")).json();
    moduleManifests.set(manifest.id, manifest);
    modules.set(manifest.id, { id: manifest.id, active: true, title: manifest.title, manifest });
    translations = await (await fetch("/modules/verdict/lang/en.json")).json();
    installSystem(init.system);
    document.body.dataset.user = me;
    document.body.dataset.generation = String(gen);
    document.getElementById("user-name").textContent = `${game.user.name}${game.user.isGM ? " (GM)" : ""}`;
    renderPlayers();

    await import("/modules/verdict/scripts/verdict.mjs");
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
    for (const m of messages.contents) chatLog.post(m);
    combatApp.render();
    drawCanvas();
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
    ActorSheet: ActorSheetV2,
  };
})();
