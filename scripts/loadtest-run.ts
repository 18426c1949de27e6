/**
 * The load tester's run: a directory (embedded and served to the children over IPC, or Redis), the
 * HTTP backend in this process (no rate limit: every bot comes from 127.0.0.1), a Matchmaker when
 * bots matchmake, a ProcessManager running `processes` room servers (demo/room-process.ts) and
 * `botProcesses` bot processes (scripts/loadtest-bots.ts). A progress line each second; the
 * summary at the end (scripts/loadtest-report.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ARENA_PROTOCOL_ID, ARENA_ROOM } from '../demo/arena-room.js';
import type { RoomStats } from '../demo/room-process.js';
import {
  createBackend,
  createMatchRoom,
  type Directory,
  EmbeddedDirectory,
  Matchmaker,
  ProcessManager,
  RedisDirectory,
  serveBackend,
} from '../src/services/index.js';
import { RedisServer } from '../test/support/redis.js';
import { AlignedDatagramCounts } from './loadtest-loss.js';
import { type BotReport, type BotsConfig, emptyReport, type WindowReport } from './loadtest-protocol.js';
import { type LoadSummary, progressLine, quantiles, type Sample, summarize } from './loadtest-report.js';
import {
  capacityOfWindow,
  procCpuSeconds,
  procRunqueueWaitSeconds,
  RoomStatsLog,
  type WindowEnds,
} from './loadtest-window.js';

export interface LoadtestOptions {
  clients: number;
  seconds: number;
  processes: number;
  botProcesses: number;
  mode: 'join' | 'matchmake';
  /** A Redis URL, 'local' (a redis-server started on a free port), or undefined (embedded). */
  redis?: string;
  seed: number;
  /** Seats per arena room (default 32). */
  roomSize?: number;
  /** Arrivals spread over this long (default min(seconds / 3, clients / 100), at least 1). */
  rampSeconds?: number;
  /** Mean session length before a bot leaves and comes back (default 20 s). */
  sessionSeconds?: number;
  gapSeconds?: number;
  /** Told each progress line (default: none). */
  onProgress?: (line: string) => void;
  /** The children's output: inherited (default) or discarded. */
  stdio?: 'inherit' | 'ignore';
  /** Seconds after the ramp (and a second more) before the steady window opens (default 2). */
  warmupSeconds?: number;
  /** Light bots (default) or full ones (a ClientMirror each): see BotsConfig.light. */
  bots?: 'light' | 'full';
  /** The room processes busy-wait this long every 50 ms (default 0): a starved server, for the load tester's own test. */
  starveMs?: number;
}

/** The rooms' tick rate. */
export const TICK_RATE = 20;

const STATS_CHANNEL = 'loadtest:stats';
const ROOM_PROCESS = fileURLToPath(new URL('../demo/room-process.js', import.meta.url));
const BOT_PROCESS = fileURLToPath(new URL('./loadtest-bots.js', import.meta.url));

