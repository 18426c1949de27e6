/**
 * The zone store kept in a real redis-server, for a world whose zones run on several machines (or
 * outlive their processes). Each method is one Lua script (redis-zone-scripts.ts), so it checks its
 * fence and writes atomically for every process; lease time is the server's. Each zone's inbox is a
 * Redis stream read through a consumer group whose consumer is the zone itself, so a new process
 * for a zone reads the entries a dead one read and never acked; a snapshot acks them. Turn on
 * `appendonly yes` in production: with it leases, owners, inboxes and snapshots survive a restart.
 *
 * While Redis is unreachable or stalled a call rejects with a RedisUnavailableError (within about
 * `readyWaitMs`, or `commandTimeoutMs` for a stalled server). A write that timed out may still have
 * happened: retrying a commit then answers 'duplicate', and entries a lost 'new' read made pending
 * are read again as 'pending'.
 *
 * Keys (P = keyPrefix, 'gw:zones:' by default; one redis-server, not Redis Cluster):
 *   P zone:<z>:lease         hash    processId, epoch, expiresAt (server ms); gone once released
 *   P zone:<z>:epoch         string  the zone's last epoch (never reset, so epochs are never reused)
 *   P zone:<z>:inbox         stream  entries "<cursor>-0": w worldId, f from, h hseq, t tick, p payload;
 *                                    group 'zone', consumer "<z>"; acked entries are deleted
 *   P zone:<z>:inbox-cursor  string  the zone's last inbox cursor
 *   P zone:<z>:snapshot      hash    epoch, tick, cursor, bytes
 *   P owners                 hash    worldId → "zone:hseq:from" of every entity handed off at least once
 *   P world                  hash    origin, fingerprint: the world the prefix holds (the first claim)
 *   P gateway:<g>            hash    processId, epoch, expiresAt: who serves players as gateway g
 *   P gateway-epoch          string  the last gateway lease's epoch
 */
import type { Redis } from 'ioredis';
import type { GatewayLease, GatewayLeases } from './gateway-lease-keeper.js';
import { RedisZoneConnection, type RedisZoneConnectionOptions } from './redis-zone-connection.js';
import { ZONE_SCRIPTS, type ZoneScriptName, zoneScriptSource } from './redis-zone-scripts.js';
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

export interface RedisZoneStoreOptions extends RedisZoneConnectionOptions {
  limits?: Partial<ZoneStoreLimits>;
  /**
   * Tests only: added to the server's clock wherever a script reads it, so a test can let lease
   * time pass without waiting. Every store on the same data must see the same offset.
   */
  testClockOffsetMs?: () => number;
}

/**
 * What every process of one world must agree on: the tick clock's origin and what the world is
 * (its game and zone map, as a string the caller builds), kept by the first process to claim it.
 */
export interface ZoneWorldRecord {
  /** The world's tick 0, milliseconds since 1970. */
  originMs: number;
  /** What the world is; at most 4096 characters. */
  fingerprint: string;
}

const MAX_FINGERPRINT_LENGTH = 4096;

/** What a store read from Redis and could not use (damaged by hand or by another program). */
export interface RedisZoneStoreStats {
  /** Inbox entries, snapshots, leases or owner records that did not parse: read as absent. */
  damagedRecords: number;
}

const COMMIT_RESULTS: ReadonlySet<string> = new Set<CommitResult>([
  'ok',
  'stale',
  'duplicate',
  'not-owner',
  'inbox-full',
  'owners-full',
]);

type ScriptCall = (...args: (string | Buffer)[]) => Promise<unknown>;

export class RedisZoneStore implements ZoneStore, GatewayLeases {
  private readonly connection: RedisZoneConnection;
  private readonly prefix: string;
  private readonly limits: ZoneStoreLimits;
  private readonly clockOffsetMs: () => number;
  private damagedRecords = 0;

  constructor(options: RedisZoneStoreOptions = {}) {
    this.limits = { ...DEFAULT_ZONE_STORE_LIMITS, ...options.limits };
    checkLimits(this.limits);
    if (options.testClockOffsetMs !== undefined && typeof options.testClockOffsetMs !== 'function') {
      throw new TypeError('testClockOffsetMs must be a function');
    }
    this.clockOffsetMs = options.testClockOffsetMs ?? (() => 0);
    this.prefix = options.keyPrefix ?? 'gw:zones:';
    this.connection = new RedisZoneConnection(options, 'RedisZoneStore');
    for (const name of Object.keys(ZONE_SCRIPTS) as ZoneScriptName[]) {
      this.connection.redis.defineCommand(name, { numberOfKeys: 0, lua: zoneScriptSource(name) });
    }
  }

