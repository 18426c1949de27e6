/**
 * The zone supervisor (the book's ch.13 process manager, for zones): it runs a world's zones in
 * worker threads, restarts a thread that dies (its zones are taken over from their snapshots with
 * their leases forced, so the dead thread's epoch is fenced), and applies the load policy:
 *
 *   A zone is hot when its tick took more than `hotShare` (70%) of the tick's time at the 95th
 *   percentile over `hotSeconds` (10 s). A hot zone that shares a thread is moved to a new thread
 *   of its own, while there are fewer threads than `maxThreads` (the machine's cores): a planned
 *   move (a last snapshot, the lease given up, the new thread takes it at once), at most once a
 *   minute per zone.
 *
 * Node-only.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { servePortZoneStore } from './port-zone-store.js';
import type { FeedHub } from './zone-feed-hub.js';
import type { ZoneMap } from './zone-map.js';
import type { ZoneRunnerStats } from './zone-runner.js';
import type { ZoneStore } from './zone-store.js';
import type {
  ZoneThreadCommand,
  ZoneThreadData,
  ZoneThreadMessage,
  ZoneThreadReport,
} from './zone-thread-protocol.js';

export type ZoneEngine =
  | { kind: 'embedded'; store: ZoneStore; hub: FeedHub }
  | { kind: 'redis'; url: string; keyPrefix?: string };

export interface ZoneSupervisorOptions {
  rulesUrl: string;
  rulesExport?: string;
  map: ZoneMap;
  /** The zones to run here (default every zone of the map). */
  zones?: readonly number[];
  handoff: ZoneThreadData['handoff'];
  originMs: number;
  /** The game's ticks per second: a tick's time budget is 1 / tickRate seconds. */
  tickRate: number;
  /** How far viewers see: each zone's report counts its entities within it of another zone. */
  borderRadius?: number;
  engine: ZoneEngine;
  /** Threads to start with (default: one per zone, at most maxThreads); zones are dealt round. */
  threads?: number;
  /** Threads at most, moves included (default 4). */
  maxThreads?: number;
  runner?: ZoneThreadData['runner'];
  /** The load policy's thresholds (see the file's header). */
  policy?: { hotShare?: number; hotSeconds?: number; moveEverySeconds?: number };
  /** Where the supervisor says what it did (a thread restarted, a zone moved). */
  onEvent?: (event: string) => void;
}

/** One zone as the supervisor sees it. */
export interface SupervisedZone {
  zone: number;
  /** The thread running it (a number the supervisor gives each thread it starts). */
  thread: number;
  /** Its lease's epoch: bumped each time a thread takes the zone. */
  epoch: number;
  /** The zone's last report (null before its first). */
  report: ZoneRunnerStats | null;
  /** Its tick's 95th percentile over the policy's window, milliseconds. */
  tickP95Ms: number;
  /** The handoffs into it since its thread took it, counted by latency (handoff-latency.ts), at its last report. */
  handoffLatency: { byTicks: number[]; byMs: number[] } | null;
  /** Entities within the world's interest radius of another zone, at its last report. */
  nearBorder: number | null;
}

interface ZoneThread {
  id: number;
  worker: Worker;
  zones: Set<number>;
  stopping: boolean;
  restarts: number;
}

export class ZoneSupervisor {
  private readonly threads = new Map<number, ZoneThread>();
  private readonly zones = new Map<number, SupervisedZone>();
  private readonly windows = new Map<number, { atMs: number; p95: number }[]>();
  private readonly movedAtMs = new Map<number, number>();
  private readonly waiters: {
    test: (m: ZoneThreadMessage, thread: number) => boolean;
    resolve: () => void;
  }[] = [];
  private nextThreadId = 0;
  private closed = false;
  private readonly policyTimer: ReturnType<typeof setInterval>;
  private readonly counts = { restarts: 0, moves: 0, fenced: 0 };

  private constructor(private readonly options: ZoneSupervisorOptions) {
    this.policyTimer = setInterval(() => this.applyPolicy(), 1000);
  }

