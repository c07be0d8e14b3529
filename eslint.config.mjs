// ESLint (flat config) over the Foundry module's scripts: the recommended rules, the browser's globals and
// the ones Foundry VTT defines for modules. Run by `make lint-js` (and so by `make test`).
import js from "@eslint/js";
import globals from "globals";

/** What Foundry VTT puts on the page for a module (read-only). */
const foundryGlobals = Object.fromEntries(
  ["foundry", "game", "ui", "canvas", "CONFIG", "CONST", "Hooks", "ChatMessage", "Actor", "Token", "TokenDocument", "Macro", "User", "Scene"]
    .map((name) => [name, "readonly"]),
);

export default [
  {
    files: ["vtt-module/scripts/**/*.mjs"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: { ...globals.browser, ...foundryGlobals },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
];
