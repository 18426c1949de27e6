/**
 * A zone server at work: it takes the zone's lease in the store, restores the zone from its last
 * snapshot and the inbox entries after it, then steps one tick each 1 / tickRate seconds of the
 * world's shared clock. Each tick: the entities handed to it enter, the gateways' batches wait for
 * their tick, the rules step, the feed batch is published, the handoffs are committed (each one
 * atomically in the store), the inbox is read for the next tick, and every few ticks a snapshot is
 * written, which also acks the inbox entries it holds. A store answer of 'stale' means another
 * process holds the zone now, or the lease lapsed: a renewal tells which, and on 'stale' the runner
 * stops at once (it fences itself) and says so.
 *
 * A store call that rejects (Redis down, a timeout) does not stop the zone: it keeps stepping and
 * publishing, starts no handoff (ZoneServer.handoffsPaused), and probes the store with one lease
 * renewal at a time until one answers (which also revives a lease that lapsed meanwhile); then the
 * work that failed is done again. A commit that rejected may have happened: it is kept and sent
 * again, same hseq and payload, until the store answers (zone-commits.ts). One error is reported per
 * outage.
 *
 * Browser-safe: the store, feed and wire come in as interfaces; timers are the platform's.
 */
import type { GameRules } from '../game/game-rules.js';
import type { HandoffRuleOptions } from './handoff-rule.js';
import { ticksSinceOrigin } from './world-clock.js';
import { feedChannel, inputChannel } from './zone-channels.js';
import { type ZoneCommitStats, ZoneCommits } from './zone-commits.js';
import type { ZoneFeed } from './zone-feed.js';
import { ZoneInboxReader } from './zone-inbox-reader.js';
import type { ZoneMap } from './zone-map.js';
import type { EntityRecord, ZoneSnapshotRecord } from './zone-messages.js';
import { restoreZone } from './zone-restore.js';
import type { ZoneServer, ZoneServerStats } from './zone-server.js';
import type { LeaseResult, ZoneStore } from './zone-store.js';
import type { ZoneCodecs } from './zone-wire.js';

/** How long (ticks) a zone's newest tick may wait for its hosted players' inputs. */
const INPUT_WAIT_TICKS = 1;

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

/** What a zone reports (ZonedWorld's `stats().zones[i].report`). */
export interface ZoneRunnerStats extends ZoneServerStats, ZoneCommitStats {
  /** Its lease's epoch. */
  epoch: number;
  /** Bytes of feed batches published, and of snapshots written, since it started. */
  feedBytes: number;
  snapshotBytes: number;
  /** Gateway batches refused by the wire's reader. */
  batchesRefused: number;
  /** Arrivals whose tick had passed (the zone was ahead): they enter at once. */
  lateArrivals: number;
  /** Entities read from the inbox that enter at a later tick. */
  arriving: number;
  /** Ticks skipped because the zone fell too far behind the clock. */
  ticksSkipped: number;
  /** Store calls that rejected (each probe during an outage counts). */
  storeFailures: number;
  /** Outages begun (a store call rejected after one had succeeded). */
  storeOutages: number;
  /** True from a store call that rejected until one succeeds. */
  storeFailing: boolean;
  /** Ticks stepped with handoffs paused (the store failing). */
  pausedTicks: number;
  /** The highest inbox cursor read from the store. */
  inboxRead: number;
}

export class ZoneRunner {
  readonly zone: ZoneServer;
  private readonly inbox: ZoneInboxReader;
  private readonly commits: ZoneCommits;
  private snapshotDue = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly unsubscribe: () => void;
  /** The frame running now, if any (stop waits for its store calls to be answered). */
  private running: Promise<void> | null = null;
  private stopped = false;
  /** From a store call that rejected until one succeeds: only probes (renewals) go to the store. */
  private failing = false;
  private probing = false;
  private lastRenewMs: number;
  private readonly counts = {
    feedBytes: 0,
    snapshotBytes: 0,
    batchesRefused: 0,
    lateArrivals: 0,
    ticksSkipped: 0,
    storeFailures: 0,
    storeOutages: 0,
    pausedTicks: 0,
  };
  private readonly nowMs: () => number;
  private readonly onError: (error: unknown, where: string) => void;
  private readonly feedName: string;

