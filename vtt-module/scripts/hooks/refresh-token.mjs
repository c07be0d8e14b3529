import { drawBadges } from "../tokens.mjs";

/**
 * `refreshToken`: draw the badges the rule sets' drawings put on tokens.
 * @param {foundry.canvas.placeables.Token.Implementation} token
 */
export default function refreshToken(token) {
  drawBadges(token);
}
