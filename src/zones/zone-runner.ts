/**
 * A zone server at work: it takes the zone's lease in the store, restores the zone from its last
 * snapshot and the inbox entries after it, then steps one tick each 1 / tickRate seconds of the
 * world's shared clock. Each tick: the entities handed to it enter, the gateways' batches wait for
 * their tick, the rules step, the feed batch is published, the handoffs are committed (each one
 * atomically in the store), the inbox is read for the next tick, and every few ticks a snapshot is
 * written, which also acks the inbox entries it holds. A store answer of 'stale' means another
 * process holds the zone now: the runner stops at once (it fences itself) and says so.
 *
 * Browser-safe: the store, feed and wire come in as interfaces; timers are the platform's.
 */
import type { GameRules } from '../game/game-rules.js';
import type { HandoffRuleOptions } from './handoff-rule.js';
import { feedChannel, inputChannel } from './zone-channels.js';
import type { ZoneFeed } from './zone-feed.js';
import type { ZoneMap } from './zone-map.js';
import type { EntityRecord } from './zone-messages.js';
import { type OutgoingHandoff, ZoneServer, type ZoneServerStats } from './zone-server.js';
import type { InboxEntry, ZoneStore } from './zone-store.js';
import type { ZoneCodecs } from './zone-wire.js';

/** World ids asked of the store's owner table per call (within every store's maxBatch). */
const OWNER_BATCH = 512;

export interface ZoneRunnerOptions {
  zone: number;
  /** Who runs it (names the lease: a process or worker id). */
  processId: string;
  rules: GameRules;
  map: ZoneMap;
  handoff: HandoffRuleOptions;
  store: ZoneStore;
  feed: ZoneFeed;
  codecs: ZoneCodecs;
  /** The world's tick 0, in the clock's milliseconds: every process of the world counts ticks from it. */
  originMs: number;
  /** The clock (default Date.now: processes on several machines share wall time). */
  nowMs?: () => number;
  /** Prefixes the feed's channel names (default 'gw.'). */
  channelPrefix?: string;
  /** The lease's time to live (default 2000 ms), renewed every third of it. */
  leaseTtlMs?: number;
  /** Ticks between two snapshots (default 10): the most a takeover loses. */
  snapshotTicks?: number;
  /** Take the lease even while another holds it (a supervisor that saw the holder exit). */
  force?: boolean;
  /** Ticks stepped at most per timer callback when behind; beyond, the zone skips ahead (default 8). */
  maxCatchUpTicks?: number;
  keyframeTicks?: number;
  maxPlayers?: number;
  onError?: (error: unknown, where: string) => void;
  /** Each tick's simulation time, milliseconds (the supervisor's load policy reads it). */
  onTickMs?: (ms: number) => void;
  /** The zone lost its lease (another process holds it now): the runner has stopped. */
  onFenced?: () => void;
}

export interface ZoneRunnerStats extends ZoneServerStats {
  epoch: number;
  feedBytes: number;
  handoffBytes: number;
  snapshotBytes: number;
  /** Handoffs committed, and refused by the store's reason. */
  commits: number;
  commitsRefused: Record<string, number>;
  /** Gateway batches refused by the wire's reader. */
  batchesRefused: number;
  /** Arrivals whose tick had passed (the zone was ahead): they enter at once. */
  lateArrivals: number;
  /** Entities read from the inbox that enter at a later tick. */
  arriving: number;
  /** Ticks skipped because the zone fell too far behind the clock. */
  ticksSkipped: number;
  /** Milliseconds from a handoff's commit call to its answer, last 256. */
  commitMs: number[];
}

export class ZoneRunner {
  readonly zone: ZoneServer;
  private readonly arrivals: InboxEntry[] = [];
  private inboxCursor = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly unsubscribe: () => void;
  private busy = false;
  private stopped = false;
  private lastRenewMs: number;
  private readonly counts = {
    feedBytes: 0,
    handoffBytes: 0,
    snapshotBytes: 0,
    commits: 0,
    batchesRefused: 0,
    lateArrivals: 0,
    ticksSkipped: 0,
  };
  private readonly commitsRefused: Record<string, number> = {};
  private readonly commitMs: number[] = [];
  private readonly nowMs: () => number;
  private readonly onError: (error: unknown, where: string) => void;
  private readonly feedName: string;

