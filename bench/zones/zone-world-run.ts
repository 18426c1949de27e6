/**
 * One run of the zones bench: the 10,000-wanderer world (./zone-bench-rules.ts) as columns × rows
 * zones on one engine (./zone-world-engines.ts: zone threads and an in-process store, or zone
 * processes and a redis-server), the gateway in this process on loopback UDP, the bots in a child
 * process (./zone-bots.ts). After the joins and a warm-up (every wanderer in its zone), a steady
 * window: the CPU time of every part, and the zones' report counters, taken at both ends (a zone
 * reports once a second: the window's edges are that old), with a sample every 2 s in between for
 * the number of border entities.
 */
import { loadavg } from 'node:os';
import { fail } from '../harness.js';
import { JsonLineChild, sleep } from '../support/child-process.js';
import { machineCpu, machineCpuPercent } from '../support/process-stats.js';
import { zoneBenchGame } from './zone-bench-game.js';
import { type Latency, latencyOf, type ZoneCounters, zoneCounters } from './zone-counters.js';
import type { ZoneBenchEngine, ZoneWorldSample, ZoneWorldUnderTest } from './zone-world-engines.js';

export interface ZonesRunOptions {
  columns: number;
  rows: number;
  players: number;
  wanderers: number;
  windowSeconds: number;
  warmupSeconds: number;
  seed: number;
}

export interface ZonesRun {
  zones: number;
  layout: string;
  engine: ZoneBenchEngine;
  players: number;
  connected: number;
  windowSeconds: number;
  ticks: number;
  /** CPU over the window, seconds: every process of the world (bots apart), engine included. */
  cpuSeconds: number;
  gatewayCpuSeconds: number | null;
  cpuMsPerTick: number;
  cpuUsPerPlayerTick: number;
  /** The zones' share, and the engine's (redis-server; null when embedded: in the gateway's), ms per tick. */
  zoneCpuMsPerTick: number | null;
  engineCpuMsPerTick: number | null;
  handoffsPerSecond: number;
  handoffBytesPerHandoff: number;
  feedBytesPerEntityTick: number;
  /** Handoff latency over the window: decision tick → the destination's first step of the entity. */
  handoffLatency: Latency | null;
  /** Commit latencies (the zones' last 256 each at the window's end), ms. */
  commitP50Ms: number;
  commitP99Ms: number;
  commitsRefused: number;
  /** Entities within the interest radius of another zone, mean over the window's samples (all zones). */
  borderEntities: number;
  /** Handoff record bytes (the only zone-to-zone traffic) per border entity per tick. */
  crossZoneBytesPerBorderEntityTick: number | null;
  /** Bytes redis-server read and wrote per tick (feeds, commits, inbox reads, snapshots, leases). */
  engineBytesPerTick: number | null;
  ticksSkipped: number;
  lateArrivals: number;
  stampsLate: number;
  stampsOnTime: number;
  mispredictions: number;
  /** The bot process's CPU, and the whole machine's, over the window (% of one core). */
  botCpuPercent: number;
  machineBusyPercent: number | null;
  /** The 1-minute load average as the window opened (other work on the machine shows here). */
  loadAverage: number;
  /** Zone threads (embedded) or zone processes (Redis). */
  zoneHosts: number;
  entities: number;
  keptUp: boolean;
  notes: string[];
}

const botCpu = (m: Record<string, unknown>) => Number(m.cpuUser) + Number(m.cpuSystem);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const layoutName = (o: ZonesRunOptions) => `${o.columns}×${o.rows}`;

/** Runs the bots against `world` (started by the caller, closed here) and measures a window. */
export async function runZonedWorld(options: ZonesRunOptions, world: ZoneWorldUnderTest): Promise<ZonesRun> {
  const { columns, rows, players, wanderers } = options;
  const zones = columns * rows;
  const notes: string[] = [];
  const bots = new JsonLineChild({
    script: new URL('./zone-bots.js', import.meta.url).pathname,
    args: ['--url', world.url, '--players', String(players), '--seed', String(options.seed)],
    suite: 'zones',
    name: 'zone-bots',
  });
  try {
    const ready = await bots.next('ready', 120_000, 'joining the bots');
    if (Number(ready.failed) > 0) notes.push(`${ready.failed} bots did not join (${ready.firstError})`);
    if (Number(ready.connected) === 0)
      fail(`zones: no bot joined the ${zones}-zone world (${world.engine}): ${ready.firstError}`);
    // Warm-up: every wanderer in the zone that holds its position (zone 0 spawned them all), then a few seconds.
    const expected = wanderers + Number(ready.connected);
    const settleBy = performance.now() + 60_000;
    for (;;) {
      const s = await world.sample();
      const perZone = s.zones.map((z) => z.report?.entities ?? 0);
      // Random positions put within a few percent of a fair share in each zone once the handoffs are done.
      if (
        perZone.length === zones &&
        Math.max(...perZone) < (1.1 * expected) / zones &&
        zoneCounters(s).arriving === 0
      )
        break;
      if (performance.now() > settleBy) {
        notes.push(`entities had not settled in their zones after 60 s: ${perZone.join('/')}`);
        break;
      }
      await sleep(250);
    }
    await sleep(options.warmupSeconds * 1000);

    let markId = 0;
    const mark = async () => {
      bots.send({ type: 'mark', id: ++markId });
      return bots.next('mark', 10_000, 'asking the bots for their counters');
    };
    const start = await world.sample();
    const startBots = await mark();
    const startMachine = machineCpu();
    const loadAverage = loadavg()[0];
    const startMs = performance.now();
    let borderSum = 0;
    let borderSamples = 0;
    let end: ZoneWorldSample = start;
    for (const windowEndMs = startMs + options.windowSeconds * 1000; ; ) {
      await sleep(Math.min(2000, Math.max(0, windowEndMs - performance.now())));
      end = await world.sample();
      const near = end.zones.map((z) => z.nearBorder);
      if (near.every((n) => n !== null)) {
        borderSum += near.reduce((a: number, b) => a + (b ?? 0), 0);
        borderSamples++;
      }
      if (performance.now() >= windowEndMs) break;
    }
    const endMachine = machineCpu();
    const seconds = (performance.now() - startMs) / 1000;
    const endBots = await mark();
    return measure(options, world, {
      start,
      end,
      seconds,
      startBots,
      endBots,
      loadAverage,
      notes,
      expected,
      borderMean: borderSamples > 0 ? borderSum / borderSamples : 0,
      machineBusyPercent: machineCpuPercent(startMachine, endMachine)?.busyPercent ?? null,
    });
  } finally {
    await bots.stop(2000);
    await world.close();
  }
}

