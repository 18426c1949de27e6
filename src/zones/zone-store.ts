/**
 * The zone store: the durable, fenced record a zoned world keeps outside its zone processes —
 * who runs each zone (a lease with an epoch), which zone owns each entity (with its handoff
 * sequence), each zone's inbox of handed-off entities, and each zone's last snapshot.
 * Two implementations are planned: EmbeddedZoneStore (plain maps, one thread, the default) and a
 * Redis one (one Lua script per method). Both must pass test/support/zone-store-contract.ts.
 *
 * Every method is async (the Redis store is) and atomic: it checks and writes as one step, so a
 * handoff moves an entity's owner exactly once or not at all. Every write is fenced: it names the
 * caller's zone epoch, and a write from an epoch that is not the zone's live lease is refused as
 * 'stale' (the caller has lost its zone and must stop, or its lease lapsed: renewLease tells
 * which). Payloads are opaque bytes here; their encodings belong to the layer's messages. What a
 * call returns is the caller's own copy, and so is what the store keeps of what it was given.
 *
 * Zones are zone indexes 0..255 (a world id carries its allocating zone in its top 8 bits). An
 * entity the store has no record of is owned by that allocating zone at handoff sequence 0, so
 * spawning needs no store write; only handoffs add records.
 */

/** Who runs a zone, and the epoch every write from it must name. */
export interface ZoneLease {
  zone: number;
  processId: string;
  /** Bumped on every acquire; never reused for the zone, so an old holder's writes stay refused. */
  epoch: number;
  /** When the lease lapses unless renewed, store time in milliseconds. */
  expiresAtMs: number;
}

/** One entity's authority moving from zone `from` to zone `to`. */
export interface HandoffCommit {
  /** The entity's 32-bit world id. */
  worldId: number;
  from: number;
  /** The source zone's epoch: the commit is fenced on it. */
  fromEpoch: number;
  to: number;
  /** The entity's handoff sequence after this handoff: its current one plus 1. */
  hseq: number;
  /** The first tick the destination simulates the entity. */
  tick: number;
  /** The entity's state, pending inputs and the like (opaque here). */
  payload: Uint8Array;
}

export type CommitResult =
  /** The owner is `to` now, and the commit is in `to`'s inbox. */
  | 'ok'
  /** `fromEpoch` is not `from`'s live lease: nothing changed; the caller renews, and stops on 'stale'. */
  | 'stale'
  /** This exact handoff (same world id, hseq, from and to) was already committed: nothing changed. */
  | 'duplicate'
  /** `from` does not own the entity at `hseq - 1`: nothing changed; the store is the truth. */
  | 'not-owner'
  /** `to`'s inbox holds its limit of unacked entries: nothing changed; retry on a later tick. */
  | 'inbox-full'
  /** The owner table holds its limit of records: nothing changed. */
  | 'owners-full';

/** One handed-off entity waiting in a zone's inbox. */
export interface InboxEntry {
  /** Its place in the inbox: increasing, never reused for the zone, always > 0. */
  cursor: number;
  worldId: number;
  from: number;
  hseq: number;
  tick: number;
  payload: Uint8Array;
}

/**
 * Which inbox entries to read, as a consumer group whose consumer is the zone itself (so a new
 * process for the zone sees what a dead one read and never acked):
 * - 'new': entries never read; reading them makes them pending.
 * - 'pending': entries read and not yet acked, with cursors above `after`, oldest first.
 */
export type InboxRead = { from: 'new' } | { from: 'pending'; after: number };

export type InboxResult = { status: 'ok'; entries: InboxEntry[] } | { status: 'stale' };

export interface ZoneSnapshot {
  zone: number;
  epoch: number;
  tick: number;
  /** Every inbox entry up to this cursor was applied before the snapshot was taken. */
  inboxCursor: number;
  bytes: Uint8Array;
}

/** Who owns an entity, and how many times it was handed off. */
export interface EntityOwner {
  zone: number;
  hseq: number;
}

export type LeaseResult = 'ok' | 'stale';

export interface ZoneStore {
  /**
   * Takes zone's lease for `processId` with a new epoch, or returns null while another lease is
   * live. `force` takes it anyway (a supervisor that saw the holder exit): the old epoch is fenced.
   */
  acquireLease(zone: number, processId: string, ttlMs: number, force?: boolean): Promise<ZoneLease | null>;
  /**
   * Extends the lease by `ttlMs` from now; 'stale' when `epoch` is not the zone's latest lease (an
   * acquire since, forced or after a lapse, fenced it; or it was released). A lease that lapsed
   * with no acquire since is renewed: a holder cut off from the store longer than its TTL (a store
   * outage) keeps its zone unless another process took it meanwhile. While lapsed, every other
   * write from its epoch is 'stale' (the holder renews first).
   */
  renewLease(zone: number, epoch: number, ttlMs: number): Promise<LeaseResult>;
  /** Gives up the lease at once (a drain); 'stale' when `epoch` is not the live lease. */
  releaseLease(zone: number, epoch: number): Promise<LeaseResult>;
  /** The zone's live lease, or null. */
  lease(zone: number): Promise<ZoneLease | null>;
  /** Moves an entity's owner and appends the commit to the destination's inbox, atomically. */
  commitHandoff(commit: HandoffCommit): Promise<CommitResult>;
  /** Up to `max` inbox entries of the zone (fenced: only its live lease reads it). */
  readInbox(zone: number, epoch: number, read: InboxRead, max: number): Promise<InboxResult>;
  /**
   * Replaces the zone's snapshot and acks its pending inbox entries up to `inboxCursor` (entries
   * never read are never acked, so a cursor too far cannot lose them), atomically.
   */
  writeSnapshot(
    zone: number,
    epoch: number,
    tick: number,
    inboxCursor: number,
    bytes: Uint8Array,
  ): Promise<LeaseResult>;
  readSnapshot(zone: number): Promise<ZoneSnapshot | null>;
  /** The owner of each world id, in the order given. */
  owners(worldIds: readonly number[]): Promise<EntityOwner[]>;
  close(): Promise<void>;
}

/** Bounds on what callers can make a store hold or do per call. */
export interface ZoneStoreLimits {
  /** The largest handoff payload, bytes. */
  maxPayloadBytes: number;
  /** The largest snapshot, bytes. */
  maxSnapshotBytes: number;
  /** Unacked entries one zone's inbox holds at most; commits beyond it are 'inbox-full'. */
  maxInboxEntries: number;
  /** Entities with an owner record at most; handoffs of new ones beyond it are 'owners-full'. */
  maxOwnerRecords: number;
  /** The most entries one readInbox returns, and the most world ids one owners call takes. */
  maxBatch: number;
  /** The longest lease, milliseconds. */
  maxLeaseTtlMs: number;
  /** The longest process id, characters. */
  maxProcessIdLength: number;
}

export const DEFAULT_ZONE_STORE_LIMITS: Readonly<ZoneStoreLimits> = Object.freeze({
  maxPayloadBytes: 64 * 1024,
  maxSnapshotBytes: 8 * 1024 * 1024,
  maxInboxEntries: 4096,
  maxOwnerRecords: 1 << 20,
  maxBatch: 1024,
  maxLeaseTtlMs: 60_000,
  maxProcessIdLength: 128,
});
