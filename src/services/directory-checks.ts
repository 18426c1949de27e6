/**
 * The argument checks both directories make, so that misuse throws the same RangeError from either.
 */
import { MAX_SESSION_PEERS } from '../lockstep/links/peer-token.js';

export function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive finite number, got ${ttlMs}`);
}

/** Seat limits: whole numbers of seats, at least one (0 would refuse every reservation). */
export function checkSeatLimits(limits: { perRoom: number; perUser: number } | undefined): void {
  if (limits === undefined) return;
  for (const [name, value] of [
    ['perRoom', limits.perRoom],
    ['perUser', limits.perUser],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`seat limit ${name} must be an integer >= 1, got ${value}`);
}

/** A room's maxClients: a whole number of seats (NaN would make every reservation fit). */
export function checkMaxClients(maxClients: number): void {
  if (!Number.isSafeInteger(maxClients) || maxClients < 0)
    throw new RangeError(`maxClients must be a non-negative integer, got ${maxClients}`);
}

/** A seat given back by its process: a held or reserved seat lapses at a finite time. */
export function checkRestoredSeat(seat: { state: string; expiresAt: number }): void {
  if (seat.state !== 'taken' && seat.state !== 'held' && seat.state !== 'reserved')
    throw new RangeError(`seat state must be taken, held or reserved, got ${seat.state}`);
  if (seat.state !== 'taken' && !Number.isFinite(seat.expiresAt))
    throw new RangeError(`a ${seat.state} seat lapses at a finite time, got expiresAt ${seat.expiresAt}`);
}

const PROCESS_STATES: ReadonlySet<string> = new Set(['starting', 'ready', 'draining']);

/**
 * A process's lifecycle state (another word would never match a query for 'ready') and, when it
 * registers, a whole number of rooms it takes.
 */
export function checkProcessState(state: string, maxRooms = 0): void {
  if (!PROCESS_STATES.has(state))
    throw new RangeError(`state must be starting, ready or draining, got ${String(state)}`);
  if (!Number.isSafeInteger(maxRooms) || maxRooms < 0)
    throw new RangeError(`maxRooms must be a non-negative integer, got ${maxRooms}`);
}

/** A peer session's size and ids: slots are one byte on the wire, ids key the store. */
export function checkPeerSession(sessionId: string, userId: string, maxPeers = 2): void {
  if (typeof sessionId !== 'string' || sessionId.length < 1 || sessionId.length > 64)
    throw new RangeError('sessionId must be a string of 1..64 characters');
  if (typeof userId !== 'string' || userId.length < 1 || userId.length > 128)
    throw new RangeError('userId must be a string of 1..128 characters');
  if (!Number.isInteger(maxPeers) || maxPeers < 2 || maxPeers > MAX_SESSION_PEERS)
    throw new RangeError(`maxPeers must be an integer in [2, ${MAX_SESSION_PEERS}], got ${maxPeers}`);
}

/** A per-user cap on sessions: a whole number >= 1, or Infinity for none. */
export function checkMaxPerUser(maxPerUser: number): void {
  if (maxPerUser !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(maxPerUser) && maxPerUser >= 1))
    throw new RangeError(`maxPerUser must be an integer >= 1 (or Infinity), got ${maxPerUser}`);
}

/** How long a peer session nobody holds a slot in stays joinable unless told otherwise, ms. */
export const DEFAULT_EMPTY_PEER_SESSION_TTL_MS = 60_000;
