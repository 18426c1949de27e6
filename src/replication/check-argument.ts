/**
 * Argument checks for the replication layer's public calls: misuse (NaN coordinates, a radius
 * that is not positive) fails loudly at the call with a RangeError naming the argument. The fast
 * paths are one or two comparisons so they can sit on per-entity calls such as a move.
 */

/** A finite number (a coordinate). `x - x` is 0 for finite numbers and NaN for NaN and ±Infinity. */
export function checkFinite(where: string, argument: string, value: number): number {
  if (value - value === 0) return value;
  throw new RangeError(`${where}: ${argument} must be a finite number, got ${value}`);
}

/** A finite number greater than 0 (a radius, a cell size, a scale). */
export function checkPositive(where: string, argument: string, value: number): number {
  if (value > 0 && value - value === 0) return value;
  throw new RangeError(`${where}: ${argument} must be a finite number > 0, got ${value}`);
}

/** A finite number not below 0 (a base priority, a byte count). */
export function checkNonNegative(where: string, argument: string, value: number): number {
  if (value >= 0 && value - value === 0) return value;
  throw new RangeError(`${where}: ${argument} must be a finite number >= 0, got ${value}`);
}