  /** Starts every zone's thread and waits until each zone runs. */
  static async start(options: ZoneSupervisorOptions): Promise<ZoneSupervisor> {
    const supervisor = new ZoneSupervisor(options);
    const zones = options.zones ?? Array.from({ length: options.map.zoneCount }, (_, i) => i);
    const maxThreads = options.maxThreads ?? 4;
    const threads = Math.max(1, Math.min(options.threads ?? zones.length, maxThreads, zones.length));
    const deal: number[][] = Array.from({ length: threads }, () => []);
    for (const [i, zone] of zones.entries()) deal[i % threads].push(zone);
    await Promise.all(deal.map((zones) => supervisor.spawn(zones, false)));
    return supervisor;
  }

  /** Every zone, with its thread and its last report. */
  list(): SupervisedZone[] {
    return [...this.zones.values()].sort((a, b) => a.zone - b.zone);
  }

  /** Threads running now, and the threads restarted, zones moved and zones fenced so far. */
  stats(): { threads: number; restarts: number; moves: number; fenced: number } {
    return { threads: this.threads.size, ...this.counts };
  }

  /** Ends the thread running `zone` at once, as a crash would (tests, and an operator's kill). */
  async crash(zone: number): Promise<void> {
    const thread = [...this.threads.values()].find((t) => t.zones.has(zone));
    if (thread === undefined) throw new RangeError(`ZoneSupervisor.crash: zone ${zone} runs nowhere`);
    const back = this.until((m, id) => m.kind === 'started' && m.zone === zone && id !== thread.id);
    await thread.worker.terminate();
    await back;
  }

  /** Moves `zone` to a thread of its own (the policy's move, also callable by hand). */
  async move(zone: number): Promise<void> {
    const thread = [...this.threads.values()].find((t) => t.zones.has(zone));
    if (thread === undefined) throw new RangeError(`ZoneSupervisor.move: zone ${zone} runs nowhere`);
    const released = this.until((m, id) => m.kind === 'released' && m.zone === zone && id === thread.id);
    thread.worker.postMessage({ kind: 'release', zone } satisfies ZoneThreadCommand);
    await released;
    thread.zones.delete(zone);
    this.counts.moves++;
    this.movedAtMs.set(zone, Date.now());
    this.options.onEvent?.(`zone ${zone} moved to a thread of its own`);
    await this.spawn([zone], false);
  }

