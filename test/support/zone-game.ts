/**
 * A small zoned game for the zone tests: walkers (the players' entities, moved by their inputs
 * with `step`) and wanderers (moved by the rules each tick, deterministically from their own state
 * and data), on a 100 m square. Zone 0 spawns every wanderer once, all over the map, so a world of
 * any number of zones holds the same entities with the same world ids; they then move to their
 * zones by handoff. Each input carries its tick, so a player's data shows any input lost, taken
 * twice or taken out of order (zone-input-log.ts). An idle input (dx = dy = 0) leaves the walker as
 * it is, and the rules can hold the wanderers still (`moving`), so a world can go quiet.
 */
import { defineGame } from '../../src/game/define-game.js';
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { logInput } from './zone-input-log.js';

export const SIDE = 100;
const coordinate = t.float(0, SIDE, 1 / 64);
const clamp = (v: number) => Math.min(SIDE, Math.max(0, v));

export const zoneGame = defineGame({
  name: 'zone-walkers',
  tickRate: 30,
  maxEntities: 4096,
  entities: {
    walker: {
      state: t.object({ x: coordinate, y: coordinate, steps: t.uint16() }),
      position: (s) => [s.x, s.y],
    },
    wanderer: {
      state: t.object({ x: coordinate, y: coordinate, heading: t.int(0, 7) }),
      position: (s) => [s.x, s.y],
    },
  },
  player: 'walker',
  input: t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1), tick: t.uint32() }),
  // An idle input changes nothing: a world whose players send only those goes quiet.
  step: (s, i) =>
    i.dx === 0 && i.dy === 0
      ? s
      : { x: clamp(s.x + i.dx * 0.5), y: clamp(s.y + i.dy * 0.5), steps: (s.steps + 1) & 0xffff },
  events: { turned: t.object({ heading: t.int(0, 7) }) },
});

export type ZoneGameInput = { dx: number; dy: number; tick: number };

const always = () => true;
const DX = [1, 1, 0, -1, -1, -1, 0, 1];
const DY = [0, 1, 1, 1, 0, -1, -1, -1];

/**
 * The rules as zone `zone` runs them; `wanderers` spawned by zone 0 at the first tick, from `seed`.
 * `moving(tick)` says whether the wanderers move at a tick (default always): a function of the
 * world's tick, so every zone holds them still from the same tick.
 */
export function zoneRules(
  zone: number,
  seed: number,
  wanderers: number,
  moving: (tick: number) => boolean = always,
) {
  return zoneGame.rules({
    onJoin(_game, player) {
      player.spawn({ x: SIDE / 2, y: SIDE / 2, steps: 0 });
    },
    onInput(game, player, input) {
      logInput(player.data, input.tick, game.tick);
      const data = player.data as { last?: number; taken?: number; wrong?: number };
      // Each input once, in tick order: anything else (a repeat when one was lost) is counted wrong.
      if (data.last !== undefined && input.tick !== data.last + 1) data.wrong = (data.wrong ?? 0) + 1;
      data.last = input.tick;
      data.taken = (data.taken ?? 0) + 1;
    },
    onTick(game) {
      if (zone === 0 && game.data.spawned !== true) {
        game.data.spawned = true;
        const random = prng(seed);
        for (let i = 0; i < wanderers; i++) {
          const e = game.spawn('wanderer', {
            x: random() * SIDE,
            y: random() * SIDE,
            heading: Math.floor(random() * 8),
          });
          e.data.moves = 0;
        }
      }
      if (!moving(game.tick)) return;
      for (const e of game.entities) {
        if (e.type !== 'wanderer') continue;
        const s = e.state;
        const moves = Number(e.data.moves ?? 0) + 1;
        e.data.moves = moves;
        let heading = s.heading;
        // Turn every 45 ticks of its own, or at a wall: its path depends on itself alone.
        if (moves % 45 === 0) heading = (heading + 3) & 7;
        let x = s.x + DX[heading] * 0.4;
        let y = s.y + DY[heading] * 0.4;
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

/** A bot's input for `tick`: a seeded walk that changes direction now and then. */
export function botInput(seed: number, playerId: number, tick: number): ZoneGameInput {
  const random = prng(
    (seed ^ Math.imul(playerId + 1, 0x9e3779b1) ^ Math.imul(Math.floor(tick / 20) + 1, 0x85ebca6b)) >>> 0,
  );
  return { dx: Math.floor(random() * 3) - 1, dy: Math.floor(random() * 3) - 1, tick };
}
