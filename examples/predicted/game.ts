/**
 * docs/game.md's predicted spawns and neighbours, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts): a bolt its shooter's client shows the tick it is fired,
 * and a crate predicted near the player.
 */
import { defineGame, t } from 'ghostwire';

const coord = t.float(-64, 64, 1 / 64);
const crateState = t.object({ x: coord, y: coord, vx: t.int(-8, 8) });
/** A crate slides on along x (1/64 m a tick per unit of vx) and stops at the walls. */
const slide = (c: { x: number; y: number; vx: number }) =>
  Math.abs(c.x + c.vx / 64) > 60 ? { ...c, vx: 0 } : { ...c, x: c.x + c.vx / 64 };

// #region docs
const bolt = t.object({ x: coord, y: coord, vx: t.int(-32, 32), ttl: t.uint8() });
export const range = defineGame({
  name: 'range',
  entities: {
    avatar: { state: t.object({ x: coord, y: coord, cooldown: t.uint8() }), position: (a) => [a.x, a.y] },
    // Its state a tick later without input; null: it is destroyed. The server runs it every tick.
    bolt: {
      state: bolt,
      position: (b) => [b.x, b.y],
      move: (b) => (b.ttl === 0 ? null : { ...b, x: b.x + b.vx / 64, ttl: b.ttl - 1 }),
      predict: 'spawner', // the shooter's client predicts the bolts it fires
    },
    crate: { state: crateState, position: (c) => [c.x, c.y], move: slide, predict: { near: 6 } },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1), fire: t.bool() }),
  step: (a, i) => ({
    ...a,
    x: Math.max(-60, Math.min(60, a.x + i.dx / 4)),
    cooldown: i.fire && a.cooldown === 0 ? 8 : Math.max(0, a.cooldown - 1),
  }),
  // Both ends run it after `step`: the server creates these, the shooter's client shows them at once.
  spawns: (a, i) =>
    i.fire && a.cooldown === 8 ? [{ type: 'bolt', key: 0, state: { x: a.x, y: a.y, vx: 24, ttl: 45 } }] : [],
});
// The rules may veto a spawn (its client then removes the bolt it showed).
export const rangeRules = range.rules({
  onJoin: (_game, player) => void player.spawn({ x: 0, y: 0, cooldown: 0 }),
  allowSpawn: (_game, player) => player.data.ammo !== 0,
});
// A client: client.entities holds the bolt the frame it is fired, with `predicted: true` and a
// negative id; it becomes the server's bolt (its id) when that arrives, or goes if refused. The
// crate is predicted while within 6 m of the player's avatar, interpolated beyond 1.15 × 6 m.
// #endregion
