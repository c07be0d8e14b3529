import { drawStrain } from "../tokens.mjs";

/**
 * `refreshToken`: draw the strain counter.
 * @param {foundry.canvas.placeables.Token.Implementation} token
 */
export default function refreshToken(token) {
  drawStrain(token);
}
