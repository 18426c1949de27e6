/**
 * The local server process manager (book ch.13): runs a machine's game server processes as forked
 * Node children, up to a capacity. Each child heartbeats its load over the IPC channel (see
 * reportToManager); one silent too long is killed and counted unhealthy (as Agones does when health
 * pings stop). A child that ends unasked is restarted after a backoff that doubles up to a cap, and
 * given up after too many short runs in a row (a crash loop). Whenever a child ends, its directory
 * entry is removed: its seats are released and PROCESS_GONE tells backends and clients.
 * Each run gets a fresh process id: the one that died is gone for good in the directory.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Directory, ProcessLoad, ProcessState } from './directory.js';
import { serveDirectory } from './ipc-directory.js';
import { childEndpoint, ignoreSendError } from './ipc-endpoint.js';
import {
  type DrainRequest,
  HEARTBEAT_MS_ENV,
  managerTag,
  PROCESS_ID_ENV,
  parseHeartbeat,
} from './manager-protocol.js';
import {
  checkManagerOptions,
  type ProcessManagerOptions,
  type ResolvedManagerOptions,
} from './process-manager-options.js';
import {
  type MachineReport,
  machineReport,
  type ProcessManagerReport,
  type ProcessReport,
} from './process-report.js';
import { randomId } from './seat-token.js';

export type { ProcessManagerOptions } from './process-manager-options.js';
export type { MachineReport, ProcessManagerReport, ProcessReport } from './process-report.js';

export interface ProcessManagerEvents {
  /** A child was forked (first start or restart). */
  started: [processId: string, pid: number];
  /** Its first heartbeat arrived. */
  healthy: [processId: string];
  /** It stayed silent too long and is being killed. */
  unhealthy: [processId: string, reason: string];
  /** It ended (after its directory entry was removed). */
  exited: [processId: string, code: number | null, signal: NodeJS.Signals | null];
  /** A replacement was forked for a child that ended unasked; attempt counts short runs in a row. */
  restarted: [processId: string, previousProcessId: string, attempt: number];
  /** Too many short runs in a row: its place is not restarted again. */
  gaveUp: [lastProcessId: string, failures: number];
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DrainOutcome extends ExitInfo {
  /** True when the child reported its rooms ended before the drain timeout. */
  drained: boolean;
}

/** A place for one child: it outlives the runs restarted in it. */
interface Slot {
  run: Run | null;
  failures: number;
  restarts: number;
  timer: NodeJS.Timeout | null;
}

/** One forked child. */
interface Run {
  slot: Slot;
  child: ChildProcess;
  processId: string;
  pid: number;
  spawnedAt: number;
  heartbeatAt: number;
  state: ProcessState;
  load: ProcessLoad;
  rssBytes: number;
  cpuPercent: number;
  /** The manager asked it to end: no restart. */
  stopping: Promise<DrainOutcome> | null;
  killedSilent: boolean;
  drainRequested: boolean;
  drained: () => void;
  drainedSeen: Promise<void>;
  ended: boolean;
  exit: Promise<ExitInfo>;
}

export class ProcessManager extends EventEmitter<ProcessManagerEvents> {
  private readonly options: ResolvedManagerOptions;
  private readonly directory: Directory | null;
  private readonly slots = new Set<Slot>();
  private readonly runs = new Map<string, Run>();
  private monitor: NodeJS.Timeout | null = null;
  private stopped = false;
  private unhealthyCount = 0;
  /** Pending start() calls, looking again whenever a child is heard from or ends. */
  private readonly waiters = new Set<() => void>();

  constructor(options: ProcessManagerOptions) {
    super();
    this.options = checkManagerOptions(options);
    this.directory = options.directory ?? null;
  }

