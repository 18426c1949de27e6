/**
 * The demo's projectile: a zap also launches a bolt from the avatar toward the aim, 12 m/s for
 * 1.5 s. It is a predicted spawn: the shooter's page shows it the tick it is fired (before the
 * server has it) and it becomes the server's bolt when that arrives. Browser-safe.
 */
import { t } from '../src/index.js';

/** A bolt's speed, 1/64 m a tick (12 m/s at 30 ticks a second). */
export const BOLT_SPEED = 26;
/** Ticks a bolt flies (1.5 s). */
export const BOLT_TICKS = 45;
/** Ticks between two bolts of one avatar. */
export const BOLT_COOLDOWN = 10;

const coordinate = t.float(0, 64, 1 / 64);
export const boltState = t.object({
  x: coordinate,
  y: coordinate,
  vx: t.int(-BOLT_SPEED, BOLT_SPEED),
  vy: t.int(-BOLT_SPEED, BOLT_SPEED),
  ttl: t.uint8(),
});
export type Bolt = { x: number; y: number; vx: number; vy: number; ttl: number };

/** A bolt's next tick: on along its velocity (1/64 m units, exact on the grid), gone at the arena's edge or its end. */
export function moveBolt(b: Bolt): Bolt | null {
  const x = b.x + b.vx / 64;
  const y = b.y + b.vy / 64;
  if (b.ttl === 0 || x < 0 || x > 64 || y < 0 || y > 64) return null;
  return { ...b, x, y, ttl: b.ttl - 1 };
}

/** The bolt a zap at (aimX, aimY) launches from (x, y), or null when the aim is on the avatar. */
export function boltFrom(x: number, y: number, aimX: number, aimY: number): Bolt | null {
  const dx = aimX - x;
  const dy = aimY - y;
  const length = Math.hypot(dx, dy);
  if (!(length > 0.01)) return null;
  // Rounded to whole 1/64 m per tick: both ends compute it alike (hypot and / are exact IEEE operations on the same inputs).
  return {
    x,
    y,
    vx: Math.round((dx / length) * BOLT_SPEED),
    vy: Math.round((dy / length) * BOLT_SPEED),
    ttl: BOLT_TICKS,
  };
}