interface Window {
  start: ZoneWorldSample;
  end: ZoneWorldSample;
  seconds: number;
  startBots: Record<string, unknown>;
  endBots: Record<string, unknown>;
  loadAverage: number;
  notes: string[];
  expected: number;
  borderMean: number;
  machineBusyPercent: number | null;
}

function measure(options: ZonesRunOptions, world: ZoneWorldUnderTest, w: Window): ZonesRun {
  const { start, end, seconds } = w;
  const zones = options.columns * options.rows;
  const ticks = seconds * zoneBenchGame.tickRate;
  const a = zoneCounters(start);
  const b = zoneCounters(end);
  const d = (k: keyof ZoneCounters) => b[k] - a[k];
  const connected = Number(w.endBots.connected);
  const cpu = end.cpu.total - start.cpu.total;
  const part = (k: 'gateway' | 'zones' | 'engine') => {
    const from = start.cpu[k];
    const to = end.cpu[k];
    return from === null || to === null ? null : to - from;
  };
  const gatewayCpu = part('gateway');
  const zoneCpu = part('zones');
  const engineCpu = part('engine');
  const perTickMs = (s: number | null) => (s === null ? null : (s / ticks) * 1000);
  const commitMs = end.zones.flatMap((z) => z.report?.commitMs ?? []);
  // Ticks the zones stepped (a skipped tick publishes nothing).
  const zoneEntityTicks = (b.entities * (d('ticks') - d('ticksSkipped'))) / zones;
  const stamps = d('stampsLate') + d('stampsOnTime');
  const engineBytes =
    start.engineBytes === null || end.engineBytes === null ? null : end.engineBytes - start.engineBytes;
  const run: ZonesRun = {
    zones,
    layout: layoutName(options),
    engine: world.engine,
    players: options.players,
    connected,
    windowSeconds: seconds,
    ticks,
    cpuSeconds: cpu,
    gatewayCpuSeconds: gatewayCpu,
    cpuMsPerTick: (cpu / ticks) * 1000,
    cpuUsPerPlayerTick: connected > 0 ? (cpu / (connected * ticks)) * 1e6 : 0,
    zoneCpuMsPerTick: perTickMs(zoneCpu),
    engineCpuMsPerTick: perTickMs(engineCpu),
    handoffsPerSecond: d('commits') / seconds,
    handoffBytesPerHandoff: d('commits') > 0 ? d('handoffBytes') / d('commits') : 0,
    feedBytesPerEntityTick: zoneEntityTicks > 0 ? d('feedBytes') / zoneEntityTicks : 0,
    handoffLatency: latencyOf(start, end),
    commitP50Ms: percentile(commitMs, 0.5),
    commitP99Ms: percentile(commitMs, 0.99),
    commitsRefused: d('refused'),
    borderEntities: w.borderMean,
    crossZoneBytesPerBorderEntityTick: w.borderMean > 0 ? d('handoffBytes') / (w.borderMean * ticks) : null,
    engineBytesPerTick: engineBytes === null ? null : engineBytes / ticks,
    ticksSkipped: d('ticksSkipped'),
    lateArrivals: d('lateArrivals'),
    stampsLate: d('stampsLate'),
    stampsOnTime: d('stampsOnTime'),
    mispredictions: Number(w.endBots.mispredictions) - Number(w.startBots.mispredictions),
    botCpuPercent: (botCpu(w.endBots) - botCpu(w.startBots)) / seconds / 1e4,
    machineBusyPercent: w.machineBusyPercent,
    loadAverage: w.loadAverage,
    zoneHosts: world.zoneHosts,
    entities: b.entities,
    keptUp:
      d('ticksSkipped') === 0 &&
      (stamps === 0 || d('stampsLate') / stamps <= 0.05) &&
      connected >= 0.95 * options.players,
    notes: w.notes,
  };
  // Wrong results, not slowness: the world must still hold every wanderer and player.
  const held = b.entities + b.arriving;
  const expected = w.expected;
  const what = `the ${zones}-zone world (${world.engine})`;
  if (Math.abs(held - expected) > Math.max(5, 0.01 * expected))
    fail(`zones: ${what} holds ${held} entities, expected ${expected}`);
  const mirror = end.gateway?.entities ?? 0;
  if (Math.abs(mirror - expected) > Math.max(5, 0.01 * expected))
    fail(`zones: the gateway's mirror of ${what} holds ${mirror} entities, expected ${expected}`);
  return run;
}
