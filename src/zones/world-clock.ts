/**
 * A zoned world's shared clock: every process counts ticks from the world's origin time, so the
 * zones and gateways of one world, on any machine, agree on which tick is due. Browser-safe.
 */

/** World ticks since `originMs` at `nowMs` (milliseconds), fractional: floor it for the tick due. */
export function ticksSinceOrigin(nowMs: number, originMs: number, tickRate: number): number {
  return ((nowMs - originMs) * tickRate) / 1000;
}