  /**
   * Runs `count` processes (default maxProcesses), forking the missing ones; resolves with the
   * running ids once each has sent its first heartbeat, rejects if one gives up (crash loop).
   */
  start(count = this.options.maxProcesses): Promise<string[]> {
    if (!Number.isInteger(count) || count < 0 || count > this.options.maxProcesses)
      throw new RangeError(`count must be an integer in 0..${this.options.maxProcesses}, got ${count}`);
    if (this.stopped) throw new Error('process manager stopped');
    const mine: Slot[] = [];
    while (this.slots.size < count) {
      const slot: Slot = { run: null, failures: 0, restarts: 0, timer: null };
      this.slots.add(slot);
      mine.push(slot);
      this.spawn(slot);
    }
    this.monitor ??= setInterval(() => this.check(), this.options.checkIntervalMs).unref();
    return new Promise((resolve, reject) => {
      const settle = () => {
        if (mine.some((slot) => !this.slots.has(slot))) {
          this.waiters.delete(settle);
          reject(new Error(this.stopped ? 'process manager stopped' : 'a server process gave up starting'));
        } else if (mine.every((slot) => slot.run !== null && slot.run.heartbeatAt > 0)) {
          this.waiters.delete(settle);
          resolve([...this.runs.keys()]);
        }
      };
      this.waiters.add(settle);
      settle();
    });
  }

  /**
   * Asks a child to drain (stop taking rooms, finish them), waits until it reports none left or
   * drainTimeoutMs, then stops it: SIGTERM, and SIGKILL after killGraceMs. It is not restarted.
   */
  drain(processId: string, timeoutMs = this.options.drainTimeoutMs): Promise<DrainOutcome> {
    checkTimeout(timeoutMs);
    const run = this.runs.get(processId);
    if (run === undefined) throw new RangeError(`no running process ${processId}`);
    run.stopping ??= this.finish(run, timeoutMs);
    return run.stopping;
  }

  /** Stops every child (draining each first unless `drain` is false); no restarts after this. */
  async stop(options: { drain?: boolean; timeoutMs?: number } = {}): Promise<void> {
    // Checked before anything stops: a bad timeout would otherwise kill every child at once.
    if (options.timeoutMs !== undefined) checkTimeout(options.timeoutMs);
    this.stopped = true;
    if (this.monitor !== null) clearInterval(this.monitor);
    this.monitor = null;
    for (const slot of this.slots) if (slot.timer !== null) clearTimeout(slot.timer);
    const timeoutMs = options.drain === false ? 0 : (options.timeoutMs ?? this.options.drainTimeoutMs);
    await Promise.all([...this.runs.values()].map((run) => (run.stopping ??= this.finish(run, timeoutMs))));
    this.slots.clear();
    this.wake();
  }

  /** Load per process (from its last heartbeat) and for the machine. */
  report(): ProcessManagerReport {
    const processes: ProcessReport[] = [];
    for (const run of this.runs.values())
      processes.push({
        processId: run.processId,
        pid: run.pid,
        state: run.state,
        healthy: run.heartbeatAt > 0 && !run.killedSilent,
        startedAt: run.spawnedAt,
        heartbeatAt: run.heartbeatAt,
        restarts: run.slot.restarts,
        load: { ...run.load },
        rssBytes: run.rssBytes,
        cpuPercent: run.cpuPercent,
      });
    const machine: MachineReport = machineReport(processes, this.unhealthyCount);
    return { machine, processes };
  }

  private spawn(slot: Slot): Run {
    const processId = randomId();
    const out = this.options.stdio;
    const child = fork(this.options.modulePath, this.options.args, {
      env: {
        ...process.env,
        ...this.options.env,
        [PROCESS_ID_ENV]: processId,
        [HEARTBEAT_MS_ENV]: String(this.options.heartbeatIntervalMs),
      },
      execArgv: this.options.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', out, out, 'ipc'],
    });
    let drained = () => {};
    const drainedSeen = new Promise<void>((resolve) => {
      drained = resolve;
    });
    let exited: (info: ExitInfo) => void = () => {};
    const run: Run = {
      slot,
      child,
      processId,
      pid: child.pid ?? -1,
      spawnedAt: Date.now(),
      heartbeatAt: 0,
      state: 'starting',
      load: { rooms: 0, clients: 0, tickMs: 0, tickMaxMs: 0 },
      rssBytes: 0,
      cpuPercent: 0,
      stopping: null,
      killedSilent: false,
      drainRequested: false,
      drained,
      drainedSeen,
      ended: false,
      exit: new Promise((resolve) => {
        exited = resolve;
      }),
    };
    slot.run = run;
    this.runs.set(processId, run);
    const unserve = this.directory === null ? null : serveDirectory(child, this.directory);
    child.on('message', (message) => this.onMessage(run, message));
    const onEnd = (code: number | null, signal: NodeJS.Signals | null) => {
      if (run.ended) return;
      run.ended = true;
      unserve?.();
      void this.ended(run, { code, signal }).finally(() => {
        exited({ code, signal });
        this.wake();
      });
    };
    child.on('exit', onEnd);
    // A fork that could not start emits only 'error'.
    child.on('error', () => {
      if (child.pid === undefined) onEnd(null, null);
    });
    if (child.pid !== undefined) this.emit('started', processId, child.pid);
    return run;
  }