  /** Stops every thread: each zone writes a last snapshot and gives its lease up. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.policyTimer);
    await Promise.all(
      [...this.threads.values()].map(async (thread) => {
        thread.stopping = true;
        const exited = new Promise<void>((resolve) => thread.worker.once('exit', () => resolve()));
        thread.worker.postMessage({ kind: 'stop' } satisfies ZoneThreadCommand);
        const timeout = setTimeout(() => void thread.worker.terminate(), 5000);
        await exited;
        clearTimeout(timeout);
      }),
    );
  }

  private async spawn(zones: number[], force: boolean, restarts = 0): Promise<void> {
    const id = this.nextThreadId++;
    const { options } = this;
    const transfer: MessagePortLikeTransfer[] = [];
    let engine: ZoneThreadData['engine'];
    if (options.engine.kind === 'embedded') {
      const store = new MessageChannel();
      const feed = new MessageChannel();
      servePortZoneStore(options.engine.store, store.port1);
      options.engine.hub.attach(feed.port1);
      engine = { kind: 'embedded', storePort: store.port2, feedPort: feed.port2 };
      transfer.push(store.port2, feed.port2);
    } else {
      const { url, keyPrefix } = options.engine;
      engine = { kind: 'redis', url, ...(keyPrefix === undefined ? {} : { keyPrefix }) };
    }
    const data: ZoneThreadData = {
      processId: `thread-${id}-${process.pid}`,
      zones,
      force,
      rulesUrl: options.rulesUrl,
      ...(options.rulesExport === undefined ? {} : { rulesExport: options.rulesExport }),
      map: options.map.describe(),
      handoff: options.handoff,
      originMs: options.originMs,
      engine,
      runner: options.runner ?? {},
      ...(options.borderRadius === undefined ? {} : { borderRadius: options.borderRadius }),
    };
    const worker = new Worker(new URL('./zone-worker.js', import.meta.url), {
      workerData: data,
      transferList: transfer,
    });
    const thread: ZoneThread = { id, worker, zones: new Set(zones), stopping: false, restarts };
    this.threads.set(id, thread);
    const started = Promise.all(
      zones.map((zone) =>
        this.until(
          (m, from) => from === id && (m.kind === 'started' || m.kind === 'refused') && m.zone === zone,
        ),
      ),
    );
    worker.on('message', (message: ZoneThreadMessage | ZoneThreadReport) => this.onMessage(thread, message));
    worker.on('error', (error) => this.options.onEvent?.(`thread ${id} failed: ${error.message}`));
    worker.on('exit', () => this.onExit(thread));
    await started;
  }

  private onMessage(thread: ZoneThread, message: ZoneThreadMessage | ZoneThreadReport): void {
    if (message.kind === 'report') {
      for (const { zone, stats, tickMs, handoffLatency, nearBorder } of message.zones) {
        const entry = this.zones.get(zone);
        if (entry === undefined || entry.thread !== thread.id) continue;
        entry.report = stats;
        entry.handoffLatency = handoffLatency;
        entry.nearBorder = nearBorder;
        const window = this.windows.get(zone) ?? [];
        window.push({ atMs: Date.now(), p95: percentile(tickMs, 0.95) });
        const hotMs = (this.options.policy?.hotSeconds ?? 10) * 1000;
        while (window.length > 0 && window[0].atMs < Date.now() - hotMs) window.shift();
        this.windows.set(zone, window);
        entry.tickP95Ms = Math.max(...window.map((w) => w.p95));
      }
      return;
    }
    if (message.kind === 'started')
      this.zones.set(message.zone, {
        zone: message.zone,
        thread: thread.id,
        epoch: message.epoch,
        report: null,
        tickP95Ms: 0,
        handoffLatency: null,
        nearBorder: null,
      });
    else if (message.kind === 'refused' || message.kind === 'fenced') {
      // Its lease is held elsewhere (another machine runs it, or took it over): this thread stands
      // by and tries again after a lease's time, so it takes the zone if that holder dies.
      if (message.kind === 'fenced') {
        this.counts.fenced++;
        this.options.onEvent?.(`zone ${message.zone} lost its lease in thread ${thread.id}; standing by`);
      }
      const retryMs = this.options.runner?.leaseTtlMs ?? 2000;
      setTimeout(() => {
        if (!this.closed && !thread.stopping && thread.zones.has(message.zone))
          thread.worker.postMessage({ kind: 'start', zone: message.zone } satisfies ZoneThreadCommand);
      }, retryMs);
    } else if (message.kind === 'error') this.options.onEvent?.(`thread ${thread.id}: ${message.message}`);
    for (let i = this.waiters.length - 1; i >= 0; i--)
      if (this.waiters[i].test(message, thread.id)) this.waiters.splice(i, 1)[0].resolve();
  }

  private onExit(thread: ZoneThread): void {
    this.threads.delete(thread.id);
    if (thread.stopping || this.closed || thread.zones.size === 0) return;
    // Unasked: its zones are taken over by a new thread, the dead one's epoch fenced by force.
    const zones = [...thread.zones];
    const restarts = thread.restarts + 1;
    this.counts.restarts++;
    this.options.onEvent?.(`thread ${thread.id} ended; zones ${zones.join(', ')} restart`);
    const delayMs = Math.min(5000, 50 * 2 ** Math.min(restarts, 7));
    setTimeout(() => {
      if (!this.closed) void this.spawn(zones, true, restarts);
    }, delayMs);
  }

  private applyPolicy(): void {
    const { options } = this;
    const maxThreads = options.maxThreads ?? 4;
    if (this.closed || this.threads.size >= maxThreads) return;
    const budgetMs = 1000 / options.tickRate;
    const hotShare = options.policy?.hotShare ?? 0.7;
    const moveEveryMs = (options.policy?.moveEverySeconds ?? 60) * 1000;
    for (const entry of this.zones.values()) {
      const thread = this.threads.get(entry.thread);
      if (thread === undefined || thread.zones.size < 2) continue;
      if (entry.tickP95Ms <= hotShare * budgetMs) continue;
      if (Date.now() - (this.movedAtMs.get(entry.zone) ?? 0) < moveEveryMs) continue;
      this.movedAtMs.set(entry.zone, Date.now());
      void this.move(entry.zone);
      return; // one move at a time
    }
  }

  private until(test: (m: ZoneThreadMessage, thread: number) => boolean): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }
}

type MessagePortLikeTransfer = import('node:worker_threads').MessagePort;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