  private constructor(
    private readonly options: ZoneRunnerOptions,
    zone: ZoneServer,
    private readonly epoch: number,
    inboxCursor: number,
  ) {
    this.zone = zone;
    this.nowMs = options.nowMs ?? Date.now;
    this.lastRenewMs = this.nowMs();
    this.inbox = new ZoneInboxReader(options.store, options.zone, epoch, inboxCursor);
    this.commits = new ZoneCommits(
      options.store,
      options.codecs,
      options.zone,
      epoch,
      this.nowMs,
      (handoff) => zone.handoffRefused(handoff),
    );
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
    const { store, zone } = options;
    const lease = await store.acquireLease(
      zone,
      options.processId,
      options.leaseTtlMs ?? 2000,
      options.force,
    );
    if (lease === null) return null;
    const { server, inboxCursor } = await restoreZone(options, lease.epoch);
    const runner = new ZoneRunner(options, server, lease.epoch, inboxCursor);
    try {
      // What a process before this one read and never acked, then what is new.
      if ((await runner.inbox.fetch()) === 'stale') {
        runner.fence();
        return null;
      }
    } catch (error) {
      await runner.stop();
      throw error;
    }
    runner.timer = setInterval(() => runner.frame(), 500 / options.rules.game.tickRate);
    return runner;
  }

  get stopping(): boolean {
    return this.stopped;
  }

  stats(): ZoneRunnerStats {
    return {
      ...this.zone.stats(),
      ...this.counts,
      ...this.commits.stats(),
      epoch: this.epoch,
      arriving: this.inbox.arriving,
      storeFailing: this.failing,
      inboxRead: this.inbox.readCursor,
    };
  }

