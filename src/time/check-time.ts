/**
 * The stack's one rule for time. Every `update(now)` (and every call that takes `now`) requires a
 * finite number of seconds that is not earlier than the last one it was given: NaN, ±Infinity or a
 * time going backwards is a caller bug, so it throws a RangeError at the call instead of leaving a
 * connection that never times out, reporting every packet lost, or measuring a negative RTT. Equal
 * times are fine (several calls in one tick). Use a monotonic clock (`performance.now() / 1000`).
 */
export function checkTime(where: string, now: number, last: number): number {
  // The fast path is three comparisons, no call: NaN fails `>=`; ±Infinity are refused by identity.
  if (now >= last && now !== Number.POSITIVE_INFINITY && now !== Number.NEGATIVE_INFINITY) return now;
  if (!Number.isFinite(now))
    throw new RangeError(`${where}: now must be a finite number of seconds, got ${now}`);
  throw new RangeError(`${where}: time went backwards (${now} < ${last}); pass a monotonic clock`);
}

/** The `last` to start from before any time was given: any finite time is accepted first. */
export const NO_TIME_YET = Number.NEGATIVE_INFINITY;
