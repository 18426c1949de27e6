/**
 * The load tester's steady window: after the ramp and a warm-up, what the servers and bots did
 * over a stretch where nobody joins, and whether the servers kept up. Server and bot CPU come from
 * /proc (utime + stime of each process, read at the window's two ends); tick punctuality and
 * event-loop utilisation from the room processes' published counters (the first report at or after
 * each end, so a window up to a second later, of the same length); state packets delivered and
 * bytes from the bots' own counts. A run that did not keep up gets no capacity figure.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type CapacityRun, KEEP_UP_RATIO, keepUpFailures } from '../bench/capacity/result.js';
import type { RoomStats } from '../demo/room-process.js';
import type { WindowReport } from './loadtest-protocol.js';

/** The kernel's clock ticks per second (/proc's CPU unit). */
const CLOCK_TICKS = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used, from /proc/PID/stat; 0 when it is gone or there is no /proc. */
export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name in parentheses may hold spaces: the fields count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * Seconds a process has waited, runnable, for a CPU (the second field of /proc/PID/schedstat, ns);
 * 0 when it is gone or the kernel keeps no schedstats. A server starved by the machine (other
 * processes on its cores) waits here; one starved by its own work does not.
 */
export function procRunqueueWaitSeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9 || 0;
  } catch {
    return 0;
  }
}

/** Each room process's recent counters, to find those at or after an instant. */
export class RoomStatsLog {
  private readonly recent = new Map<string, RoomStats[]>();

  add(stats: RoomStats): void {
    const list = this.recent.get(stats.processId) ?? [];
    if (list.length === 0) this.recent.set(stats.processId, list);
    list.push(stats);
    if (list.length > 120) list.shift();
  }

  /** Per process, its first report counted at or after `atMs` (ms since the epoch); processes with none are left out. */
  firstAtOrAfter(atMs: number): Map<string, RoomStats> {
    const found = new Map<string, RoomStats>();
    for (const [id, list] of this.recent) {
      const stats = list.find((s) => s.countedAt >= atMs);
      if (stats !== undefined) found.set(id, stats);
    }
    return found;
  }
}

/** What the runner measured at the two ends of the window. */
export interface WindowEnds {
  players: number;
  roomSize: number;
  tickRate: number;
  /** The window, as the runner timed it (seconds). */
  seconds: number;
  /** /proc CPU seconds of the room processes and of the bot processes, at the start and the end. */
  serverCpu: [number, number];
  botCpu: [number, number];
  /** The room processes' seconds waiting for a CPU (procRunqueueWaitSeconds), at the start and the end. */
  serverWait: [number, number];
  /** The room processes' counters at (or just after) each end. */
  roomsAtStart: Map<string, RoomStats>;
  roomsAtEnd: Map<string, RoomStats>;
  /** Each bot process's window figures. */
  bots: WindowReport[];
  joinMs: { p50: number; p99: number };
}

/** The worst client's delivered ratio, the 5th percentile's, and how many clients were counted. */
export function deliveredQuantiles(values: readonly number[]): {
  worst: number;
  p5: number;
  clients: number;
} {
  if (values.length === 0) return { worst: 0, p5: 0, clients: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  return { worst: sorted[0], p5: sorted[Math.floor(0.05 * (sorted.length - 1))], clients: sorted.length };
}

/** The window's figures as a CapacityRun: no players-per-core figure unless the servers kept up. */
export function capacityOfWindow(w: WindowEnds): CapacityRun {
  let onTime = 0;
  let late = 0;
  let elu = 0;
  for (const [id, end] of w.roomsAtEnd) {
    const start = w.roomsAtStart.get(id);
    if (start === undefined) continue;
    onTime += end.ticksOnTime - start.ticksOnTime;
    late += end.ticksLate - start.ticksLate;
    const active = end.eventLoop.activeMs - start.eventLoop.activeMs;
    const idle = end.eventLoop.idleMs - start.eventLoop.idleMs;
    if (active + idle > 0) elu = Math.max(elu, active / (active + idle));
  }
  const connected = w.bots.reduce((n, b) => n + b.meanPlaying, 0);
  const delivered = deliveredQuantiles(w.bots.flatMap((b) => b.delivered));
  const serverCpuSeconds = w.serverCpu[1] - w.serverCpu[0];
  const ticks = w.tickRate * w.seconds;
  const perPlayerSecond = (bytes: number) => (connected > 0 ? bytes / connected / w.seconds : 0);
  const run: CapacityRun = {
    server: 'ghostwire',
    players: w.players,
    connected,
    roomSize: w.roomSize,
    tickRate: w.tickRate,
    windowSeconds: w.seconds,
    serverCpuSeconds,
    serverWaitSeconds: w.serverWait[1] - w.serverWait[0],
    cpuUsPerPlayerTick: connected > 0 ? (serverCpuSeconds / (connected * ticks)) * 1e6 : 0,
    playersPerCore: null,
    downBytesPerPlayerSecond: perPlayerSecond(w.bots.reduce((n, b) => n + b.bytesReceived, 0)),
    upBytesPerPlayerSecond: perPlayerSecond(w.bots.reduce((n, b) => n + b.bytesSent, 0)),
    bytesCounted: 'UDP payload (netcode packets, encrypted)',
    ticksOnTimeRatio: onTime + late === 0 ? 0 : onTime / (onTime + late),
    deliveredRatio: delivered.worst,
    eventLoopUtilization: elu,
    keptUp: false,
    joinP50Ms: w.joinMs.p50,
    joinP99Ms: w.joinMs.p99,
    botCpuSeconds: w.botCpu[1] - w.botCpu[0],
    notes: [],
  };
  const failures = keepUpFailures(run);
  // No client played through the window (too short after the ramp and warm-up): nothing to judge.
  if (delivered.clients === 0)
    failures.unshift(
      `no client played through the ${w.seconds.toFixed(1)} s steady window: too short to judge (more --seconds)`,
    );
  run.keptUp = failures.length === 0;
  if (run.keptUp) run.playersPerCore = connected / (serverCpuSeconds / w.seconds);
  else run.notes.push(`did not keep up: ${failures.join('; ')}`);
  run.notes.push(
    `delivered: worst client ${(100 * delivered.worst).toFixed(1)}%, 5th percentile ${(100 * delivered.p5).toFixed(1)}% of ${delivered.clients} clients (keep-up needs the worst ≥ ${100 * KEEP_UP_RATIO}%)`,
  );
  if (onTime + late === 0) run.notes.push('no room ticks counted in the window');
  const waited = (run.serverWaitSeconds ?? 0) / w.seconds;
  run.notes.push(
    `room processes waited for a CPU ${(1000 * waited).toFixed(0)} ms per second, runnable (/proc/PID/schedstat; on a CPU ${((1000 * serverCpuSeconds) / w.seconds).toFixed(0)} ms)${waited * w.seconds > serverCpuSeconds ? ': the machine starved them more than their own work did' : ''}`,
  );
  return run;
}
