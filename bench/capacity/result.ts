/** What either capacity runner is asked: the same game at the same size, so their runs compare. */
export interface CapacityOptions {
  players: number;
  /** Seats per room. */
  roomSize: number;
  /** The steady window, seconds (after the ramp, a second, and the warm-up). */
  seconds: number;
  warmupSeconds: number;
  botProcesses: number;
  seed: number;
  /** Joins spread over this many seconds (default players ÷ 25, at least 1: 256 join over about 10 s). */
  rampSeconds?: number;
  /** Called once a second while the run goes (a progress line). */
  progress?: (line: string) => void;
}

/**
 * What one capacity run reports, for either server (ghostwire's room server or the Colyseus copy
 * of the arena), so `npm run bench -- --only capacity` can print them side by side. Every figure
 * is over the steady window only (after every bot joined and a warm-up passed).
 */
export interface CapacityRun {
  server: 'ghostwire' | 'colyseus';
  /** Players asked for. */
  players: number;
  /** Players connected, the window's mean. */
  connected: number;
  /** Seats per room. */
  roomSize: number;
  /** Server ticks per second (20). */
  tickRate: number;
  /** The steady window measured (seconds). */
  windowSeconds: number;
  /** The server processes' CPU over the window (user + system, seconds, from /proc). */
  serverCpuSeconds: number;
  /**
   * Seconds the server processes waited, runnable, for a CPU over the window (/proc/PID/schedstat):
   * above their CPU time, the machine (other processes on its cores) starved them. Where measured.
   */
  serverWaitSeconds?: number;
  /** serverCpuSeconds ÷ (connected × ticks in the window), in µs. */
  cpuUsPerPlayerTick: number;
  /** connected ÷ (serverCpuSeconds ÷ windowSeconds); null when the server did not keep up. */
  playersPerCore: number | null;
  /** Bytes per player per second, server → client, as the bots' sockets received them (say what a byte counts in `bytesCounted`). */
  downBytesPerPlayerSecond: number;
  /** Bytes per player per second, client → server. */
  upBytesPerPlayerSecond: number;
  /** What a byte counts: e.g. 'UDP payload' or 'WebSocket frames (TCP payload)'. */
  bytesCounted: string;
  /** Fraction of the server's ticks run on time (within one tick period of their schedule). */
  ticksOnTimeRatio: number;
  /** The worst client's fraction of the state updates it should have received (tickRate × its seconds in the window). */
  deliveredRatio: number;
  /** The server processes' event-loop utilisation over the window (0..1; the busiest process). */
  eventLoopUtilization: number;
  /** ticksOnTimeRatio ≥ 0.95 and deliveredRatio ≥ 0.95 (and, where the runner checks it, connected ≥ 0.95 × players): keptUp(). */
  keptUp: boolean;
  /** Join time, from the HTTP request to the first state applied (ms). */
  joinP50Ms: number;
  joinP99Ms: number;
  /** The bots' processes' CPU over the window (seconds), to show what driving the load cost. */
  botCpuSeconds: number;
  /** Why the run did not keep up, or anything else a reader must know. */
  notes: string[];
}

export const KEEP_UP_RATIO = 0.95;

/** The figures keptUp judges; with `connected` and `players`, also that ≥ 95% of the players asked for were playing. */
export type KeepUpFigures = Pick<CapacityRun, 'ticksOnTimeRatio' | 'deliveredRatio'> &
  Partial<Pick<CapacityRun, 'connected' | 'players'>>;

export function keptUp(run: KeepUpFigures): boolean {
  return keepUpFailures(run).length === 0;
}

/** Each keep-up criterion the run failed, said plainly with by how much (empty: it kept up). */
export function keepUpFailures(run: KeepUpFigures): string[] {
  const failures: string[] = [];
  const percent = (ratio: number) => `${(100 * ratio).toFixed(1)}%`;
  const wanted = percent(KEEP_UP_RATIO);
  if (!(run.ticksOnTimeRatio >= KEEP_UP_RATIO))
    failures.push(`ticks on time ${percent(run.ticksOnTimeRatio)} < ${wanted}`);
  if (!(run.deliveredRatio >= KEEP_UP_RATIO))
    failures.push(`worst client's state packets delivered ${percent(run.deliveredRatio)} < ${wanted}`);
  if (
    run.connected !== undefined &&
    run.players !== undefined &&
    !(run.connected >= KEEP_UP_RATIO * run.players)
  )
    failures.push(`players connected ${run.connected.toFixed(1)} of ${run.players} < ${wanted}`);
  return failures;
}