  /** A store whose connection is ready; rejects (and closes it) if Redis is not reachable in time. */
  static async connect(
    options: RedisZoneStoreOptions & { timeoutMs?: number } = {},
  ): Promise<RedisZoneStore> {
    const store = new RedisZoneStore(options);
    try {
      await store.connection.untilReady(options.timeoutMs ?? 5000);
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
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
    const reply = await this.script('zsAcquireLease', `${zone}`, processId, `${ttlMs}`, force ? '1' : '0');
    if (reply === null) return null;
    const [epoch, expiresAtMs] = reply as [number, number];
    return { zone, processId, epoch, expiresAtMs };
  }

  async renewLease(zone: number, epoch: number, ttlMs: number): Promise<LeaseResult> {
    this.checkOpen();
    checkZone(zone);
    checkCount(epoch, 'epoch', 1);
    checkTtl(ttlMs, this.limits);
    return (await this.script('zsRenewLease', `${zone}`, `${epoch}`, `${ttlMs}`)) === 1 ? 'ok' : 'stale';
  }

  async releaseLease(zone: number, epoch: number): Promise<LeaseResult> {
    this.checkOpen();
    checkZone(zone);
    checkCount(epoch, 'epoch', 1);
    return (await this.script('zsReleaseLease', `${zone}`, `${epoch}`)) === 1 ? 'ok' : 'stale';
  }

  async lease(zone: number): Promise<ZoneLease | null> {
    this.checkOpen();
    checkZone(zone);
    const reply = (await this.script('zsLease', `${zone}`)) as [string, string, string] | null;
    if (reply === null) return null;
    const [processId, epoch, expiresAtMs] = [reply[0], Number(reply[1]), Number(reply[2])];
    if (!Number.isSafeInteger(epoch) || epoch < 1 || !Number.isSafeInteger(expiresAtMs)) {
      return this.damaged(null);
    }
    return { zone, processId, epoch, expiresAtMs };
  }

  async commitHandoff(commit: HandoffCommit): Promise<CommitResult> {
    this.checkOpen();
    checkCommit(commit, this.limits);
    const { worldId, from, fromEpoch, to, hseq, tick, payload } = commit;
    const reply = await this.script(
      'zsCommitHandoff',
      `${worldId}`,
      `${from}`,
      `${fromEpoch}`,
      `${to}`,
      `${hseq}`,
      `${tick}`,
      Buffer.from(payload),
      `${this.limits.maxInboxEntries}`,
      `${this.limits.maxOwnerRecords}`,
    );
    if (typeof reply !== 'string' || !COMMIT_RESULTS.has(reply)) {
      throw new Error(`RedisZoneStore: unexpected commit reply ${String(reply)}`);
    }
    return reply as CommitResult;
  }

  async readInbox(zone: number, epoch: number, read: InboxRead, max: number): Promise<InboxResult> {
    this.checkOpen();
    checkZone(zone);
    checkCount(epoch, 'epoch', 1);
    checkInboxRead(read, max, this.limits);
    const after = read.from === 'pending' ? `${read.after}` : '0';
    // The Buffer variant: payloads come back as the exact bytes committed.
    const reply = (await this.script(
      'zsReadInboxBuffer',
      `${zone}`,
      `${epoch}`,
      read.from,
      after,
      `${max}`,
    )) as [Buffer, ...unknown[]];
    if (reply[0].toString() === 'stale') return { status: 'stale' };
    const entries: InboxEntry[] = [];
    for (const raw of reply.slice(1)) {
      const entry = inboxEntryOf(raw);
      if (entry === null) this.damagedRecords += 1;
      else entries.push(entry);
    }
    return { status: 'ok', entries };
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
    const reply = await this.script(
      'zsWriteSnapshot',
      `${zone}`,
      `${epoch}`,
      `${tick}`,
      `${inboxCursor}`,
      Buffer.from(bytes),
    );
    return reply === 1 ? 'ok' : 'stale';
  }

  async readSnapshot(zone: number): Promise<ZoneSnapshot | null> {
    this.checkOpen();
    checkZone(zone);
    const reply = (await this.script('zsReadSnapshotBuffer', `${zone}`)) as (Buffer | null)[];
    if (reply.every((field) => field === null)) return null;
    const [epoch, tick, inboxCursor] = reply.slice(0, 3).map(countOf);
    const bytes = reply[3];
    if (epoch === null || epoch < 1 || tick === null || inboxCursor === null || bytes === null) {
      return this.damaged(null);
    }
    return { zone, epoch, tick, inboxCursor, bytes: new Uint8Array(bytes) };
  }

  /**
   * The world this key prefix holds: the first claim is kept, and every claim answers with the
   * kept record, which the caller compares with its own (another map or game there is another
   * world). Rejects when the kept record is damaged.
   */
  async claimWorld(record: ZoneWorldRecord): Promise<ZoneWorldRecord> {
    this.checkOpen();
    checkCount(record?.originMs, 'originMs', 0);
    const fingerprint = record.fingerprint;
    if (typeof fingerprint !== 'string' || fingerprint.length > MAX_FINGERPRINT_LENGTH)
      throw new RangeError(`fingerprint must be a string of at most ${MAX_FINGERPRINT_LENGTH} characters`);
    const reply = (await this.script('zsClaimWorld', `${record.originMs}`, fingerprint)) as (string | null)[];
    const originMs = countOf(reply[0]);
    if (originMs === null || typeof reply[1] !== 'string')
      throw new Error(`RedisZoneStore: the world record under ${this.prefix}world is damaged`);
    return { originMs, fingerprint: reply[1] };
  }

  /**
   * A gateway index for `processId`: the lowest of 0..255 with no live lease, leased for `ttlMs`
   * (null when all 256 are held). Its players' ids carry it, so two live gateways never share one.
   */
  async claimGateway(processId: string, ttlMs: number): Promise<GatewayLease | null> {
    this.checkOpen();
    checkLeaseRequest(processId, ttlMs, this.limits);
    const reply = await this.script('zsClaimGateway', processId, `${ttlMs}`);
    if (reply === null) return null;
    const [gateway, epoch] = reply as [number, number];
    return { gateway, epoch };
  }

  /** Extends a gateway's lease; 'stale' once another process claimed the index (after a lapse). */
  async renewGateway(lease: GatewayLease, ttlMs: number): Promise<LeaseResult> {
    this.checkOpen();
    checkTtl(ttlMs, this.limits);
    const reply = await this.script('zsRenewGateway', `${lease.gateway}`, `${lease.epoch}`, `${ttlMs}`);
    return reply === 1 ? 'ok' : 'stale';
  }

  /** Gives a gateway index back at once (a gateway closing). */
  async releaseGateway(lease: GatewayLease): Promise<LeaseResult> {
    this.checkOpen();
    const reply = await this.script('zsReleaseGateway', `${lease.gateway}`, `${lease.epoch}`);
    return reply === 1 ? 'ok' : 'stale';
  }

  async owners(worldIds: readonly number[]): Promise<EntityOwner[]> {
    this.checkOpen();
    checkWorldIds(worldIds, this.limits);
    if (worldIds.length === 0) return [];
    const records = (await this.script('zsOwners', ...worldIds.map(String))) as (string | null)[];
    return worldIds.map((worldId, i) => {
      const record = records[i];
      const creator = { zone: creatorZone(worldId), hseq: 0 };
      if (record === null || record === undefined) return creator;
      const match = /^(\d+):(\d+):\d+$/.exec(record);
      // A damaged record cannot be trusted either way; the creator is what a store without it says.
      if (match === null) return this.damaged(creator);
      return { zone: Number(match[1]), hseq: Number(match[2]) };
    });
  }

  stats(): RedisZoneStoreStats {
    return { damagedRecords: this.damagedRecords };
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed) this.connection.close();
  }

