/**
 * Argument checks shared by ZoneStore implementations: misuse throws at the call with what was
 * wrong, before the store reads or writes anything (so a refused call changed nothing).
 */
import { MAX_ZONES } from './zone-map-description.js';
import type { HandoffCommit, InboxRead, ZoneStoreLimits } from './zone-store.js';

export function checkZone(zone: number, what = 'zone'): void {
  if (!Number.isInteger(zone) || zone < 0 || zone >= MAX_ZONES) {
    throw new RangeError(`${what} must be an integer in 0..${MAX_ZONES - 1}, got ${zone}`);
  }
}

/** Epochs, sequences and cursors: integers from `min` up, exact as doubles. */
export function checkCount(value: number, what: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${what} must be a safe integer >= ${min}, got ${value}`);
  }
}

export function checkWorldId(worldId: number): void {
  if (!Number.isInteger(worldId) || worldId < 0 || worldId > 0xffff_ffff) {
    throw new RangeError(`worldId must be a uint32, got ${worldId}`);
  }
}

export function checkBytes(bytes: Uint8Array, what: string, maxBytes: number): void {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (bytes.byteLength > maxBytes) {
    throw new RangeError(`${what} is ${bytes.byteLength} bytes, the limit is ${maxBytes}`);
  }
}

export function checkLeaseRequest(processId: string, ttlMs: number, limits: ZoneStoreLimits): void {
  if (typeof processId !== 'string' || processId.length === 0) {
    throw new TypeError('processId must be a non-empty string');
  }
  if (processId.length > limits.maxProcessIdLength) {
    throw new RangeError(`processId is longer than ${limits.maxProcessIdLength} characters`);
  }
  checkTtl(ttlMs, limits);
}

export function checkTtl(ttlMs: number, limits: ZoneStoreLimits): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > limits.maxLeaseTtlMs) {
    throw new RangeError(`ttlMs must be an integer in 1..${limits.maxLeaseTtlMs}, got ${ttlMs}`);
  }
}

export function checkCommit(commit: HandoffCommit, limits: ZoneStoreLimits): void {
  checkWorldId(commit.worldId);
  checkZone(commit.from, 'from');
  checkZone(commit.to, 'to');
  if (commit.from === commit.to) throw new RangeError(`a handoff must change zone, got ${commit.from} twice`);
  checkCount(commit.fromEpoch, 'fromEpoch', 1);
  checkCount(commit.hseq, 'hseq', 1);
  checkCount(commit.tick, 'tick', 0);
  checkBytes(commit.payload, 'payload', limits.maxPayloadBytes);
}

export function checkInboxRead(read: InboxRead, max: number, limits: ZoneStoreLimits): void {
  if (read.from === 'pending') checkCount(read.after, 'after', 0);
  else if (read.from !== 'new') throw new TypeError(`read.from must be 'new' or 'pending'`);
  if (!Number.isInteger(max) || max < 1 || max > limits.maxBatch) {
    throw new RangeError(`max must be an integer in 1..${limits.maxBatch}, got ${max}`);
  }
}

export function checkWorldIds(worldIds: readonly number[], limits: ZoneStoreLimits): void {
  if (worldIds.length > limits.maxBatch) {
    throw new RangeError(`owners takes at most ${limits.maxBatch} world ids, got ${worldIds.length}`);
  }
  for (const worldId of worldIds) checkWorldId(worldId);
}

export function checkLimits(limits: ZoneStoreLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`limits.${name} must be a positive safe integer, got ${value}`);
    }
  }
}

/** writeSnapshot's arguments. */
export function checkSnapshotWrite(
  zone: number,
  epoch: number,
  tick: number,
  inboxCursor: number,
  bytes: Uint8Array,
  limits: ZoneStoreLimits,
): void {
  checkZone(zone);
  checkCount(epoch, 'epoch', 1);
  checkCount(tick, 'tick', 0);
  checkCount(inboxCursor, 'inboxCursor', 0);
  checkBytes(bytes, 'snapshot', limits.maxSnapshotBytes);
}
