/**
 * The Colyseus side of the same-game capacity run: the demo arena as a Colyseus 0.18 room
 * (colyseus-room.ts) in ONE server process, driven by @colyseus/sdk bots in `botProcesses` other
 * processes over real WebSockets on loopback. Players join through the HTTP matchmaker spread over
 * a ramp; once all joined and `warmupSeconds` passed, the steady window of `seconds` is measured:
 * the server's CPU from /proc/PID/stat (user + system, every thread), its ticks, its event-loop
 * utilisation, and from the bots the patches each decoded and the bytes at their sockets.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type {
  BotsConfig,
  BotsProgress,
  BotsReport,
  Command,
  ServerConfig,
  ServerProgress,
  ServerReport,
} from './colyseus-protocol.js';
import { SEATS, TICK_RATE } from './colyseus-state.js';
import { type CapacityOptions, type CapacityRun, keptUp } from './result.js';

export interface ColyseusCapacityOptions extends CapacityOptions {
  /** Bots send checksums of their decoded state and the rooms compare them (default false: it costs CPU). */
  verify?: boolean;
  /** Encoder.BUFFER_SIZE in bytes (default 0: @colyseus/schema's own, 16 KB in 5.0.34, growing itself). */
  encoderBufferBytes?: number;
  /** Node flags for the server process (e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/p'] to profile it). */
  serverNodeArgs?: string[];
}

/** A CapacityRun with what only this runner knows. */
export interface ColyseusCapacityRun extends CapacityRun {
  /** Bots' checksums compared with the server's at the same patch, and how many differed (0, 0 unless verify). */
  checksCompared: number;
  checksMismatched: number;
  /** Console errors the bots' SDK printed over the whole run (e.g. `"refId" not found`), by first words. */
  clientErrors: Record<string, number>;
  /** Zaps the server judged in the window, and those within the hit radius of the orb's present place. */
  zaps: number;
  hits: number;
  /** Inputs the rooms took in the window ÷ (connected × ticks): 1 when every avatar moved every tick. */
  inputsTakenRatio: number;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
let clockTicks = 0;

/** utime + stime of a process from /proc (seconds), NaN where /proc is missing. */
function procCpuSeconds(pid: number): number {
  try {
    if (clockTicks === 0) clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start at state; utime, stime are 14th, 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return Number.NaN;
  }
}

/** Seconds a process's main thread spent waiting for a CPU while runnable (/proc/PID/schedstat), NaN without. */
function runQueueWaitSeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return Number.NaN;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** The next message of `type` from `child` (rejects if it exits first or after `timeoutMs`). */
function next<T>(child: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no '${type}' from a child within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: { type?: string }) => {
      if (message.type === type) done(null, message as T);
    };
    const onExit = (code: number | null) => done(new Error(`a child exited (${code}) before '${type}'`));
    const done = (error: Error | null, value?: T) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error !== null) reject(error);
      else resolve(value as T);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const send = (child: ChildProcess, command: Command) => child.send(command);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