export async function runLoadtest(options: LoadtestOptions): Promise<LoadSummary> {
  const ramp = options.rampSeconds ?? Math.max(1, Math.min(options.seconds / 3, options.clients / 100));
  const key = randomBytes(32);
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const cleanup = async () => {
    for (const undo of cleanups.reverse()) await Promise.resolve(undo()).catch(() => {});
  };
  try {
    let redisUrl = options.redis;
    if (redisUrl === 'local') {
      const server = await RedisServer.start();
      cleanups.push(() => server.dispose());
      redisUrl = server.url;
    }
    let directory: Directory;
    if (redisUrl === undefined) directory = new EmbeddedDirectory();
    else {
      const redis = await RedisDirectory.connect({ url: redisUrl });
      cleanups.push(() => redis.close());
      directory = redis;
    }
    const roomStats = new Map<string, RoomStats>();
    const statsLog = new RoomStatsLog();
    const datagrams = new AlignedDatagramCounts();
    const unsubscribe = await directory.subscribe(STATS_CHANNEL, (message) => {
      const stats = parseRoomStats(message);
      if (stats === null) return; // not a room process's counters: nothing to sum
      roomStats.set(stats.processId, stats);
      statsLog.add(stats);
      datagrams.record(`room ${stats.processId}`, stats.countedAt / 1000, stats.udp.sent, arrived(stats));
      if (process.env.GW_LOADTEST_DEBUG) console.log(JSON.stringify(stats));
    });
    cleanups.push(unsubscribe);

    const roomSize = options.roomSize ?? 32;
    const matchmaker =
      options.mode === 'matchmake'
        ? new Matchmaker({
            directory,
            pools: {
              [ARENA_ROOM]: {
                minPlayers: 1,
                maxPlayers: roomSize,
                skillWindow: { initial: 1e9, perSecond: 0, max: 1e9 },
                fillWaitMs: 250,
              },
            },
            onMatch: () => createMatchRoom({ directory, name: ARENA_ROOM, transport: 'udp' }),
          })
        : undefined;
    if (matchmaker !== undefined) {
      matchmaker.start(100);
      cleanups.push(() => matchmaker.stop());
    }
    const backend = createBackend({
      directory,
      privateKey: key,
      protocolId: ARENA_PROTOCOL_ID,
      rateLimit: false,
      roomTypes: [ARENA_ROOM],
      matchmaker,
    });
    const served = await serveBackend(backend);
    cleanups.push(() => served.close());

    const args = [
      '--room-size',
      `${roomSize}`,
      '--stats-channel',
      STATS_CHANNEL,
      '--tick-rate',
      `${TICK_RATE}`,
    ];
    if ((options.starveMs ?? 0) > 0) args.push('--starve-ms', `${options.starveMs}`);
    args.push('--slots', `${Math.max(64, Math.ceil((options.clients * 1.5) / options.processes))}`);
    if (redisUrl !== undefined) args.push('--redis', redisUrl);
    const manager = new ProcessManager({
      modulePath: ROOM_PROCESS,
      args,
      maxProcesses: options.processes,
      directory,
      env: { GW_ROOM_KEY: key.toString('hex') },
      // Node flags for the room servers, to profile them: GW_ROOM_EXEC_ARGV="--cpu-prof".
      execArgv: process.env.GW_ROOM_EXEC_ARGV?.split(' ').filter((a) => a !== '') ?? [],
      heartbeatIntervalMs: 500,
      startupTimeoutMs: 20_000,
      stdio: options.stdio ?? 'inherit',
    });
    cleanups.push(() => manager.stop({ drain: false }));
    await manager.start();
    await until('the room processes listed', 20_000, async () => {
      const listed = await directory.listProcesses();
      return listed.filter((p) => p.state === 'ready').length >= options.processes;
    });

    // No game datagram before the bots start: every socket's counts are zero then.
    datagrams.begin(seconds());
    const bots = startBots(options, served.url, ramp, options.stdio ?? 'inherit');
    for (let i = 0; i < options.botProcesses; i++) datagrams.expect(`bots ${i}`);
    cleanups.push(() => bots.kill());
    const samples: Sample[] = [];
    const started = performance.now();
    const totals = emptyReport();
    let interval = emptyReport();
    const botCounts = new Map<number, { sent: number; received: number }>();
    bots.onReport = (report, index) => {
      merge(totals, report);
      merge(interval, report);
      const own = botCounts.get(index) ?? { sent: 0, received: 0 };
      own.sent += report.udpSent;
      own.received += report.udpReceived;
      botCounts.set(index, own);
      datagrams.record(`bots ${index}`, report.countedAt / 1000, own.sent, own.received);
    };
    // The steady window: from a second past the ramp and the warm-up to the end of play.
    const lastSecond = Math.ceil(options.seconds);
    const windowFrom = Math.ceil(ramp + 1 + (options.warmupSeconds ?? 2));
    let ends: ReturnType<typeof markWindow> | null = null;
    const markWindow = () => {
      const rooms = manager.report().processes.map((p) => p.pid);
      return {
        at: performance.now(),
        atMs: performance.timeOrigin + performance.now(),
        serverCpu: rooms.reduce((n, pid) => n + procCpuSeconds(pid), 0),
        serverWait: rooms.reduce((n, pid) => n + procRunqueueWaitSeconds(pid), 0),
        botCpu: bots.pids().reduce((n, pid) => n + procCpuSeconds(pid), 0),
        rooms,
      };
    };
    let window: WindowEnds | null = null;
    for (let second = 1; second <= lastSecond; second++) {
      await sleep(started + second * 1000 - performance.now());
      if (second === windowFrom && windowFrom < lastSecond) {
        ends = markWindow();
        bots.mark('start');
      }
      if (second === lastSecond && ends !== null) window = await closeWindow(ends);
      const sample = takeSample(manager, bots, interval, (performance.now() - started) / 1000);
      // Every socket's datagrams so far, at the latest instant they have all reported (loadtest-loss.ts).
      const counted = datagrams.countsAt(datagrams.commonInstant(seconds()));
      sample.datagramsSent = counted.sent;
      sample.datagramsReceived = counted.received;
      interval = emptyReport();
      samples.push(sample);
      options.onProgress?.(progressLine(sample, totals));
    }
    async function closeWindow(start: NonNullable<typeof ends>): Promise<WindowEnds> {
      const end = markWindow();
      const reports = await bots.mark('end');
      // The room processes' counters at (or just after) each end: they publish once a second.
      await until('the room counters after the window', 3000, () => {
        return statsLog.firstAtOrAfter(end.atMs).size >= start.rooms.length;
      }).catch(() => {});
      const totalsNow = quantiles(totals.joinMs);
      return {
        players: options.clients,
        roomSize,
        tickRate: TICK_RATE,
        seconds: (end.at - start.at) / 1000,
        serverCpu: [start.serverCpu, end.serverCpu],
        botCpu: [start.botCpu, end.botCpu],
        serverWait: [start.serverWait, end.serverWait],
        roomsAtStart: statsLog.firstAtOrAfter(start.atMs),
        roomsAtEnd: statsLog.firstAtOrAfter(end.atMs),
        bots: reports,
        joinMs: { p50: totalsNow.p50, p99: totalsNow.p99 },
      };
    }
    await bots.stop(15_000);
    // The servers' last counters: wait until they heard every leave (or 5 s), then one more period.
    const heard = () => {
      const all = [...roomStats.values()];
      return all.reduce((n, r) => n + r.joins - r.leaves, 0) === 0 && all.every((r) => r.load.clients === 0);
    };
    await until('the servers to hear the leaves', 5000, heard).catch(() => {});
    await sleep(1100);
    const summary = summarize({
      options: { ...options, rampSeconds: ramp, roomSize },
      directory: options.redis === undefined ? 'embedded' : `redis ${redisUrl}`,
      samples,
      totals,
      rooms: [...roomStats.values()],
      cpus: manager.report().machine.cpus,
      capacity: window === null ? null : capacityOfWindow(window),
    });
    return summary;
  } finally {
    await cleanup();
  }
}

