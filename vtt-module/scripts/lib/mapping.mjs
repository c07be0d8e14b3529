/**
 * Where a check field comes from: the world maps a rule set's numeric fields to a roll-data path
 * (`@skills.athletics.value`) or a formula over the actor's roll data (`@abilities.str.mod + @prof`). Which
 * fields exist and their limits come from the generated vocabulary (lib/systems.mjs); only the mapping is the
 * world's. Pure: the caller passes the roll data and, in Foundry, its own formula-data replacement.
 * @module
 */

/** @typedef {{value: number|null, error: null|"missing"|"not_number"|"out_of_range"|"syntax", detail?: string}} Resolved */

const PATH = /@([A-Za-z_][\w-]*(?:\.[\w-]+)*)/g;

/**
 * @param {unknown} data
 * @param {string} path
 * @returns {unknown}
 */
function lookup(data, path) {
  return path.split(".").reduce((/** @type {unknown} */ o, k) => (o !== null && typeof o === "object" ? /** @type {Record<string, unknown>} */ (o)[k] : undefined), data);
}

/**
 * Every numeric key of an actor's roll data, as paths (`skills.athletics.value`), to pick from.
 * @param {unknown} data
 * @param {number} [limit]
 * @returns {Array<{path: string, value: number}>}
 */