export async function runColyseusCapacity(options: ColyseusCapacityOptions): Promise<ColyseusCapacityRun> {
  const { players, roomSize, seconds, warmupSeconds, botProcesses, seed } = options;
  for (const [name, value, min] of [
    ['players', players, 1],
    ['seconds', seconds, 1],
    ['warmupSeconds', warmupSeconds, 0],
    ['botProcesses', botProcesses, 1],
  ] as const)
    if (!Number.isInteger(value) || value < min)
      throw new RangeError(`runColyseusCapacity: ${name} must be an integer >= ${min}, got ${value}`);
  if (roomSize !== SEATS)
    throw new RangeError(
      `runColyseusCapacity: the arena's rooms seat ${SEATS} (its bot field), not ${roomSize}`,
    );
  const verify = options.verify ?? false;
  const rampSeconds = options.rampSeconds ?? Math.max(1, players / 25);
  const say = options.progress ?? (() => {});
  const port = await freePort();
  const serverConfig: ServerConfig = {
    port,
    seed,
    verify,
    encoderBufferBytes: options.encoderBufferBytes ?? 0,
  };
  const children: ChildProcess[] = [];
  const server = fork(here('./colyseus-server.js'), [JSON.stringify(serverConfig)], {
    stdio: 'inherit',
    execArgv: options.serverNodeArgs ?? [],
  });
  children.push(server);
  try {
    await next(server, 'ready', 20_000);
    const bots: ChildProcess[] = [];
    const per = Math.ceil(players / botProcesses);
    for (let p = 0, first = 0; first < players; p++, first += per) {
      const config: BotsConfig = {
        port,
        firstBot: first,
        bots: Math.min(per, players - first),
        rampSeconds,
        seed: (seed + 0x9e3779b9 * (p + 1)) >>> 0,
        verify,
      };
      const child = fork(here('./colyseus-bots.js'), [JSON.stringify(config)], { stdio: 'inherit' });
      bots.push(child);
      children.push(child);
    }
    // Progress: the latest from each process, a line a second.
    let serverProgress: ServerProgress = { type: 'progress', rooms: 0, players: 0, ticks: 0 };
    const botProgress = new Map<ChildProcess, BotsProgress>();
    const joinMs: number[] = [];
    const clientErrors: Record<string, number> = {};
    server.on('message', (m: { type?: string }) => {
      if (m.type === 'progress') serverProgress = m as ServerProgress;
    });
    for (const child of bots)
      child.on('message', (m: { type?: string }) => {
        if (m.type !== 'progress') return;
        const progress = m as BotsProgress;
        botProgress.set(child, progress);
        joinMs.push(...progress.joinMs);
      });
    const joined = () => [...botProgress.values()].reduce((n, p) => n + p.joined, 0);
    const failed = () => [...botProgress.values()].reduce((n, p) => n + p.failed, 0);
    const line = (phase: string) =>
      `colyseus ${phase}: ${joined()}/${players} joined, ${failed()} failed, ${serverProgress.rooms} rooms, ${serverProgress.players} seated`;
    const began = performance.now();
    const joinDeadline = began + (rampSeconds + 30) * 1000;
    while (joined() + failed() < players && performance.now() < joinDeadline) {
      await sleep(1000);
      say(line('joining'));
    }
    for (let s = 0; s < warmupSeconds; s++) {
      await sleep(1000);
      say(line('warm-up'));
    }
    const pids = bots.map((b) => b.pid as number);
    const serverCpu0 = procCpuSeconds(server.pid as number);
    const serverWait0 = runQueueWaitSeconds(server.pid as number);
    const botCpu0 = pids.map(procCpuSeconds);
    for (const child of children) send(child, { type: 'mark' });
    const windowStart = performance.now();
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      say(line(`window ${s + 1}/${seconds}s`));
    }
    const serverCpu1 = procCpuSeconds(server.pid as number);
    const serverWait = runQueueWaitSeconds(server.pid as number) - serverWait0;
    const botCpu1 = pids.map(procCpuSeconds);
    const windowSeconds = (performance.now() - windowStart) / 1000;
    const serverReport = next<ServerReport>(server, 'report', 10_000);
    const botReports = Promise.all(bots.map((b) => next<BotsReport>(b, 'report', 10_000)));
    for (const child of children) send(child, { type: 'report' });
    const sr = await serverReport;
    const brs = await botReports;
    for (const r of brs)
      for (const [key, n] of Object.entries(r.errors)) clientErrors[key] = (clientErrors[key] ?? 0) + n;
    const notes: string[] = [];
    let serverCpuSeconds = serverCpu1 - serverCpu0;
    if (!Number.isFinite(serverCpuSeconds)) {
      serverCpuSeconds = sr.cpuSeconds;
      notes.push('no /proc: server CPU from its own process.cpuUsage()');
    }
    let botCpuSeconds = botCpu1.reduce((sum, v, i) => sum + v - botCpu0[i], 0);
    if (!Number.isFinite(botCpuSeconds)) botCpuSeconds = brs.reduce((sum, r) => sum + r.cpuSeconds, 0);
    const connected = brs.reduce((n, r) => n + r.connected, 0);
    const patches = brs.flatMap((r) => r.patches);
    const expectedPatches = TICK_RATE * windowSeconds;
    const deliveredRatio = patches.length === 0 ? 0 : Math.min(...patches) / expectedPatches;
    // Every room's ticks due in the window; a tick counts when it began < one period after the room's last.
    const rooms = Math.ceil(connected / SEATS);
    const ticksOnTimeRatio = Math.min(1, sr.ticksOnTime / (rooms * TICK_RATE * windowSeconds));
    // The ticks each room ran (its setInterval drifts by each tick's lateness, so fewer than 20 a second).
    const ticks = sr.ticks / Math.max(1, rooms);
    const cpuUsPerPlayerTick = (serverCpuSeconds * 1e6) / (connected * ticks);
    const down = brs.reduce((n, r) => n + r.bytesDown, 0);
    const up = brs.reduce((n, r) => n + r.bytesUp, 0);
    joinMs.sort((a, b) => a - b);
    if (connected < players) notes.push(`${players - connected} of ${players} players not connected`);
    if (sr.rooms !== rooms) notes.push(`${sr.rooms} rooms made for ${rooms} needed`);
    if (Number.isFinite(serverWait))
      notes.push(
        `the server's event-loop thread waited ${serverWait.toFixed(2)} s for a CPU while runnable (/proc/PID/schedstat): more than a few % of the window means the machine, not the server, was short of CPU`,
      );
    notes.push(`each room ran ${(ticks / windowSeconds).toFixed(2)} ticks a second`);
    if (sr.inputsRejected > 0)
      notes.push(
        `${sr.inputsRejected} inputs refused (a player's queue of 8 full: its room ticked slower than the 20 Hz inputs came)`,
      );
    const errorCount = Object.values(clientErrors).reduce((n, v) => n + v, 0);
    if (errorCount > 0) notes.push(`clients printed ${errorCount} errors: ${JSON.stringify(clientErrors)}`);
    notes.push(
      'Colyseus judges zaps against present state (no rewind used); WebSocket over TCP, no encryption',
    );
    const run: ColyseusCapacityRun = {
      server: 'colyseus',
      players,
      connected,
      roomSize,
      tickRate: TICK_RATE,
      windowSeconds,
      serverCpuSeconds,
      cpuUsPerPlayerTick,
      playersPerCore: null,
      downBytesPerPlayerSecond: down / connected / windowSeconds,
      upBytesPerPlayerSecond: up / connected / windowSeconds,
      bytesCounted: 'WebSocket frames (TCP payload)',
      ticksOnTimeRatio,
      deliveredRatio,
      eventLoopUtilization: sr.eventLoopUtilization,
      keptUp: false,
      joinP50Ms: percentile(joinMs, 0.5),
      joinP99Ms: percentile(joinMs, 0.99),
      botCpuSeconds,
      notes,
      checksCompared: sr.checksCompared,
      checksMismatched: sr.checksMismatched,
      clientErrors,
      zaps: sr.zaps,
      hits: sr.hits,
      inputsTakenRatio: sr.inputsTaken / (connected * ticks),
    };
    run.keptUp = keptUp(run) && connected === players;
    if (run.keptUp) run.playersPerCore = connected / (serverCpuSeconds / windowSeconds);
    else notes.push('did not keep up: no players-per-core figure');
    if (verify && sr.checksUnmatched > 0) notes.push(`${sr.checksUnmatched} checks found no server record`);
    return run;
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.connected) send(child, { type: 'stop' });
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
          }),
      ),
    );
  }
}
