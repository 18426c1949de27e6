/**
 * The spectator benches' scene: a field of MARKERS entities that all move every tick at
 * TICK_RATE, and players' avatars stepping along x (bench/suites/spectators.ts and
 * room-spectators.ts: the same game on a GameServer and in a room).
 */
import { defineGame } from '../../src/game/define-game.js';
import { t } from '../../src/schema/schema.js';

export const MARKERS = 300;
export const TICK_RATE = 30;
const coord = t.float(-256, 256, 1 / 16);

export const field = defineGame({
  name: 'bench-spectators',
  tickRate: TICK_RATE,
  maxEntities: 1024,
  entities: {
    avatar: { state: t.object({ x: coord, y: coord }), position: (a) => [a.x, a.y] },
    marker: { state: t.object({ x: coord, y: coord }), position: (m) => [m.x, m.y] },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a, input) => ({ ...a, x: Math.max(-200, Math.min(200, a.x + input.dx)) }),
});

export const rules = field.rules({
  onJoin(game, player) {
    player.spawn({ x: 0, y: player.index });
    if (game.entities.length === 1)
      for (let i = 0; i < MARKERS; i++)
        game.spawn('marker', { x: (i % 40) * 5 - 100, y: Math.floor(i / 40) * 5 });
  },
  onTick(game) {
    const phase = game.tick * 0.05;
    for (const e of game.entities)
      if (e.type === 'marker') e.state = { x: e.state.x, y: (e.id * 7 + Math.sin(phase + e.id) * 4) % 200 };
  },
});
