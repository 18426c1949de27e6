/**
 * The zones bench's game: a 1 km square of wanderers (moved by the rules every tick) and walkers
 * (the players, moved by their inputs). Shared by the rules module the zone threads import
 * (./zone-bench-rules.ts) and the bot process (./zone-bots.ts).
 */
import { defineGame } from '../../src/game/define-game.js';
import { t } from '../../src/schema/schema.js';

/** The world's side, metres. */
export const SIDE = 1000;
/** How far a player sees, metres: also what makes an entity a border entity (this near another zone). */
export const INTEREST_RADIUS = 50;
/** Metres a walker goes per tick of input (20 m/s at 20 Hz: a bot crosses a zone in 25 s or less). */
export const WALKER_STEP = 1;
const coordinate = t.float(0, SIDE, 1 / 16);
export const clamp = (v: number) => Math.min(SIDE, Math.max(0, v));

export const zoneBenchGame = defineGame({
  name: 'zones-bench',
  tickRate: 20,
  // 10,000 wanderers, the players and room for the gateway's mirror of every zone.
  maxEntities: 16384,
  entities: {
    walker: {
      state: t.object({ x: coordinate, y: coordinate }),
      position: (s) => [s.x, s.y],
    },
    wanderer: {
      state: t.object({ x: coordinate, y: coordinate, heading: t.int(0, 7) }),
      position: (s) => [s.x, s.y],
    },
  },
  player: 'walker',
  input: t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1) }),
  step: (s, i) => ({ x: clamp(s.x + i.dx * WALKER_STEP), y: clamp(s.y + i.dy * WALKER_STEP) }),
});
