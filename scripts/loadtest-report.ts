/** The load tester's figures: a sample per second, the progress line, and the summary with clients per core. */
import type { CapacityRun } from '../bench/capacity/result.js';
import type { RoomStats } from '../demo/room-process.js';
import { lossPercent } from './loadtest-loss.js';
import type { BotReport } from './loadtest-protocol.js';
import type { LoadtestOptions } from './loadtest-run.js';

/** One second of the run. */
export interface Sample {
  /** Seconds since the bots started. */
  at: number;
  /** Bots playing (connected, mirroring), as the bots say. */
  users: number;
  /** Clients joined in rooms, as the room servers' last heartbeats say. */
  serverClients: number;
  rooms: number;
  joins: number;
  failures: number;
  /**
   * Datagrams sent and received by the servers and the bots, both ways, since the bots started, up
   * to the latest instant every socket's counts have been reported for (loadtest-loss.ts): the
   * progress line's `loss so far` is the summary's loss up to then.
   */
  datagramsSent: number;
  datagramsReceived: number;
  /** Mean over the room processes hosting rooms of their mean room tick; the worst room tick of any. */
  tickMs: number;
  tickMaxMs: number;
  /** Summed over the room processes (100 = one core). */
  serverCpuPercent: number;
  botCpuPercent: number;
  /** The latest a bot process's timer ran in the second, ms. */
  botLagMs: number;
}

export interface Quantiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadSummary {
  clients: number;
  seconds: number;
  processes: number;
  botProcesses: number;
  mode: 'join' | 'matchmake';
  directory: string;
  seed: number;
  roomSize: number;
  rampSeconds: number;
  cpus: number;
  /** The seconds after the ramp the steady figures are taken over (all seconds when none are). */
  steadySeconds: number;
  peakUsers: number;
  /** Means over the steady seconds. */
  meanUsers: number;
  meanServerClients: number;
  joins: number;
  leaves: number;
  failures: Record<string, number>;
  joinMs: Quantiles;
  httpMs: Quantiles;
  /** Connect token → netcode connected; connected → first state applied. */
  handshakeMs: Quantiles;
  firstStateMs: Quantiles;
  snapshots: number;
  inputsSent: number;
  /** Inputs the servers' arenas took. */
  inputsTaken: number;
  tickMs: number;
  tickMaxMs: number;
  /**
   * Datagrams lost on the way, percent: 1 − arrived / sent over both directions, from the sockets'
   * own counts (arrived: delivered or waiting in the socket's queue; a datagram dropped by a full
   * kernel or socket receive queue is lost here), over the
   * whole run; the progress line's `loss so far` is the same up to its second (loadtest-loss.ts).
   */
  lossPercent: number;
  /** Bots → servers: 1 − servers received / bots sent, percent. */
  upLossPercent: number;
  /** Servers → bots: 1 − bots received / servers sent, percent. */
  downLossPercent: number;
  serverSent: number;
  serverReceived: number;
  botsSent: number;
  botsReceived: number;
  /** Datagrams the bots' sockets dropped (their receive queue full). */
  botsDropped: number;
  serverCpuPercent: number;
  botCpuPercent: number;
  /**
   * Players per core over the steady window (players playing ÷ the room processes' CPU in cores,
   * from /proc): null when the servers did not keep up (`capacity.notes` says why) or the run had
   * no window (too short for the ramp and the warm-up).
   */
  clientsPerCore: number | null;
  /** The steady window's figures and keep-up verdict (null: no window). */
  capacity: CapacityRun | null;
  /** From the room servers' last counters. */
  serverJoins: number;
  serverLeaves: number;
  serverRefused: Record<string, number>;
  serverErrors: number;
  hookErrors: number;
  directoryErrors: number;
}

