/**
 * How a bot plays (the server's bots, and a page with `?bot=1`): it walks toward a point going round
 * a circle about the arena's centre, and zaps the orb it is shown nearest when one is within reach.
 * Browser-safe.
 */
import { ARENA, type ArenaInput } from './game.js';

type Place = { x: number; y: number };

/** Metres from its avatar within which a bot zaps the orb shown there. */
const REACH = 6;

/** The orb among `orbs` nearest `me` (null when there is none). */
export function nearest(me: Place, orbs: Iterable<Place>): Place | null {
  let best: Place | null = null;
  let distance = Number.POSITIVE_INFINITY;
  for (const orb of orbs) {
    const d = Math.hypot(orb.x - me.x, orb.y - me.y);
    if (d < distance) [best, distance] = [orb, d];
  }
  return best;
}

/** Bot `n`'s input at `seconds`: its own circle (radius 10–16 m, a lap in about 20 s), and a zap in reach. */
export function botInput(n: number, seconds: number, me: Place, orbs: Iterable<Place>): ArenaInput {
  const angle = n * 2.4 + seconds * 0.3;
  const radius = 10 + (n % 4) * 2;
  const goal = { x: ARENA / 2 + radius * Math.cos(angle), y: ARENA / 2 + radius * Math.sin(angle) };
  const axis = (d: number) => (Math.abs(d) < 0.3 ? 0 : Math.sign(d));
  const orb = nearest(me, orbs);
  const zap = orb !== null && Math.hypot(orb.x - me.x, orb.y - me.y) < REACH;
  return { dx: axis(goal.x - me.x), dy: axis(goal.y - me.y), ...aim(zap ? orb : null) };
}

/** The zap part of an input: aimed at `orb`, or none. */
export function aim(orb: Place | null): Pick<ArenaInput, 'zap' | 'aimX' | 'aimY'> {
  return orb === null ? { zap: false, aimX: 0, aimY: 0 } : { zap: true, aimX: orb.x, aimY: orb.y };
}