  private constructor(
    private readonly options: ZoneRunnerOptions,
    zone: ZoneServer,
    private readonly epoch: number,
  ) {
    this.zone = zone;
    this.nowMs = options.nowMs ?? Date.now;
    this.lastRenewMs = this.nowMs();
    this.onError =
      options.onError ??
      ((error, at) => console.error(`ghostwire zone ${options.zone}: ${at} failed`, error));
    const prefix = options.channelPrefix ?? 'gw.';
    this.feedName = feedChannel(prefix, options.zone);
    this.unsubscribe = options.feed.subscribe(inputChannel(prefix, options.zone), (bytes) =>
      this.onBatch(bytes),
    );
  }

  /**
   * Takes the zone's lease (null: another process holds it, and `force` was not given), restores
   * the zone from the store and starts its clock.
   */
  static async start(options: ZoneRunnerOptions): Promise<ZoneRunner | null> {
    const { store, zone, codecs } = options;
    const lease = await store.acquireLease(
      zone,
      options.processId,
      options.leaseTtlMs ?? 2000,
      options.force,
    );
    if (lease === null) return null;
    const serverOptions = {
      rules: options.rules,
      map: options.map,
      zone,
      epoch: lease.epoch,
      handoff: options.handoff,
      ...(options.keyframeTicks === undefined ? {} : { keyframeTicks: options.keyframeTicks }),
      ...(options.maxPlayers === undefined ? {} : { maxPlayers: options.maxPlayers }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    };
    const snapshot = await store.readSnapshot(zone);
    const now = (options.nowMs ?? Date.now)();
    const tickRate = options.rules.game.tickRate;
    const clockTick = Math.max(0, Math.floor(((now - options.originMs) * tickRate) / 1000));
    let server: ZoneServer;
    let cursor = 0;
    if (snapshot === null) {
      server = new ZoneServer({ ...serverOptions, tick: clockTick });
    } else {
      const read = codecs.decodeZoneSnapshot(snapshot.bytes);
      if (!read.ok) throw new Error(`zone ${zone}: its snapshot cannot be read: ${read.reason}`);
      // The snapshot may be older than handoffs the zone made since: the owner table is the truth.
      const record = { ...read.value, entities: await stillOwned(store, zone, read.value.entities) };
      server = ZoneServer.restore(serverOptions, record);
      cursor = snapshot.inboxCursor;
    }
    const runner = new ZoneRunner(options, server, lease.epoch);
    runner.inboxCursor = cursor;
    // What a process before this one read and never acked, then what is new.
    const pending = await store.readInbox(zone, lease.epoch, { from: 'pending', after: cursor }, 1024);
    if (pending.status === 'stale') {
      runner.fence();
      return null;
    }
    runner.arrivals.push(...pending.entries);
    runner.timer = setInterval(() => void runner.frame(), 500 / tickRate);
    return runner;
  }

  get stopping(): boolean {
    return this.stopped;
  }

  stats(): ZoneRunnerStats {
    return {
      ...this.zone.stats(),
      ...this.counts,
      epoch: this.epoch,
      arriving: this.arrivals.length,
      commitsRefused: { ...this.commitsRefused },
      commitMs: [...this.commitMs],
    };
  }

  /** Stops stepping; `release` gives up the lease at once (a planned stop), else it lapses. */
  async stop(release = false): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe();
    if (release) await this.options.store.releaseLease(this.options.zone, this.epoch).catch(() => undefined);
  }

  /** Gives the zone's lease up at once (after `stop` and a last `snapshot`: a planned move). */
  async release(): Promise<void> {
    await this.options.store.releaseLease(this.options.zone, this.epoch);
  }

  /** Writes a snapshot now (a planned stop writes one last). */
  async snapshot(): Promise<boolean> {
    const record = this.zone.snapshot();
    const bytes = this.options.codecs.encodeZoneSnapshot(record);
    this.counts.snapshotBytes += bytes.length;
    const result = await this.options.store.writeSnapshot(
      this.options.zone,
      this.epoch,
      record.tick,
      this.ackCursor(),
      bytes,
    );
    if (result === 'stale') this.fence();
    return result === 'ok';
  }

  private onBatch(bytes: Uint8Array): void {
    if (this.stopped) return;
    const read = this.options.codecs.decodeGatewayBatch(bytes);
    if (!read.ok) {
      this.counts.batchesRefused++;
      return;
    }
    for (const forward of this.zone.receive(read.value))
      this.options.feed.publish(
        inputChannel(this.options.channelPrefix ?? 'gw.', forward.to),
        this.options.codecs.encodeGatewayBatch(forward.batch),
      );
  }

