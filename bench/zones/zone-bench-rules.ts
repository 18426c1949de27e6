/**
 * The zones bench's rules module (every zone thread imports it): zone 0 spawns the wanderers once,
 * all over the map, so a world of any number of zones holds the same entities; they reach their
 * zones by handoff. Each wanderer moves every tick and turns a random way every 200 of its own
 * ticks (100 m) or back at a wall: a random walk across borders. Its path depends on its own state
 * and data alone (its own generator in its data), whichever zone steps it.
 * GW_ZONES_BENCH_WANDERERS (default 10,000) and GW_ZONES_BENCH_SEED (default 26) set the world.
 */
import { prng } from '../../src/random/prng.js';
import type { ZoneInfo } from '../../src/zones/zone-rules-module.js';
import { clamp, SIDE, zoneBenchGame } from './zone-bench-game.js';

const WANDERERS = Number(process.env.GW_ZONES_BENCH_WANDERERS ?? 10_000);
const SEED = Number(process.env.GW_ZONES_BENCH_SEED ?? 26) >>> 0;
/** Metres a wanderer goes per tick (10 m/s at 20 Hz). */
const WANDERER_STEP = 0.5;
/** Ticks between two turns of a wanderer. */
const TURN_TICKS = 200;
const DX = [1, 0.7, 0, -0.7, -1, -0.7, 0, 0.7];
const DY = [0, 0.7, 1, 0.7, 0, -0.7, -1, -0.7];

export default function rules(zone: ZoneInfo) {
  return zoneBenchGame.rules({
    onJoin(_game, player) {
      // Anywhere on the map (from the player's slot), so the bots start in every zone.
      const random = prng((SEED ^ Math.imul(player.index + 1, 0x9e3779b1)) >>> 0);
      player.spawn({ x: random() * SIDE, y: random() * SIDE });
    },
    onTick(game) {
      if (zone.zone === 0 && game.data.spawned !== true) {
        game.data.spawned = true;
        const random = prng(SEED);
        for (let i = 0; i < WANDERERS; i++) {
          const e = game.spawn('wanderer', {
            x: random() * SIDE,
            y: random() * SIDE,
            heading: Math.floor(random() * 8),
          });
          e.data.moves = Math.floor(random() * TURN_TICKS);
          e.data.turns = Math.floor(random() * 0xffffffff);
        }
      }
      for (const e of game.entities) {
        if (e.type !== 'wanderer') continue;
        const s = e.state;
        const moves = Number(e.data.moves ?? 0) + 1;
        e.data.moves = moves;
        let heading = s.heading;
        if (moves % TURN_TICKS === 0) {
          const turns = (Math.imul(Number(e.data.turns ?? 1), 1664525) + 1013904223) >>> 0;
          e.data.turns = turns;
          heading = (heading + (turns >>> 29)) & 7;
        }
        let x = s.x + DX[heading] * WANDERER_STEP;
        let y = s.y + DY[heading] * WANDERER_STEP;
        if (x < 0 || x > SIDE || y < 0 || y > SIDE) {
          heading = (heading + 4) & 7;
          x = clamp(x);
          y = clamp(y);
        }
        e.state = { x, y, heading };
      }
    },
  });
}
