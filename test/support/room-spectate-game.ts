/**
 * The game of the room-spectator tests (test/services/room-spectators*.test.ts): avatars that walk
 * east or west, two markers far apart (relevancy radius 20 keeps them out of a player's view), and
 * a fleet whose 'field' rooms seat one player and spectators beside it.
 */

import { defineGame } from '../../src/game/define-game.js';
import type { GameClient } from '../../src/game/game-client.js';
import { t } from '../../src/schema/schema.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';

const coord = t.float(-256, 256, 1 / 16);
export const field = defineGame({
  name: 'room-spectate-field',
  tickRate: 30,
  entities: {
    avatar: { state: t.object({ x: coord, y: coord }), position: (a) => [a.x, a.y] },
    marker: { state: t.object({ x: coord, y: coord }), position: (m) => [m.x, m.y] },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a, input) => ({ ...a, x: a.x + input.dx }),
  messages: { chat: t.object({ text: t.string(32) }) },
});

export interface Log {
  joins: number;
  chat: number;
  inputs: number;
}

/** Markers at x = -100 and x = 100; players spawn at x = 0 (relevancy radius 20 keeps them apart). */
export function fieldRules(log: Log) {
  return field.rules({
    onJoin(game, player) {
      log.joins++;
      player.spawn({ x: 0, y: 0 });
      if (game.entities.every((e) => e.type !== 'marker')) {
        game.spawn('marker', { x: -100, y: 0 });
        game.spawn('marker', { x: 100, y: 0 });
      }
    },
    onMessage() {
      log.chat++;
    },
    onInput() {
      log.inputs++;
    },
  });
}

export function markersSeen(client: GameClient): string[] {
  return client.entities
    .filter((e) => e.type === 'marker')
    .map((e) => ((e.state as { x: number }).x < 0 ? 'west' : 'east'))
    .sort();
}

/** A fleet whose 'field' rooms seat one player and two spectators; pool 'solo' matches one player. */
export function startFleet(log: Log, redis?: string): Promise<LocalFleet> {
  return startLocalFleet({
    games: {
      field: {
        rules: fieldRules(log),
        defaults: { maxClients: 1, emptyDisposeMs: 1500 },
        spectators: { max: 2, maxPerAddress: 3, requestsPerSecond: 20 },
        relevancy: { radius: 20, bounds: [-256, -256, 256, 256] },
      },
    },
    port: 0,
    transports: ['udp'],
    ...(redis === undefined ? {} : { redis }),
    matchmaking: {
      room: 'field',
      pools: {
        solo: {
          minPlayers: 1,
          maxPlayers: 1,
          fillWaitMs: 0,
          skillWindow: { initial: 0, perSecond: 0, max: 0 },
        },
      },
      intervalMs: 50,
    },
  });
}