  private async frame(): Promise<void> {
    // One frame at a time: the store's answers of one tick come before the next tick starts.
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const { originMs, maxCatchUpTicks = 8 } = this.options;
      const tickRate = this.options.rules.game.tickRate;
      const due = Math.floor(((this.nowMs() - originMs) * tickRate) / 1000);
      let behind = due - this.zone.tick;
      if (behind > maxCatchUpTicks) {
        // Too far behind to catch up: the ticks between are skipped (the gateways stamp without them).
        this.counts.ticksSkipped += behind - maxCatchUpTicks;
        this.zone.skipTo(due - maxCatchUpTicks);
        behind = maxCatchUpTicks;
      }
      for (let i = 0; i < behind && !this.stopped; i++) await this.tick();
      await this.renew();
    } catch (error) {
      this.onError(error, 'tick');
    } finally {
      this.busy = false;
    }
  }

  private async tick(): Promise<void> {
    const { zone, options } = this;
    const next = zone.tick + 1;
    let waiting = 0;
    for (const entry of this.arrivals) {
      // Not before its tick: until then its old zone simulated it (this zone is behind that one).
      if (entry.tick > next) {
        this.arrivals[waiting++] = entry;
        continue;
      }
      const read = options.codecs.decodeEntityRecord(entry.payload);
      if (!read.ok) this.onError(new Error(`inbox entry ${entry.cursor}: ${read.reason}`), 'arrive');
      else {
        if (entry.tick < next) this.counts.lateArrivals++;
        zone.arrive(read.value as EntityRecord, entry.tick);
      }
      if (entry.cursor > this.inboxCursor) this.inboxCursor = entry.cursor;
    }
    this.arrivals.length = waiting;
    const started = performance.now();
    const { feed, handoffs } = zone.step();
    options.onTickMs?.(performance.now() - started);
    const bytes = options.codecs.encodeFeedBatch(feed);
    this.counts.feedBytes += bytes.length;
    options.feed.publish(this.feedName, bytes);
    if (handoffs.length > 0) await Promise.all(handoffs.map((handoff) => this.commit(handoff)));
    if (this.stopped) return;
    const read = await options.store.readInbox(options.zone, this.epoch, { from: 'new' }, 1024);
    if (read.status === 'stale') return this.fence();
    this.arrivals.push(...read.entries);
    if (zone.tick % (options.snapshotTicks ?? 10) === 0) await this.snapshot();
  }

  /**
   * How far the snapshot acks the inbox: every entry applied, but none still waiting for its tick
   * (an entry applied past a waiting one is read again after a takeover, and refused as a repeat).
   */
  private ackCursor(): number {
    let cursor = this.inboxCursor;
    for (const entry of this.arrivals) if (entry.cursor <= cursor) cursor = entry.cursor - 1;
    return cursor;
  }

  private async commit(handoff: OutgoingHandoff): Promise<void> {
    const { options } = this;
    const payload = options.codecs.encodeEntityRecord(handoff.record);
    this.counts.handoffBytes += payload.length;
    const started = this.nowMs();
    const result = await options.store.commitHandoff({
      worldId: handoff.record.worldId,
      from: options.zone,
      fromEpoch: this.epoch,
      to: handoff.to,
      hseq: handoff.record.hseq,
      tick: handoff.tick,
      payload,
    });
    if (this.commitMs.length >= 256) this.commitMs.shift();
    this.commitMs.push(this.nowMs() - started);
    if (result === 'ok') {
      this.counts.commits++;
      return;
    }
    this.commitsRefused[result] = (this.commitsRefused[result] ?? 0) + 1;
    if (result === 'stale') this.fence();
    // The entity is still this zone's when the store refused for room: it comes back.
    else if (result === 'inbox-full' || result === 'owners-full') this.zone.handoffRefused(handoff);
  }

  private async renew(): Promise<void> {
    const ttl = this.options.leaseTtlMs ?? 2000;
    const now = this.nowMs();
    if (now - this.lastRenewMs < ttl / 3) return;
    this.lastRenewMs = now;
    if ((await this.options.store.renewLease(this.options.zone, this.epoch, ttl)) === 'stale') this.fence();
  }

  private fence(): void {
    if (this.stopped) return;
    void this.stop();
    this.options.onFenced?.();
  }
}

/** The records whose entity the store says this zone still owns at the same handoff (the rest moved on). */
async function stillOwned(store: ZoneStore, zone: number, records: EntityRecord[]): Promise<EntityRecord[]> {
  const kept: EntityRecord[] = [];
  for (let at = 0; at < records.length; at += OWNER_BATCH) {
    const slice = records.slice(at, at + OWNER_BATCH);
    const owners = await store.owners(slice.map((r) => r.worldId));
    for (let i = 0; i < slice.length; i++)
      if (owners[i].zone === zone && owners[i].hseq === slice[i].hseq) kept.push(slice[i]);
  }
  return kept;
}