  /**
   * Stops stepping, once the tick under way has its store answers (so what it committed is in the
   * store); `release` gives up the lease at once (a planned stop), else it lapses.
   */
  async stop(release = false): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe();
    await this.running;
    if (release) await this.options.store.releaseLease(this.options.zone, this.epoch).catch(() => undefined);
  }

  /** Gives the zone's lease up at once (after `stop` and a last `snapshot`: a planned move). */
  async release(): Promise<void> {
    await this.options.store.releaseLease(this.options.zone, this.epoch);
  }

  /**
   * Writes a snapshot now (a planned stop writes one last): false when the store refused it (the
   * lease lapsed or was taken: see fencing); rejects when the store does.
   */
  async snapshot(): Promise<boolean> {
    const record = this.snapshotRecord();
    const bytes = this.options.codecs.encodeZoneSnapshot(record);
    this.counts.snapshotBytes += bytes.length;
    const result = await this.options.store.writeSnapshot(
      this.options.zone,
      this.epoch,
      record.tick,
      this.inbox.ackCursor(),
      bytes,
    );
    if (result === 'stale') {
      await this.renewNow();
      return false;
    }
    this.snapshotDue = false;
    return true;
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

  private frame(): void {
    // One frame at a time: the store's answers of one tick come before the next tick starts.
    if (this.running !== null || this.stopped) return;
    this.running = this.steps().finally(() => {
      this.running = null;
    });
  }

  private async steps(): Promise<void> {
    try {
      const { originMs, maxCatchUpTicks = 8 } = this.options;
      const tickRate = this.options.rules.game.tickRate;
      const sinceOrigin = ticksSinceOrigin(this.nowMs(), originMs, tickRate);
      const due = Math.floor(sinceOrigin);
      let behind = due - this.zone.tick;
      // The newest tick waits, up to one tick, for its players' inputs: the gateway sends them two
      // ticks ahead, and one delayed by a busy machine is better taken a little late than missed.
      if (behind === 1 && sinceOrigin - due < INPUT_WAIT_TICKS && !this.zone.inputsReady()) behind = 0;
      if (behind > maxCatchUpTicks) {
        // Too far behind to catch up: the ticks between are skipped (the gateways stamp without them).
        this.counts.ticksSkipped += behind - maxCatchUpTicks;
        this.zone.skipTo(due - maxCatchUpTicks);
        behind = maxCatchUpTicks;
      }
      for (let i = 0; i < behind && !this.stopped; i++) await this.tick();
      const ttl = this.options.leaseTtlMs ?? 2000;
      if (!this.failing && !this.stopped && this.nowMs() - this.lastRenewMs >= ttl / 3) await this.renewNow();
    } catch (error) {
      this.onError(error, 'tick');
    }
  }

  private async tick(): Promise<void> {
    const { zone, options } = this;
    // The inbox first: an entity committed to this zone for this tick by a zone a little ahead of
    // it enters now, not a tick late (a late arrival catches up, but its NPC rules skip a tick).
    if (!this.failing && !(await this.readInbox()) && this.stopped) return;
    const next = zone.tick + 1;
    for (const entry of this.inbox.due(next)) {
      const read = options.codecs.decodeEntityRecord(entry.payload);
      if (!read.ok) this.onError(new Error(`inbox entry ${entry.cursor}: ${read.reason}`), 'arrive');
      else {
        if (entry.tick < next) this.counts.lateArrivals++;
        zone.arrive(read.value as EntityRecord, entry.tick);
      }
    }
    // No entity leaves while the store cannot take its commit: it stays past the border, here.
    zone.handoffsPaused = this.failing;
    if (this.failing) this.counts.pausedTicks++;
    const started = performance.now();
    const { feed, handoffs } = zone.step();
    options.onTickMs?.(performance.now() - started);
    const bytes = options.codecs.encodeFeedBatch(feed);
    this.counts.feedBytes += bytes.length;
    options.feed.publish(this.feedName, bytes);
    for (const handoff of handoffs) this.commits.add(handoff);
    if (zone.tick % (options.snapshotTicks ?? 10) === 0) this.snapshotDue = true;
    if (this.failing) return this.probe();
    // The store's part of the tick; each step stops at a failure and is done again on a later tick.
    if (this.commits.size > 0) await this.settleCommits();
    if (this.failing || this.stopped || !this.snapshotDue) return;
    try {
      if (await this.snapshot()) this.storeAnswered();
    } catch (error) {
      this.storeFailed(error, 'snapshot');
    }
  }

  private async settleCommits(): Promise<void> {
    const { failure, stale } = await this.commits.settle();
    if (failure !== null) return this.storeFailed(failure.error, 'commit');
    this.storeAnswered();
    // Nothing changed for a 'stale' one: a renewal tells whether the zone is lost or its lease lapsed.
    if (stale) await this.renewNow();
  }

  /** Reads the inbox for the coming ticks; false when the store failed or answered 'stale'. */
  private async readInbox(): Promise<boolean> {
    let result: 'ok' | 'stale';
    try {
      result = await this.inbox.fetch();
    } catch (error) {
      this.storeFailed(error, 'inbox read');
      return false;
    }
    if (result === 'stale') {
      await this.renewNow();
      return false;
    }
    this.storeAnswered();
    return true;
  }

  /** The zone's snapshot, with the entities whose commit is unanswered as they were before it. */
  private snapshotRecord(): ZoneSnapshotRecord {
    const record = this.zone.snapshot();
    // Still this zone's unless the commit landed: a takeover keeps them where the owner table says.
    record.entities.push(...this.commits.records());
    return record;
  }

  /**
   * Renews the lease now (also one that lapsed during an outage): true when renewed; on 'stale'
   * another process holds the zone and this one fences itself.
   */
  private async renewNow(): Promise<boolean> {
    const { store, zone, leaseTtlMs = 2000 } = this.options;
    const asked = this.nowMs();
    let result: LeaseResult;
    try {
      result = await store.renewLease(zone, this.epoch, leaseTtlMs);
    } catch (error) {
      this.storeFailed(error, 'lease renewal');
      return false;
    }
    if (result === 'stale') {
      this.fence();
      return false;
    }
    this.lastRenewMs = asked;
    this.storeAnswered();
    return true;
  }

  /** While the store fails: one renewal at a time, not awaited, so the zone steps on meanwhile. */
  private probe(): void {
    if (this.probing || this.stopped) return;
    this.probing = true;
    void this.renewNow().finally(() => {
      this.probing = false;
    });
  }

  /** A store call rejected: reported once per outage; handoffs pause until a call succeeds. */
  private storeFailed(error: unknown, where: string): void {
    this.counts.storeFailures++;
    if (this.failing || this.stopped) return;
    this.failing = true;
    this.counts.storeOutages++;
    this.onError(error, `store (${where}; the zone steps on, handoffs paused until the store answers)`);
  }

  private storeAnswered(): void {
    this.failing = false;
  }

  private fence(): void {
    if (this.stopped) return;
    void this.stop();
    this.options.onFenced?.();
  }
}