  private checkOpen(): void {
    if (this.connection.isClosed) throw new Error('the zone store is closed');
  }

  private damaged<T>(value: T): T {
    this.damagedRecords += 1;
    return value;
  }

  /** Runs one of the scripts with the prefix and clock offset first (see redis-zone-scripts.ts). */
  private script(name: ZoneScriptName | `${ZoneScriptName}Buffer`, ...args: (string | Buffer)[]) {
    const offset = this.clockOffsetMs();
    if (!Number.isSafeInteger(offset)) throw new RangeError(`testClockOffsetMs() returned ${offset}`);
    return this.connection.run((redis: Redis) => {
      const call = (redis as unknown as Record<string, ScriptCall>)[name];
      return call.call(redis, this.prefix, `${offset}`, ...args);
    });
  }
}

/** A safe integer >= 0 from a decimal reply, or null. */
function countOf(field: Buffer | string | null | undefined): number | null {
  if (field === null || field === undefined) return null;
  const text = field.toString();
  if (!/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** One stream entry [id, [field, value, ...]] as an inbox entry, or null when it does not parse. */
function inboxEntryOf(raw: unknown): InboxEntry | null {
  if (!Array.isArray(raw) || raw.length !== 2 || !Array.isArray(raw[1])) return null;
  const [id, flat] = raw as [Buffer, Buffer[]];
  const idMatch = /^(\d{1,16})-0$/.exec(String(id));
  const fields = new Map<string, Buffer>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i].toString(), flat[i + 1]);
  const cursor = idMatch === null ? null : countOf(idMatch[1]);
  const [worldId, from, hseq, tick] = ['w', 'f', 'h', 't'].map((name) => countOf(fields.get(name)));
  const payload = fields.get('p');
  if (cursor === null || cursor < 1 || worldId === null || worldId > 0xffff_ffff) return null;
  if (from === null || from > 255 || hseq === null || hseq < 1 || tick === null) return null;
  if (!Buffer.isBuffer(payload)) return null;
  return { cursor, worldId, from, hseq, tick, payload: new Uint8Array(payload) };
}