export function quantiles(values: readonly number[]): Quantiles {
  if (values.length === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const fixed = (n: number, digits = 1) => n.toFixed(digits);

export function progressLine(s: Sample, totals: BotReport): string {
  const join = quantiles(totals.joinMs);
  const http = quantiles(totals.httpMs);
  const loss = lossPercent(s.datagramsSent, s.datagramsReceived);
  return [
    `${fixed(s.at, 0).padStart(4)}s`,
    `users ${s.users} (server ${s.serverClients} in ${s.rooms} rooms)`,
    `joins/s ${s.joins}${s.failures > 0 ? ` failed ${s.failures}` : ''}`,
    `join p50/p99 ${fixed(join.p50, 0)}/${fixed(join.p99, 0)} ms (http ${fixed(http.p50, 0)}/${fixed(http.p99, 0)})`,
    `tick ${fixed(s.tickMs, 2)}/${fixed(s.tickMaxMs, 1)} ms`,
    `loss so far ${fixed(loss, 2)}% of ${Math.round(s.datagramsSent)}`,
    `cpu servers ${fixed(s.serverCpuPercent, 0)}% bots ${fixed(s.botCpuPercent, 0)}% (lag ${fixed(s.botLagMs, 0)} ms)`,
  ].join(' · ');
}

export function summarize(run: {
  options: LoadtestOptions & { rampSeconds: number; roomSize: number };
  directory: string;
  samples: readonly Sample[];
  totals: BotReport;
  rooms: readonly RoomStats[];
  cpus: number;
  capacity: CapacityRun | null;
}): LoadSummary {
  const { options, samples, totals, rooms } = run;
  // Steady: a second past the ramp, so the heartbeats' CPU periods hold no arrivals.
  let steady = samples.filter((s) => s.at > options.rampSeconds + 1 && s.serverClients > 0);
  if (steady.length === 0) steady = samples.filter((s) => s.serverClients > 0);
  const mean = (pick: (s: Sample) => number) =>
    steady.length === 0 ? 0 : steady.reduce((sum, s) => sum + pick(s), 0) / steady.length;
  const meanServerClients = mean((s) => s.serverClients);
  const serverCpu = mean((s) => s.serverCpuPercent);
  const refused: Record<string, number> = {};
  for (const r of rooms)
    for (const [why, n] of Object.entries(r.refused)) refused[why] = (refused[why] ?? 0) + n;
  const sum = (pick: (r: RoomStats) => number) => rooms.reduce((n, r) => n + pick(r), 0);
  const serverSent = sum((r) => r.udp.sent);
  // Arrived: delivered, or waiting in the socket's queue when the counters were read.
  const serverReceived = sum((r) => r.udp.received + r.udp.queued);
  return {
    clients: options.clients,
    seconds: options.seconds,
    processes: options.processes,
    botProcesses: options.botProcesses,
    mode: options.mode,
    directory: run.directory,
    seed: options.seed,
    roomSize: options.roomSize,
    rampSeconds: options.rampSeconds,
    cpus: run.cpus,
    steadySeconds: steady.length,
    peakUsers: samples.reduce((m, s) => Math.max(m, s.users), 0),
    meanUsers: mean((s) => s.users),
    meanServerClients,
    joins: totals.joins,
    leaves: totals.leaves,
    failures: totals.failures,
    joinMs: quantiles(totals.joinMs),
    httpMs: quantiles(totals.httpMs),
    handshakeMs: quantiles(totals.handshakeMs),
    firstStateMs: quantiles(totals.firstStateMs),
    snapshots: totals.snapshots,
    inputsSent: totals.inputs,
    inputsTaken: sum((r) => r.inputsTaken),
    tickMs: mean((s) => s.tickMs),
    tickMaxMs: samples.reduce((m, s) => Math.max(m, s.tickMaxMs), 0),
    lossPercent: lossPercent(serverSent + totals.udpSent, serverReceived + totals.udpReceived),
    upLossPercent: lossPercent(totals.udpSent, serverReceived),
    downLossPercent: lossPercent(serverSent, totals.udpReceived),
    serverSent,
    serverReceived,
    botsSent: totals.udpSent,
    botsReceived: totals.udpReceived,
    botsDropped: totals.udpDropped,
    serverCpuPercent: serverCpu,
    botCpuPercent: mean((s) => s.botCpuPercent),
    clientsPerCore: run.capacity?.playersPerCore ?? null,
    capacity: run.capacity,
    serverJoins: sum((r) => r.joins),
    serverLeaves: sum((r) => r.leaves),
    serverRefused: refused,
    serverErrors: sum((r) => r.errors),
    hookErrors: sum((r) => r.hookErrors),
    directoryErrors: sum((r) => r.directoryErrors),
  };
}

export function formatSummary(s: LoadSummary): string {
  const failures = Object.entries(s.failures).map(([why, n]) => `${why}: ${n}`);
  const refused = Object.entries(s.serverRefused).map(([why, n]) => `${why}: ${n}`);
  return [
    `loadtest summary (seed ${s.seed}; replay with --seed ${s.seed})`,
    `  ${s.clients} bots in ${s.botProcesses} process(es), ${s.processes} room process(es), ${s.mode}, directory ${s.directory}, rooms of ${s.roomSize} at 20 Hz, ${s.cpus} cores shared by bots and servers`,
    `  users: peak ${s.peakUsers}, mean ${fixed(s.meanUsers)} (server ${fixed(s.meanServerClients)}) over ${s.steadySeconds} steady s (after the ${fixed(s.rampSeconds)} s ramp)`,
    `  joins ${s.joins} · leaves ${s.leaves} · failures ${failures.length === 0 ? 0 : failures.join(', ')}`,
    `  join (auth → first snapshot) p50 ${fixed(s.joinMs.p50)} ms · p99 ${fixed(s.joinMs.p99)} ms · max ${fixed(s.joinMs.max)} ms (n=${s.joinMs.count})`,
    `  of which: http (auth → connect token) p50 ${fixed(s.httpMs.p50)} ms · p99 ${fixed(s.httpMs.p99)} ms (n=${s.httpMs.count}) · handshake (token → connected) p50 ${fixed(s.handshakeMs.p50)} · p99 ${fixed(s.handshakeMs.p99)} ms · first state (connected → applied) p50 ${fixed(s.firstStateMs.p50)} · p99 ${fixed(s.firstStateMs.p99)} ms`,
    `  server tick mean ${fixed(s.tickMs, 3)} ms · max ${fixed(s.tickMaxMs, 2)} ms · datagram loss ${fixed(s.lossPercent, 2)}%: up ${fixed(s.upLossPercent, 2)}% (${s.serverReceived} of ${s.botsSent}), down ${fixed(s.downLossPercent, 2)}% (${s.botsReceived} of ${s.serverSent})`,
    `  snapshots received ${s.snapshots} · inputs sent ${s.inputsSent}, taken by the servers ${s.inputsTaken}`,
    `  servers: joins ${s.serverJoins}, leaves ${s.serverLeaves}, refused ${refused.length === 0 ? 0 : refused.join(', ')}, errors ${s.serverErrors}`,
    `  cpu: room servers ${fixed(s.serverCpuPercent)}% · bots ${fixed(s.botCpuPercent)}% (100% = one core)`,
    ...formatCapacity(s.capacity),
  ].join('\n');
}

/** The steady window's lines: the keep-up verdict, and players per core only when the servers kept up. */
export function formatCapacity(c: CapacityRun | null): string[] {
  if (c === null)
    return ['  players per core: none (no steady window: the run is too short for its ramp and warm-up)'];
  const percent = (ratio: number) => `${fixed(100 * ratio)}%`;
  const ticks = c.tickRate * c.windowSeconds;
  const lines = [
    `  steady window ${fixed(c.windowSeconds)} s, ${fixed(c.connected)} players: ticks on time ${percent(c.ticksOnTimeRatio)} · room-process event loop ${percent(c.eventLoopUtilization)} busy (the busiest)`,
    `  ${c.notes.join(' · ')}`,
    `  cpu over the window (/proc): room servers ${fixed(c.serverCpuSeconds, 2)} s = ${fixed(c.cpuUsPerPlayerTick)} µs per player per tick · bots ${fixed(c.botCpuSeconds, 2)} s = ${fixed(c.connected > 0 ? (c.botCpuSeconds / c.connected / c.windowSeconds) * 1e6 : 0, 0)} µs per player per second`,
    `  bytes per player: down ${fixed(c.downBytesPerPlayerSecond / 1000, 2)} kB/s · up ${fixed(c.upBytesPerPlayerSecond / 1000, 2)} kB/s (${c.bytesCounted}); ${fixed(ticks, 0)} ticks`,
  ];
  lines.push(
    c.playersPerCore === null
      ? '  players per core: NONE: the servers did not keep up (see above), so no capacity figure'
      : `  players per core: ${fixed(c.playersPerCore, 0)} (kept up: ${fixed(c.connected)} players / ${fixed(c.serverCpuSeconds / c.windowSeconds, 3)} room-server cores)`,
  );
  return lines;
}