  private onMessage(run: Run, message: unknown): void {
    const tag = managerTag(message);
    if (tag === 'heartbeat') {
      const beat = parseHeartbeat(message);
      if (beat === null || run.ended) return;
      const first = run.heartbeatAt === 0;
      run.heartbeatAt = Date.now();
      run.state = beat.state;
      run.load = beat.load;
      run.rssBytes = beat.rssBytes;
      run.cpuPercent = beat.cpuPercent;
      // 'draining' proves the beat was sent after the child got the request.
      if (run.drainRequested && beat.state === 'draining' && beat.load.rooms === 0) run.drained();
      if (first) {
        this.emit('healthy', run.processId);
        this.wake();
      }
    } else if (tag === 'drained' && run.drainRequested) {
      run.drained();
    }
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Kills children silent for too long (or never heard from within startupTimeoutMs). */
  private check(): void {
    const now = Date.now();
    for (const run of this.runs.values()) {
      if (run.ended || run.killedSilent) continue;
      const silentFor = run.heartbeatAt === 0 ? now - run.spawnedAt : now - run.heartbeatAt;
      const limit = run.heartbeatAt === 0 ? this.options.startupTimeoutMs : this.options.heartbeatTimeoutMs;
      if (silentFor <= limit) continue;
      run.killedSilent = true;
      this.unhealthyCount++;
      const reason =
        run.heartbeatAt === 0 ? `no first heartbeat in ${limit} ms` : `no heartbeat for ${silentFor} ms`;
      this.emit('unhealthy', run.processId, reason);
      run.child.kill('SIGKILL');
    }
  }

  private async finish(run: Run, timeoutMs: number): Promise<DrainOutcome> {
    let drained = false;
    if (!run.ended && timeoutMs > 0) {
      run.drainRequested = true;
      childEndpoint(run.child).send({ gw: 'drain' } satisfies DrainRequest, ignoreSendError);
      const outcome = await within(
        Promise.race([
          run.drainedSeen.then(() => 'drained' as const),
          run.exit.then(() => 'exited' as const),
        ]),
        timeoutMs,
      );
      drained = outcome === 'drained';
    }
    if (!run.ended) run.child.kill('SIGTERM');
    if ((await within(run.exit, this.options.killGraceMs)) === null && !run.ended) run.child.kill('SIGKILL');
    return { drained, ...(await run.exit) };
  }

  /** A child ended: its directory entry goes, then it is restarted unless that was asked. */
  private async ended(run: Run, info: ExitInfo): Promise<void> {
    this.runs.delete(run.processId);
    const slot = run.slot;
    slot.run = null;
    if (this.directory !== null) await this.directory.removeProcess(run.processId).catch(() => {});
    this.emit('exited', run.processId, info.code, info.signal);
    if (run.stopping !== null || this.stopped) {
      this.slots.delete(slot);
      return;
    }
    const ranFor = Date.now() - run.spawnedAt;
    slot.failures = ranFor >= this.options.stableRunMs ? 1 : slot.failures + 1;
    if (slot.failures > this.options.crashLoopLimit) {
      this.slots.delete(slot);
      this.emit('gaveUp', run.processId, slot.failures);
      return;
    }
    const delay = Math.min(
      this.options.maxRestartDelayMs,
      this.options.restartDelayMs * 2 ** (slot.failures - 1),
    );
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (this.stopped || !this.slots.has(slot)) return;
      slot.restarts++;
      const next = this.spawn(slot);
      this.emit('restarted', next.processId, run.processId, slot.failures);
    }, delay);
  }
}

/** The promise's value, or null when it takes longer than ms (the timer is cleared either way). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A drain's timeout: NaN or a negative one would skip the drain; a setTimeout cannot wait Infinity. */
function checkTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
    throw new RangeError(`timeoutMs must be a finite number >= 0, got ${timeoutMs}`);
}
