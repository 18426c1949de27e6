/**
 * The demo game, declared once: the server (demo/rules.ts), its bots and the page import it. An
 * arena of wandering orbs and an avatar per player, moved only by its inputs (predicted on its
 * page); a zap at an orb scores when it hits the orb as the player saw it (lag compensation), and
 * launches a bolt, a predicted spawn (demo/bolt.ts).
 * Browser-safe.
 */
import { defineGame, type Infer, t } from '../src/index.js';
import { BOLT_COOLDOWN, boltFrom, boltState, moveBolt } from './bolt.js';

/** The arena is ARENA metres square. */
export const ARENA = 64;
/** Orbs wandering at once. */
export const ORBS = 60;
/** Metres an avatar walks a tick each way held (7.5 m/s at 30 ticks a second; on the 1/64 m grid, so prediction is exact). */
export const SPEED = 1 / 4;
/** An orb's hit radius, metres. */
export const ORB_RADIUS = 0.5;

const coordinate = t.float(0, ARENA, 1 / 64);
const clamp = (v: number) => Math.min(ARENA, Math.max(0, v));

export const arena = defineGame({
  name: 'ghostwire-demo',
  tickRate: 30,
  maxEntities: 256,
  entities: {
    avatar: {
      state: t.object({ x: coordinate, y: coordinate, score: t.uint16(), cooldown: t.uint8() }),
      priority: 4,
      position: (a) => [a.x, a.y],
    },
    orb: {
      state: t.object({ x: coordinate, y: coordinate, glow: t.int(0, 15) }),
      position: (orb) => [orb.x, orb.y],
      hitbox: (orb) => ({ type: 'circle', x: orb.x, y: orb.y, radius: ORB_RADIUS }),
    },
    bolt: { state: boltState, position: (b) => [b.x, b.y], move: moveBolt, predict: 'spawner' },
  },
  player: 'avatar',
  /** A step each way (-1, 0, 1), and a zap aimed at a place (the orb shown there). */
  input: t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1), zap: t.bool(), aimX: coordinate, aimY: coordinate }),
  step: (a, input) => ({
    ...a,
    x: clamp(a.x + input.dx * SPEED),
    y: clamp(a.y + input.dy * SPEED),
    cooldown: input.zap && a.cooldown === 0 ? BOLT_COOLDOWN : Math.max(0, a.cooldown - 1),
  }),
  /** A zap launches a bolt on the tick its cooldown starts (the step just set it). */
  spawns: (a, input) => {
    const bolt =
      input.zap && a.cooldown === BOLT_COOLDOWN ? boltFrom(a.x, a.y, input.aimX, input.aimY) : null;
    return bolt === null ? [] : [{ type: 'bolt', key: 0, state: bolt }];
  },
  /** Who zapped which orb: entity references, the ids of the page's own entities (zoned or not). */
  events: { zapped: t.object({ by: t.entity(), orb: t.entity() }) },
});

export type ArenaInput = Infer<typeof arena.input>;
