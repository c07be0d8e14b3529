import { MODULE_ID } from "../constants.mjs";

/**
 * `userConnected`: a user joined or left. Foundry's active GM may have changed, and with it the relay.
 * @param {User.Implementation} _user
 * @param {boolean} _connected
 */
export default function userConnected(_user, _connected) {
  game.modules?.get(MODULE_ID)?.api?.client.onUserConnected();
}
