/**
 * The zone store kept in plain maps on one thread: the default for a world whose zones all run on
 * one machine (zone workers reach it through the main thread). Each call checks and writes to
 * completion before it returns, so it is as atomic as a Lua script. It reads no clock: `nowMs` is
 * the clock, passed in.
 */

import { creatorZone } from './world-id-allocator.js';
import {
  type CommitResult,
  DEFAULT_ZONE_STORE_LIMITS,
  type EntityOwner,
  type HandoffCommit,
  type InboxEntry,
  type InboxRead,
  type InboxResult,
  type LeaseResult,
  type ZoneLease,
  type ZoneSnapshot,
  type ZoneStore,
  type ZoneStoreLimits,
} from './zone-store.js';
import {
  checkCommit,
  checkCount,
  checkInboxRead,
  checkLeaseRequest,
  checkLimits,
  checkSnapshotWrite,
  checkTtl,
  checkWorldIds,
  checkZone,
} from './zone-store-checks.js';

export interface EmbeddedZoneStoreOptions {
  /** The store's clock, milliseconds (a tick clock or Date.now: the store never reads one). */
  nowMs: () => number;
  limits?: Partial<ZoneStoreLimits>;
}

interface OwnerRecord extends EntityOwner {
  /** The zone it was handed from at `hseq`, to tell a retried commit from a conflicting one. */
  from: number;
}

/** One zone's inbox: entries in cursor order; the first `read` of them were read (are pending). */
interface Inbox {
  entries: InboxEntry[];
  read: number;
  lastCursor: number;
}

export class EmbeddedZoneStore implements ZoneStore {
  private readonly clock: () => number;
  private lastNowMs = Number.NEGATIVE_INFINITY;
  private readonly limits: ZoneStoreLimits;
  private readonly lastEpochs = new Map<number, number>();
  private readonly leases = new Map<number, ZoneLease>();
  private readonly ownerRecords = new Map<number, OwnerRecord>();
  private readonly inboxes = new Map<number, Inbox>();
  private readonly snapshots = new Map<number, ZoneSnapshot>();
  private closed = false;

  constructor(options: EmbeddedZoneStoreOptions) {
    if (typeof options?.nowMs !== 'function') throw new TypeError('nowMs must be a function');
    this.clock = options.nowMs;
    this.limits = { ...DEFAULT_ZONE_STORE_LIMITS, ...options.limits };
    checkLimits(this.limits);
  }

  async acquireLease(
    zone: number,
    processId: string,
    ttlMs: number,
    force = false,
  ): Promise<ZoneLease | null> {
    this.checkOpen();
    checkZone(zone);
    checkLeaseRequest(processId, ttlMs, this.limits);
    const now = this.now();
    if (!force && this.liveLease(zone, now) !== null) return null;
    const epoch = (this.lastEpochs.get(zone) ?? 0) + 1;
    this.lastEpochs.set(zone, epoch);
    const lease = { zone, processId, epoch, expiresAtMs: now + ttlMs };
    this.leases.set(zone, lease);
    return { ...lease };
  }

  async renewLease(zone: number, epoch: number, ttlMs: number): Promise<LeaseResult> {
    this.checkOpen();
    checkZone(zone);
    checkCount(epoch, 'epoch', 1);
    checkTtl(ttlMs, this.limits);
    const now = this.now();
    // A lapsed lease is renewed while no acquire followed it (that would have replaced it).
    const lease = this.leases.get(zone);
    if (lease === undefined || lease.epoch !== epoch) return 'stale';
    lease.expiresAtMs = now + ttlMs;
    return 'ok';
  }

  async releaseLease(zone: number, epoch: number): Promise<LeaseResult> {
    this.checkOpen();
    checkZone(zone);
    checkCount(epoch, 'epoch', 1);
    if (!this.isLive(zone, epoch)) return 'stale';
    this.leases.delete(zone);
    return 'ok';
  }

  async lease(zone: number): Promise<ZoneLease | null> {
    this.checkOpen();
    checkZone(zone);
    const lease = this.liveLease(zone, this.now());
    return lease === null ? null : { ...lease };
  }

