import { registerStatusEffects } from "../tokens.mjs";

/** `setup`: a system may have rebuilt `CONFIG.statusEffects` since `init`. */
export default function setup() {
  registerStatusEffects();
}