export function numericPaths(data, limit = 400) {
  /** @type {Array<{path: string, value: number}>} */
  const out = [];
  const seen = new Set();
  /** @param {unknown} node @param {string} prefix @param {number} depth */
  const walk = (node, prefix, depth) => {
    if (out.length >= limit || depth > 6 || node === null || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    for (const [k, v] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (typeof v === "number" && Number.isFinite(v)) out.push({ path, value: v });
      else if (v && typeof v === "object" && !Array.isArray(v)) walk(v, path, depth + 1);
      if (out.length >= limit) return;
    }
  };
  walk(data, "", 0);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Evaluate arithmetic: numbers, + - * / %, parentheses, unary signs and floor, ceil, round, abs, min, max.
 * Anything else is a syntax error (no names, no code).
 * @param {string} text
 * @returns {number}
 */
export function arithmetic(text) {
  const tokens = text.match(/\d+(?:\.\d+)?|[A-Za-z]+|[-+*/%(),]|\S/g) ?? [];
  let i = 0;
  const FUNCS = { floor: Math.floor, ceil: Math.ceil, round: Math.round, abs: Math.abs, min: Math.min, max: Math.max };
  const fail = (/** @type {string} */ why) => {
    throw new SyntaxError(why);
  };
  /** @returns {number} */
  const primary = () => {
    const t = tokens[i++];
    if (t === undefined) return fail("the formula ends too soon");
    if (/^\d/.test(t)) return Number(t);
    if (t === "(") {
      const v = expr();
      if (tokens[i++] !== ")") fail("a parenthesis is not closed");
      return v;
    }
    if (t === "-") return -primary();
    if (t === "+") return primary();
    if (Object.hasOwn(FUNCS, t)) {
      if (tokens[i++] !== "(") fail(`${t} needs parentheses`);
      const args = [expr()];
      while (tokens[i] === ",") {
        i++;
        args.push(expr());
      }
      if (tokens[i++] !== ")") fail("a parenthesis is not closed");
      return /** @type {(...a: number[]) => number} */ (FUNCS[/** @type {keyof typeof FUNCS} */ (t)])(...args);
    }
    return fail(`"${t}" is not a number`);
  };
  const term = () => {
    let v = primary();
    while (tokens[i] === "*" || tokens[i] === "/" || tokens[i] === "%") {
      const op = tokens[i++];
      const r = primary();
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const expr = () => {
    let v = term();
    while (tokens[i] === "+" || tokens[i] === "-") {
      const op = tokens[i++];
      const r = term();
      v = op === "+" ? v + r : v - r;
    }
    return v;
  };
  const value = expr();
  if (i < tokens.length) fail(`"${tokens[i]}" is not expected there`);
  return value;
}

/**
 * One field's value for an actor: the mapping's paths looked up in the roll data, then the formula evaluated
 * and checked against the field's limits. A fractional result rounds down (as a rule of thumb halves do).
 * @param {string} expr  a path (`@a.b`) or a formula
 * @param {Record<string, unknown>} data  the actor's roll data
 * @param {{min?: number, max?: number}} [limits]
 * @param {(formula: string, data: Record<string, unknown>) => string} [replace]  Foundry's `Roll.replaceFormulaData`
 * @returns {Resolved}
 */
export function resolveMapping(expr, data, limits = {}, replace) {
  const text = String(expr ?? "").trim();
  if (!text) return { value: null, error: null };
  const paths = [...text.matchAll(PATH)].map((m) => m[1]);
  const missing = paths.filter((p) => lookup(data, p) === undefined || lookup(data, p) === null);
  if (missing.length) return { value: null, error: "missing", detail: missing.map((p) => `@${p}`).join(", ") };
  const wrong = paths.filter((p) => {
    const v = lookup(data, p);
    return typeof v === "object" || (typeof v !== "number" && !Number.isFinite(Number(v))) || (typeof v === "string" && v.trim() === "");
  });
  if (wrong.length) return { value: null, error: "not_number", detail: wrong.map((p) => `@${p}`).join(", ") };
  const substituted = replace ? replace(text, data) : text.replace(PATH, (_m, p) => `(${Number(lookup(data, p))})`);
  let n;
  try {
    n = arithmetic(substituted);
  } catch (err) {
    return { value: null, error: "syntax", detail: /** @type {Error} */ (err).message };
  }
  if (!Number.isFinite(n)) return { value: null, error: "not_number", detail: String(n) };
  const value = Math.floor(n);
  if ((limits.min !== undefined && value < limits.min) || (limits.max !== undefined && value > limits.max)) {
    return { value: null, error: "out_of_range", detail: `${value} (${limits.min ?? "…"}–${limits.max ?? "…"})` };
  }
  return { value, error: null };
}

/**
 * The fields of a rule set a world maps, resolved for one actor: the values that resolve, and why the
 * others do not (those fall back to what the dialog would have had).
 * @param {Array<{name: string, type: string, min?: number, max?: number}>} fields  the rule set's fields
 * @param {Record<string, string>|undefined} mapping  field -> path or formula
 * @param {Record<string, unknown>} data  the actor's roll data
 * @param {(formula: string, data: Record<string, unknown>) => string} [replace]
 * @returns {{values: Record<string, number>, problems: Record<string, Resolved>}}
 */
export function mappedValues(fields, mapping, data, replace) {
  /** @type {Record<string, number>} */
  const values = {};
  /** @type {Record<string, Resolved>} */
  const problems = {};
  for (const f of fields) {
    if (f.type !== "int" && f.type !== "optint") continue;
    const expr = mapping?.[f.name];
    if (!expr) continue;
    const r = resolveMapping(expr, data, { min: f.min, max: f.max }, replace);
    if (r.error) problems[f.name] = r;
    else if (r.value !== null) values[f.name] = r.value;
  }
  return { values, problems };
}

/**
 * A preset: Simple Worldbuilding puts each attribute at the top of its roll data (`@rank`), so each numeric
 * field maps to the attribute of its own name; "none" maps nothing (the dialog's defaults and remembered values).
 * @param {"worldbuilding"|"none"} preset
 * @param {Array<{name: string, type: string}>} fields
 * @returns {Record<string, string>}
 */
export function presetMapping(preset, fields) {
  if (preset !== "worldbuilding") return {};
  return Object.fromEntries(fields.filter((f) => f.type === "int" || f.type === "optint").map((f) => [f.name, `@${f.name}`]));
}

/**
 * The numeric fields a GM's request leaves to each roller's character: those the world maps (a non-empty path
 * or formula) and the GM has not set.
 * @param {Array<{name: string, type: string}>} fields  the fields the request shows
 * @param {Record<string, string>|undefined} mapping  field -> path or formula
 * @param {Set<string>} edited  the fields the GM set
 * @returns {string[]}
 */
export function leftToCharacter(fields, mapping, edited) {
  return fields
    .filter((f) => (f.type === "int" || f.type === "optint") && String(mapping?.[f.name] ?? "").trim() && !edited.has(f.name))
    .map((f) => f.name);
}

/**
 * What a request card fixes for the player who rolls it: the GM's values, without the fields left to the
 * character (the roll dialog fills those from the rolling player's character, and they are not locked).
 * @param {Record<string, any>|undefined} values  the GM's values
 * @param {string[]|undefined} fromCharacter  the fields left to the character
 * @param {string[]} locked  the fields a request fixes
 * @returns {{values: Record<string, any>, locked: string[]}}
 */
export function requestForCharacter(values, fromCharacter, locked) {
  const left = new Set(fromCharacter ?? []);
  return {
    values: Object.fromEntries(Object.entries(values ?? {}).filter(([name]) => !left.has(name))),
    locked: locked.filter((name) => !left.has(name)),
  };
}
