// A tag server that takes spectators, and a spectator: no player, no entity, no input.
import { GameClient, GameServer } from 'ghostwire/node';
import { tag } from '../tag/game.js';
import { rules } from '../tag/rules.js';

declare const playerEntityId: number;
declare function draw(entities: GameClient<typeof tag>['entities']): void;

// #region docs
const server = await GameServer.start(rules, {
  maxPlayers: 16,
  spectators: { max: 200 }, // default: none
  relevancy: { radius: 40, bounds: [-100, -100, 100, 100] }, // optional: relevancy by distance
});

const tv = await GameClient.connect(tag, server.url, { spectate: true });
tv.follow(playerEntityId); // or tv.camera(x, y): a free camera
setInterval(() => {
  tv.update(); // no input
  draw(tv.entities);
}, 1000 / 60);
// #endregion
