/**
 * The argument checks both directories make, so that misuse throws the same RangeError from either.
 */

export function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive finite number, got ${ttlMs}`);
}

/** A room's maxClients: a whole number of seats (NaN would make every reservation fit). */
export function checkMaxClients(maxClients: number): void {
  if (!Number.isSafeInteger(maxClients) || maxClients < 0)
    throw new RangeError(`maxClients must be a non-negative integer, got ${maxClients}`);
}
