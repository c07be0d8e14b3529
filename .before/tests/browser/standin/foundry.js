// A small Foundry VTT v13 stand-in: just the globals the Verdict module uses, so the real module files
// load unchanged in a plain page. Pages of one browser context share chat and the module socket over
// BroadcastChannel, the way Foundry's server relays them between clients.
/* global Handlebars */
(() => {
  const params = new URLSearchParams(location.search);
  const me = params.get("user") ?? "gm1";
  const USERS = [
    { id: "gm1", name: "Gamemaster", isGM: true, characterId: null },
    { id: "p1", name: "Ayla", isGM: false, characterId: "actorAyla" },
    { id: "p2", name: "Bram", isGM: false, characterId: "actorBram" },
  ];
  const ACTORS = [
    { id: "actorAyla", name: "Ayla Thorn", owner: "p1" },
    { id: "actorBram", name: "Bram Ashdown", owner: "p2" },
  ];

  // --- Hooks --------------------------------------------------------------------------------------
  const hooks = new Map();
  let hookId = 0;
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
    callAll(name, ...args) {
      for (const h of [...(hooks.get(name) ?? [])]) {
        if (h.once) Hooks.off(name, h.id);
        try { h.fn(...args); } catch (err) { console.error(`hook ${name} failed`, err); window.__errors.push(`${name}: ${err.message}`); }
      }
      return true;
    },
    call(name, ...args) {
      for (const h of [...(hooks.get(name) ?? [])]) {
        if (h.once) Hooks.off(name, h.id);
        try { if (h.fn(...args) === false) return false; } catch (err) { console.error(`hook ${name} failed`, err); window.__errors.push(`${name}: ${err.message}`); }
      }
      return true;
    },
  };
  window.__errors = [];
  window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
  window.addEventListener("unhandledrejection", (e) => window.__errors.push(`unhandled: ${e.reason?.message ?? e.reason}`));

  // --- collections ----------------------------------------------------------------------------------
  class Collection extends Map {
    get contents() { return [...this.values()]; }
    find(fn) { return this.contents.find(fn); }
    filter(fn) { return this.contents.filter(fn); }
    map(fn) { return this.contents.map(fn); }
    some(fn) { return this.contents.some(fn); }
  }

  // --- i18n -----------------------------------------------------------------------------------------
  let translations = {};
  const lookup = (key) => key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), translations);
  const i18n = {
    localize: (key) => { const v = lookup(key); return typeof v === "string" ? v : key; },
    has: (key) => typeof lookup(key) === "string",
    format: (key, data = {}) => i18n.localize(key).replace(/\{(\w+)\}/g, (_m, k) => data[k] ?? `{${k}}`),
  };

  // --- documents ------------------------------------------------------------------------------------
  const flagsOf = (doc) => (doc.flags ??= {});
  const getFlag = (doc, scope, key) => key.split(".").reduce((o, k) => o?.[k], flagsOf(doc)[scope]);
  const deepMerge = (a, b) => {
    for (const [k, v] of Object.entries(b)) {
      if (v && typeof v === "object" && !Array.isArray(v) && a[k] && typeof a[k] === "object" && !Array.isArray(a[k])) deepMerge(a[k], v);
      else a[k] = v;
    }
    return a;
  };

  class User {
    constructor(d) { Object.assign(this, d); this.active = true; }
    get isSelf() { return this.id === me; }
    /** Foundry's `user.character` is the Actor document. */
    get character() { return this.characterId ? game.actors.get(this.characterId) ?? null : null; }
    async assignHotbarMacro(macro, slot) { window.__hotbar = { macro: macro.name, slot }; }
  }
  // Actor writes reach every page of the world, as Foundry's server relays document updates. Each page
  // keeps a log of who wrote what (`window.__writes`), so tests can check that only the GM writes.
  const actorChannel = new BroadcastChannel("standin-actors");
  window.__writes = [];
  class Actor {
    constructor(d) { Object.assign(this, d); this.flags = {}; this.statuses = new Set(); }
    getFlag(scope, key) { return getFlag(this, scope, key); }
    async setFlag(scope, key, value) {
      this._setFlag(scope, key, value, me);
      actorChannel.postMessage({ op: "flag", actor: this.id, scope, key, value: JSON.parse(JSON.stringify(value ?? null)), by: me });
      return this;
    }
    _setFlag(scope, key, value, by) {
      const f = flagsOf(this);
      f[scope] ??= {};
      f[scope][key] = value;
      window.__writes.push({ by, actor: this.id, what: `flag ${scope}.${key}` });
      Hooks.callAll("updateActor", this, { flags: { [scope]: { [key]: value } } });
    }
    async toggleStatusEffect(id, { active } = {}) {
      // Foundry refuses a status that is not registered in CONFIG.statusEffects.
      if (!CONFIG.statusEffects.some((e) => e.id === id)) throw new Error(`Invalid status ID "${id}" provided to Actor#toggleStatusEffect`);
      const on = active ?? !this.statuses.has(id);
      this._setStatus(id, on, me);
      actorChannel.postMessage({ op: "status", actor: this.id, id, active: on, by: me });
      return on;
    }
    _setStatus(id, on, by) {
      if (on) this.statuses.add(id); else this.statuses.delete(id);
      window.__writes.push({ by, actor: this.id, what: `status ${id} ${on ? "on" : "off"}` });
      for (const token of this.getActiveTokens()) token.refresh({ refreshEffects: true });
    }
    testUserPermission(user, level) { return user.isGM || (level === "OWNER" && user.id === this.owner); }
    get isOwner() { return game.user.isGM || game.user.id === this.owner; }
    getActiveTokens() { return (canvas.tokens?.placeables ?? []).filter((t) => t.actor === this); }
  }
  actorChannel.onmessage = ({ data }) => {
    const actor = game.actors.get(data.actor);
    if (!actor) return;
    if (data.op === "flag") actor._setFlag(data.scope, data.key, data.value, data.by);
    else if (data.op === "status") actor._setStatus(data.id, data.active, data.by);
  };

  // --- the canvas: tokens drawn as DOM, with just the PIXI the module touches ---------------------
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
      this.renderFlags = { set: (flags) => this.refresh(flags) };
    }
    addChild(child) { this.children.push(child); child.parent = this; return child; }
    /** Foundry refreshes a token's render flags and calls `refreshToken`; the stand-in then draws it. */
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
      el.style.left = `${this.x}px`;
      el.style.top = `${this.y}px`;
      el.style.width = `${this.w}px`;
      el.style.height = `${this.h}px`;
      const initials = this.actor.name.split(/\s+/).map((w) => w[0]).join("");
      const effects = [...this.actor.statuses].map((id) => {
        const cfg = CONFIG.statusEffects.find((e) => e.id === id);
        return `<li data-status="${id}" title="${i18n.localize(cfg?.name ?? id)}"><i class="fa-solid ${STATUS_ICONS[id] ?? "fa-circle"}"></i></li>`;
      }).join("");
      const texts = this.children.filter((c) => c instanceof PIXIText && c.visible).map((c) =>
        `<span class="token-text" data-name="${c.name}" style="left:${c.position.x}px;top:${c.position.y}px;color:${c.style?.fill ?? "#fff"};transform:translate(${-100 * c.anchor.x}%,${-100 * c.anchor.y}%)">${c.text}</span>`).join("");
      el.innerHTML = `<div class="token-img">${initials}</div><ul class="token-effects">${effects}</ul>${texts}<div class="token-name">${this.actor.name}</div>`;
    }
  }

  const chatChannel = new BroadcastChannel("standin-chat");
  let msgCounter = 0;
  class ChatMessage {
    constructor(d) { Object.assign(this, d); this.flags ??= {}; this.whisper ??= []; this.blind ??= false; }
    get author() { return game.users.get(this._author); }
    get isAuthor() { return this._author === me; }
    get visible() { return !this.whisper.length || this.whisper.includes(me) || game.user.isGM; }
    getFlag(scope, key) { return getFlag(this, scope, key); }
    async setFlag(scope, key, value) { return this.update({ flags: { [scope]: { [key]: value } } }); }
    async update(changes) {
      deepMerge(this, JSON.parse(JSON.stringify(changes)));
      chatChannel.postMessage({ op: "update", id: this.id, changes: JSON.parse(JSON.stringify(changes)) });
      persist();
      renderMessage(this);
      return this;
    }
    toJSON() {
      return { id: this.id, content: this.content, speaker: this.speaker, whisper: this.whisper, blind: this.blind, flags: this.flags, _author: this._author };
    }
    static getSpeaker({ actor } = {}) { return actor ? { actor: actor.id, alias: actor.name } : { alias: game.user.name }; }
    static async create(data) {
      const msg = new ChatMessage({ ...JSON.parse(JSON.stringify(data)), id: `m${me}${++msgCounter}${Date.now().toString(36)}`, _author: me, timestamp: Date.now() });
      game.messages.set(msg.id, msg);
      chatChannel.postMessage({ op: "create", data: msg.toJSON() });
      persist();
      renderMessage(msg);
      return msg;
    }
  }
  // The world's chat log, kept where every page of this browser context finds it (Foundry's database).
  const persist = () => localStorage.setItem("standin-chat", JSON.stringify(game.messages.contents.map((m) => m.toJSON())));
  const restore = () => {
    for (const d of JSON.parse(localStorage.getItem("standin-chat") ?? "[]")) {
      const msg = new ChatMessage(d);
      game.messages.set(msg.id, msg);
      renderMessage(msg);
    }
  };
  chatChannel.onmessage = ({ data }) => {
    if (data.op === "create") {
      const msg = new ChatMessage(data.data);
      game.messages.set(msg.id, msg);
      renderMessage(msg);
    } else if (data.op === "update") {
      const msg = game.messages.get(data.id);
      if (!msg) return;
      deepMerge(msg, data.changes);
      renderMessage(msg);
    }
  };

  function renderMessage(msg) {
    const log = document.getElementById("chat-log");
    let li = log.querySelector(`[data-message-id="${msg.id}"]`);
    if (!msg.visible) { li?.remove(); return; }
    const fresh = document.createElement("li");
    fresh.className = `chat-message message flexcol${msg.whisper.length ? " whisper" : ""}${msg.blind ? " blind" : ""}`;
    fresh.dataset.messageId = msg.id;
    const hideContent = msg.blind && !game.user.isGM;
    fresh.innerHTML = `<header class="message-header flexrow"><h4 class="message-sender">${msg.speaker?.alias ?? msg.author?.name ?? "?"}</h4>`
      + `<span class="message-metadata"><time>now</time></span></header>`
      + (msg.whisper.length ? `<span class="whisper-to">To: ${msg.whisper.map((id) => game.users.get(id)?.name ?? id).join(", ")}</span>` : "")
      + `<div class="message-content">${hideContent ? "<em>???</em>" : msg.content}</div>`;
    if (li) li.replaceWith(fresh); else log.append(fresh);
    Hooks.call("renderChatMessageHTML", msg, fresh, {});
    log.scrollTop = log.scrollHeight;
  }

  class Macro {
    static async create(data) { return { ...data, id: "macro1" }; }
  }

  // --- the module socket ----------------------------------------------------------------------------
  const socketChannel = new BroadcastChannel("standin-socket");
  const socketHandlers = new Map();
  socketChannel.onmessage = ({ data }) => {
    for (const fn of socketHandlers.get(data.name) ?? []) fn(data.payload);
  };
  const socket = {
    emit(name, payload) { socketChannel.postMessage({ name, payload: JSON.parse(JSON.stringify(payload)) }); },
    on(name, fn) { if (!socketHandlers.has(name)) socketHandlers.set(name, []); socketHandlers.get(name).push(fn); },
  };

  // --- settings -------------------------------------------------------------------------------------
  const settingValues = new Map();
  const settings = {
    register(scope, key, cfg) {
      const full = `${scope}.${key}`;
      if (!settingValues.has(full)) settingValues.set(full, params.has(key) ? params.get(key) : cfg.default);
      settings._cfg.set(full, cfg);
    },
    get(scope, key) { return settingValues.get(`${scope}.${key}`); },
    async set(scope, key, value) {
      settingValues.set(`${scope}.${key}`, value);
      settings._cfg.get(`${scope}.${key}`)?.onChange?.(value);
    },
    _cfg: new Map(),
  };

  // --- ui -------------------------------------------------------------------------------------------
  const notify = (level) => (text) => {
    const box = document.getElementById("notifications");
    const li = document.createElement("li");
    li.className = `notification ${level}`;
    li.textContent = text;
    box?.append(li);
    setTimeout(() => li.remove(), 6000);
    (level === "error" ? console.error : console.log)(`[${level}] ${text}`);
  };

  // --- templates and applications ---------------------------------------------------------------------
  const templateCache = new Map();
  const templateUrl = (path) => `/${path}`;
  async function getTemplate(path) {
    if (!templateCache.has(path)) {
      templateCache.set(path, fetch(templateUrl(path)).then((r) => {
        if (!r.ok) throw new Error(`template ${path}: ${r.status}`);
        return r.text();
      }).then((src) => Handlebars.compile(src)));
    }
    return templateCache.get(path);
  }
  async function renderTemplate(path, data) { return (await getTemplate(path))(data, { allowProtoPropertiesByDefault: true }); }
  async function loadTemplates(paths) { await Promise.all((Array.isArray(paths) ? paths : Object.values(paths)).map(getTemplate)); }
  Handlebars.registerHelper("localize", (key) => i18n.localize(String(key)));

  const merge = (target, source) => {
    for (const [k, v] of Object.entries(source ?? {})) {
      if (k === "classes") target.classes = [...new Set([...(target.classes ?? []), ...v])];
      else if (v && typeof v === "object" && !Array.isArray(v) && typeof v !== "function") target[k] = merge({ ...(target[k] ?? {}) }, v);
      else target[k] = v;
    }
    return target;
  };
  let appCount = 0;
  let zIndex = 100;
  class ApplicationV2 {
    static DEFAULT_OPTIONS = { classes: [], tag: "div", window: { frame: true, title: "", icon: "" }, position: {}, actions: {}, form: null };
    constructor(options = {}) {
      const chain = [];
      for (let c = this.constructor; c && c !== Object; c = Object.getPrototypeOf(c)) if (Object.hasOwn(c, "DEFAULT_OPTIONS")) chain.unshift(c.DEFAULT_OPTIONS);
      this.options = chain.reduce((acc, o) => merge(acc, o), {});
      merge(this.options, options);
      this.id = this.options.id ?? `app-${++appCount}`;
      this.element = null;
      this.rendered = false;
    }
    get title() { return i18n.localize(this.options.window?.title ?? ""); }
    async _prepareContext(_options) { return {}; }
    async _onRender(_context, _options) {}
    _onClose(_options) {}
    async render(options = {}) {
      if (typeof options === "boolean") options = { force: options };
      if (!this.rendered && !options.force) return this;
      if (!this.element) this._createFrame();
      const context = await this._prepareContext(options);
      await this._renderParts(context, options);
      this.element.querySelector(".window-title").textContent = this.title;
      this.rendered = true;
      await this._onRender(context, options);
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
      el.innerHTML = `<header class="window-header"><i class="window-icon ${this.options.window?.icon ?? ""}"></i><h1 class="window-title"></h1>`
        + `<button type="button" class="header-control icon fa-solid fa-xmark" data-action="close" aria-label="Close"></button></header>`
        + `<section class="window-content"></section>`;
      el.addEventListener("click", (ev) => {
        const target = ev.target.closest("[data-action]");
        if (!target || !el.contains(target)) return;
        const action = target.dataset.action;
        if (action === "close") { ev.preventDefault(); this.close(); return; }
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
    async close() {
      this.element?.remove();
      this.element = null;
      this.rendered = false;
      this._onClose({});
      return this;
    }
  }
  const HandlebarsApplicationMixin = (Base) => class HandlebarsApplication extends Base {
    static PARTS = {};
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
        if (old) old.replaceWith(node);
        else {
          const order = Object.keys(parts);
          const next = order.slice(order.indexOf(id) + 1).map((p) => content.querySelector(`:scope > [data-application-part="${p}"]`)).find(Boolean);
          content.insertBefore(node, next ?? null);
        }
      }
    }
  };

  // --- game -----------------------------------------------------------------------------------------
  const users = new Collection(USERS.map((u) => [u.id, new User(u)]));
  Object.defineProperty(users, "activeGM", { get: () => users.find((u) => u.isGM && u.active) ?? null });
  const actors = new Collection(ACTORS.map((a) => [a.id, new Actor(a)]));
  const scene = { id: "scene1", name: "The Old Mill" };
  const modules = new Map([["verdict", { id: "verdict", active: true, title: "Verdict" }]]);

  window.Hooks = Hooks;
  window.ChatMessage = ChatMessage;
  window.Macro = Macro;
  window.CONFIG = { statusEffects: [{ id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" }] };
  window.ui = { notifications: { info: notify("info"), warn: notify("warning"), error: notify("error") } };
  window.PIXI = { Text: PIXIText };
  window.canvas = { scene, ready: true, tokens: { placeables: [] } };
  window.foundry = {
    applications: {
      api: { ApplicationV2, HandlebarsApplicationMixin },
      handlebars: { renderTemplate, loadTemplates, getTemplate },
    },
  };
  window.game = {
    release: { generation: 13, build: 345 },
    version: "13.345",
    user: users.get(me),
    users,
    actors,
    messages: new Collection(),
    scenes: new Collection([[scene.id, scene]]),
    settings,
    socket,
    i18n,
    modules,
  };
  game.scenes.viewed = scene;

  /** Boot like Foundry: translations, then the module's scripts, then init and ready. */
  window.standinBoot = async () => {
    translations = await (await fetch("/modules/verdict/lang/en.json")).json();
    document.body.dataset.user = me;
    document.getElementById("user-name").textContent = `${game.user.name}${game.user.isGM ? " (GM)" : ""}`;
    await import("/modules/verdict/scripts/verdict.mjs");
    Hooks.callAll("init");
    Hooks.callAll("setup");
    Hooks.callAll("ready");
    // The scene's tokens, drawn when the canvas is ready.
    canvas.tokens.placeables = [new Token(actors.get("actorAyla"), 360, 220), new Token(actors.get("actorBram"), 500, 220)];
    for (const token of canvas.tokens.placeables) token.refresh({ refreshState: true });
    restore();
    // The scene controls and the combat tracker, as Foundry builds them.
    const controls = { tokens: { name: "tokens", title: "Tokens", icon: "fa-solid fa-user-alt", tools: { select: { name: "select", order: 1 } } } };
    Hooks.callAll("getSceneControlButtons", controls);
    const bar = document.getElementById("scene-controls");
    for (const tool of Object.values(controls.tokens.tools)) {
      if (!tool.button) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = `control ${tool.icon}`;
      b.dataset.tool = tool.name;
      b.title = i18n.localize(tool.title);
      b.addEventListener("click", (ev) => tool.onChange?.(ev, true));
      if (tool.visible !== false) bar.append(b);
    }
    Hooks.callAll("renderCombatTracker", {}, document.getElementById("combat"), {});
    document.body.dataset.ready = "1";
  };
})();