interface Bots {
  playing(): number;
  /** The bot processes' ids (those that started). */
  pids(): number[];
  /** Tells every bot process the steady window starts or ends; at its end, their window figures. */
  mark(phase: 'start' | 'end'): Promise<WindowReport[]>;
  cpuPercent(): number;
  /** A bot process's report; `index` says which process. */
  onReport: (report: BotReport, index: number) => void;
  stop(timeoutMs: number): Promise<void>;
  kill(): void;
}

function startBots(
  options: LoadtestOptions,
  backendUrl: string,
  ramp: number,
  stdio: 'inherit' | 'ignore',
): Bots {
  const children: {
    child: ChildProcess;
    playing: number;
    cpu: number;
    final: boolean;
    window: WindowReport | null;
  }[] = [];
  const bots: Bots = {
    playing: () => children.reduce((n, c) => n + c.playing, 0),
    pids: () => children.flatMap((c) => (c.child.pid === undefined ? [] : [c.child.pid])),
    async mark(phase) {
      for (const c of children) {
        c.window = null;
        if (c.child.connected) c.child.send({ type: 'window', phase }, () => {});
      }
      if (phase === 'start') return [];
      const live = children.filter((c) => c.child.connected);
      await until("the bots' window figures", 5000, () => live.every((c) => c.window !== null)).catch(
        () => {},
      );
      return live.flatMap((c) => (c.window === null ? [] : [c.window]));
    },
    cpuPercent: () => children.reduce((n, c) => n + c.cpu, 0),
    onReport: () => {},
    async stop(timeoutMs) {
      for (const c of children) if (c.child.connected) tellStop(c.child);
      await until('the bots to leave', timeoutMs, () => children.every((c) => c.final)).catch(() => {});
    },
    kill() {
      for (const c of children) if (c.child.exitCode === null) c.child.kill();
    },
  };
  let first = 0;
  for (let i = 0; i < options.botProcesses; i++) {
    const count =
      Math.floor(options.clients / options.botProcesses) +
      (i < options.clients % options.botProcesses ? 1 : 0);
    const config: BotsConfig = {
      backendUrl,
      bots: count,
      firstBot: first,
      mode: options.mode,
      seed: (options.seed + i * 0x9e3779b9) >>> 0,
      rampSeconds: ramp,
      sessionSeconds: options.sessionSeconds ?? 20,
      gapSeconds: options.gapSeconds ?? 1,
      light: (options.bots ?? 'light') === 'light',
      tickRate: TICK_RATE,
    };
    first += count;
    const child = fork(BOT_PROCESS, [JSON.stringify(config)], {
      // Node flags for the bot processes, to profile them: GW_BOT_EXEC_ARGV="--cpu-prof".
      execArgv: process.env.GW_BOT_EXEC_ARGV?.split(' ').filter((a) => a !== '') ?? [],
      stdio:
        stdio === 'ignore' ? ['ignore', 'ignore', 'ignore', 'ipc'] : ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    const entry = { child, playing: 0, cpu: 0, final: false, window: null as WindowReport | null };
    // A fork that failed, or a channel that broke: counted as ended (its exit may never come).
    child.on('error', () => {
      entry.final = true;
      entry.playing = 0;
    });
    child.on('message', (message) => {
      if ((message as { kind?: string }).kind === 'window') {
        entry.window = message as WindowReport;
        return;
      }
      const report = message as BotReport;
      entry.playing = report.playing;
      entry.cpu = report.cpuPercent;
      if (report.final) entry.final = true;
      bots.onReport(report, i);
    });
    child.on('exit', () => {
      entry.final = true;
      entry.playing = 0;
    });
    children.push(entry);
  }
  return bots;
}

/** A room process's published counters, or null for a message that is not (it would break the sums). */
export function parseRoomStats(message: string): RoomStats | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const isObject = (x: unknown) => typeof x === 'object' && x !== null;
  if (
    typeof v.processId !== 'string' ||
    typeof v.countedAt !== 'number' ||
    !isObject(v.udp) ||
    !isObject(v.load) ||
    !isObject(v.refused) ||
    !isObject(v.eventLoop)
  )
    return null;
  return value as RoomStats;
}

/**
 * Asks a bot process to stop. Its channel may close between the connected check and the send: with
 * no callback that error is emitted on the child, and would end this process.
 */
export function tellStop(child: Pick<ChildProcess, 'send'>): void {
  child.send({ type: 'stop' }, () => {});
}

function merge(into: BotReport, report: BotReport): void {
  into.joins += report.joins;
  into.leaves += report.leaves;
  for (const [reason, n] of Object.entries(report.failures))
    into.failures[reason] = (into.failures[reason] ?? 0) + n;
  for (const ms of report.joinMs) into.joinMs.push(ms);
  for (const ms of report.httpMs) into.httpMs.push(ms);
  for (const ms of report.handshakeMs) into.handshakeMs.push(ms);
  for (const ms of report.firstStateMs) into.firstStateMs.push(ms);
  into.snapshots += report.snapshots;
  into.inputs += report.inputs;
  into.lagMs = Math.max(into.lagMs, report.lagMs);
  into.udpSent += report.udpSent;
  into.udpReceived += report.udpReceived;
  into.udpDropped += report.udpDropped;
}

function takeSample(manager: ProcessManager, bots: Bots, interval: BotReport, at: number): Sample {
  const report = manager.report();
  let tickSum = 0;
  let tickMax = 0;
  let hosting = 0;
  for (const p of report.processes) {
    if (p.load.rooms === 0) continue;
    hosting++;
    tickSum += p.load.tickMs;
    tickMax = Math.max(tickMax, p.load.tickMaxMs);
  }
  return {
    at,
    users: bots.playing(),
    serverClients: report.machine.clients,
    rooms: report.machine.rooms,
    joins: interval.joins,
    failures: Object.values(interval.failures).reduce((a, b) => a + b, 0),
    datagramsSent: 0,
    datagramsReceived: 0,
    tickMs: hosting === 0 ? 0 : tickSum / hosting,
    tickMaxMs: tickMax,
    serverCpuPercent: report.machine.cpuPercent,
    botCpuPercent: bots.cpuPercent(),
    botLagMs: interval.lagMs,
  };
}

/** A room process's datagrams arrived: delivered to the server or waiting in its socket's queue. */
const arrived = (stats: RoomStats): number => stats.udp.received + stats.udp.queued;

/** The clock of the datagram counts, seconds since the epoch: every process on the machine shares it. */
const seconds = () => (performance.timeOrigin + performance.now()) / 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function until(what: string, ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`loadtest: timed out waiting for ${what}`);
    await sleep(50);
  }
}