  async commitHandoff(commit: HandoffCommit): Promise<CommitResult> {
    this.checkOpen();
    checkCommit(commit, this.limits);
    if (!this.isLive(commit.from, commit.fromEpoch)) return 'stale';
    const record = this.ownerRecords.get(commit.worldId);
    const owner = record ?? { zone: creatorZone(commit.worldId), hseq: 0 };
    if (
      record !== undefined &&
      record.hseq === commit.hseq &&
      record.zone === commit.to &&
      record.from === commit.from
    ) {
      return 'duplicate';
    }
    if (owner.zone !== commit.from || owner.hseq + 1 !== commit.hseq) return 'not-owner';
    const inbox = this.inbox(commit.to);
    if (inbox.entries.length >= this.limits.maxInboxEntries) return 'inbox-full';
    if (record === undefined && this.ownerRecords.size >= this.limits.maxOwnerRecords) return 'owners-full';
    this.ownerRecords.set(commit.worldId, { zone: commit.to, hseq: commit.hseq, from: commit.from });
    inbox.lastCursor += 1;
    inbox.entries.push({
      cursor: inbox.lastCursor,
      worldId: commit.worldId,
      from: commit.from,
      hseq: commit.hseq,
      tick: commit.tick,
      payload: new Uint8Array(commit.payload),
    });
    return 'ok';
  }

  async readInbox(zone: number, epoch: number, read: InboxRead, max: number): Promise<InboxResult> {
    this.checkOpen();
    checkZone(zone);
    checkCount(epoch, 'epoch', 1);
    checkInboxRead(read, max, this.limits);
    if (!this.isLive(zone, epoch)) return { status: 'stale' };
    const inbox = this.inbox(zone);
    let picked: InboxEntry[];
    if (read.from === 'new') {
      picked = inbox.entries.slice(inbox.read, inbox.read + max);
      inbox.read += picked.length;
    } else {
      const first = firstAbove(inbox.entries, inbox.read, read.after);
      picked = inbox.entries.slice(first, Math.min(inbox.read, first + max));
    }
    return {
      status: 'ok',
      entries: picked.map((entry) => ({ ...entry, payload: new Uint8Array(entry.payload) })),
    };
  }

  async writeSnapshot(
    zone: number,
    epoch: number,
    tick: number,
    inboxCursor: number,
    bytes: Uint8Array,
  ): Promise<LeaseResult> {
    this.checkOpen();
    checkSnapshotWrite(zone, epoch, tick, inboxCursor, bytes, this.limits);
    if (!this.isLive(zone, epoch)) return 'stale';
    this.snapshots.set(zone, { zone, epoch, tick, inboxCursor, bytes: new Uint8Array(bytes) });
    // Acks only what was read: an entry never read cannot have been applied to this snapshot.
    const inbox = this.inbox(zone);
    const acked = firstAbove(inbox.entries, inbox.read, inboxCursor);
    inbox.entries.splice(0, acked);
    inbox.read -= acked;
    return 'ok';
  }

  async readSnapshot(zone: number): Promise<ZoneSnapshot | null> {
    this.checkOpen();
    checkZone(zone);
    const snapshot = this.snapshots.get(zone);
    return snapshot === undefined ? null : { ...snapshot, bytes: new Uint8Array(snapshot.bytes) };
  }

  async owners(worldIds: readonly number[]): Promise<EntityOwner[]> {
    this.checkOpen();
    checkWorldIds(worldIds, this.limits);
    return worldIds.map((worldId) => {
      const record = this.ownerRecords.get(worldId);
      return record === undefined
        ? { zone: creatorZone(worldId), hseq: 0 }
        : { zone: record.zone, hseq: record.hseq };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The clock's time; one that goes backwards would bring lapsed leases back, so it throws. */
  private now(): number {
    const nowMs = this.clock();
    if (!Number.isFinite(nowMs)) throw new RangeError(`nowMs() returned ${nowMs}`);
    if (nowMs < this.lastNowMs) {
      throw new RangeError(`nowMs() went backwards, from ${this.lastNowMs} to ${nowMs}`);
    }
    this.lastNowMs = nowMs;
    return nowMs;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the zone store is closed');
  }

  private liveLease(zone: number, now: number): ZoneLease | null {
    const lease = this.leases.get(zone);
    return lease !== undefined && now < lease.expiresAtMs ? lease : null;
  }

  private isLive(zone: number, epoch: number): boolean {
    return this.liveLease(zone, this.now())?.epoch === epoch;
  }

  private inbox(zone: number): Inbox {
    let inbox = this.inboxes.get(zone);
    if (inbox === undefined) {
      inbox = { entries: [], read: 0, lastCursor: 0 };
      this.inboxes.set(zone, inbox);
    }
    return inbox;
  }
}

/** The index of the first of `entries[0..end)` whose cursor is above `cursor` (they are sorted). */
function firstAbove(entries: readonly InboxEntry[], end: number, cursor: number): number {
  let low = 0;
  let high = end;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (entries[middle].cursor <= cursor) low = middle + 1;
    else high = middle;
  }
  return low;
}
