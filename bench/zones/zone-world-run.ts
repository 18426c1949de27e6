/**
 * One run of the zones bench: the 10,000-wanderer world (./zone-bench-rules.ts) as columns × rows
 * zones in this process (zone threads + gateway on loopback UDP), the bots in a child process
 * (./zone-bots.ts). After the joins and a warm-up (every wanderer in its zone), a steady window:
 * this process's CPU (all its threads: process.cpuUsage) and its main thread's alone (the gateway,
 * the embedded store and feed hub: /proc/self/task/PID/stat on Linux), and the zones' report
 * counters taken at both ends.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ZonedWorld, type ZonedWorldStats } from '../../src/zones/zoned-world.js';
import { fail } from '../harness.js';
import { JsonLineChild, sleep } from '../support/child-process.js';
import { machineCpu, machineCpuPercent } from '../support/process-stats.js';
import { SIDE, zoneBenchGame } from './zone-bench-game.js';

export interface ZonesRunOptions {
  columns: number;
  rows: number;
  players: number;
  wanderers: number;
  windowSeconds: number;
  warmupSeconds: number;
  seed: number;
  /** Ticks between two snapshots of a zone (default the world's, 10). */
  snapshotTicks?: number;
}

export interface ZonesRun {
  zones: number;
  layout: string;
  players: number;
  connected: number;
  windowSeconds: number;
  ticks: number;
  /** Server process CPU over the window (every thread), seconds; and its main thread's (gateway). */
  cpuSeconds: number;
  gatewayCpuSeconds: number | null;
  cpuMsPerTick: number;
  cpuUsPerPlayerTick: number;
  /** The zone threads' share (all threads but the main one), ms per tick, and per zone. */
  zoneCpuMsPerTick: number | null;
  handoffsPerSecond: number;
  handoffBytesPerHandoff: number;
  feedBytesPerEntityTick: number;
  /** Commit latencies (the zones' last 256 each at the window's end), ms. */
  commitP50Ms: number;
  commitP99Ms: number;
  commitsRefused: number;
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
  /** Zone threads (at most the machine's cores: 4 zones on 2 cores share them 2 a thread). */
  threads: number;
  entities: number;
  keptUp: boolean;
  notes: string[];
}

const counters = (s: ZonedWorldStats) => {
  const sum = (f: (r: NonNullable<ZonedWorldStats['zones'][number]['report']>) => number) =>
    s.zones.reduce((total, z) => total + (z.report === null ? 0 : f(z.report)), 0);
  return {
    commits: sum((r) => r.commits),
    refused: sum((r) => Object.values(r.commitsRefused).reduce((a, b) => a + b, 0)),
    handoffBytes: sum((r) => r.handoffBytes),
    feedBytes: sum((r) => r.feedBytes),
    entities: sum((r) => r.entities),
    arriving: sum((r) => r.arriving),
    ticks: sum((r) => r.tick),
    ticksSkipped: sum((r) => r.ticksSkipped),
    lateArrivals: sum((r) => r.lateArrivals),
    stampsLate: s.gateway?.stampsLate ?? 0,
    stampsOnTime: s.gateway?.stampsOnTime ?? 0,
  };
};

/** The main thread's CPU seconds (Linux), or null where /proc is not there. */
function mainThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat: 12 and 13 after the command.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const cpuSeconds = () => {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1e6;
};

const botCpu = (m: Record<string, unknown>) => Number(m.cpuUser) + Number(m.cpuSystem);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export async function runZonedWorld(options: ZonesRunOptions): Promise<ZonesRun> {
  const { columns, rows, players, wanderers } = options;
  const zones = columns * rows;
  process.env.GW_ZONES_BENCH_WANDERERS = String(wanderers);
  process.env.GW_ZONES_BENCH_SEED = String(options.seed);
  const world = await ZonedWorld.start({
    rules: new URL('./zone-bench-rules.js', import.meta.url),
    bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
    columns,
    rows,
    interestRadius: 50,
    port: 0,
    transports: ['udp'],
    maxPlayers: players + 8,
    maxPlayersPerAddress: players + 8,
    joinRate: { perSecond: 1000, burst: 1000 },
    ...(options.snapshotTicks === undefined ? {} : { snapshotTicks: options.snapshotTicks }),
  });
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
      fail(`zones: no bot joined the ${zones}-zone world: ${ready.firstError}`);
    // Warm-up: every wanderer in the zone that holds its position (zone 0 spawned them all), then a few seconds.
    const expected = wanderers + Number(ready.connected);
    const settleBy = performance.now() + 60_000;
    for (;;) {
      const s = world.stats();
      const perZone = s.zones.map((z) => z.report?.entities ?? 0);
      // Random positions put within a few percent of a fair share in each zone once the handoffs are done.
      if (Math.max(...perZone) < (1.1 * expected) / zones && counters(s).arriving === 0) break;
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
    const startWorld = counters(world.stats());
    const startBots = await mark();
    const startCpu = cpuSeconds();
    const startMain = mainThreadCpuSeconds();
    const startMachine = machineCpu();
    const loadAverage = loadavg()[0];
    const startMs = performance.now();
    await sleep(options.windowSeconds * 1000);
    const cpu = cpuSeconds() - startCpu;
    const endMain = mainThreadCpuSeconds();
    const endMachine = machineCpu();
    const seconds = (performance.now() - startMs) / 1000;
    // A report comes from each zone thread a few times a second: the last one closes the window.
    const endStats = world.stats();
    const endWorld = counters(endStats);
    const endBots = await mark();

    const ticks = seconds * zoneBenchGame.tickRate;
    const connected = Number(endBots.connected);
    const d = (k: keyof typeof endWorld) => endWorld[k] - startWorld[k];
    const commitMs = endStats.zones.flatMap((z) => z.report?.commitMs ?? []);
    const gatewayCpu = startMain === null || endMain === null ? null : endMain - startMain;
    // Ticks the zones stepped (a skipped tick publishes nothing).
    const zoneEntityTicks = (endWorld.entities * (d('ticks') - d('ticksSkipped'))) / zones;
    const stamps = d('stampsLate') + d('stampsOnTime');
    const run: ZonesRun = {
      zones,
      layout: `${columns}×${rows}`,
      players,
      connected,
      windowSeconds: seconds,
      ticks,
      cpuSeconds: cpu,
      gatewayCpuSeconds: gatewayCpu,
      cpuMsPerTick: (cpu / ticks) * 1000,
      cpuUsPerPlayerTick: connected > 0 ? (cpu / (connected * ticks)) * 1e6 : 0,
      zoneCpuMsPerTick: gatewayCpu === null ? null : ((cpu - gatewayCpu) / ticks) * 1000,
      handoffsPerSecond: d('commits') / seconds,
      handoffBytesPerHandoff: d('commits') > 0 ? d('handoffBytes') / d('commits') : 0,
      feedBytesPerEntityTick: zoneEntityTicks > 0 ? d('feedBytes') / zoneEntityTicks : 0,
      commitP50Ms: percentile(commitMs, 0.5),
      commitP99Ms: percentile(commitMs, 0.99),
      commitsRefused: d('refused'),
      ticksSkipped: d('ticksSkipped'),
      lateArrivals: d('lateArrivals'),
      stampsLate: d('stampsLate'),
      stampsOnTime: d('stampsOnTime'),
      mispredictions: Number(endBots.mispredictions) - Number(startBots.mispredictions),
      botCpuPercent: (botCpu(endBots) - botCpu(startBots)) / seconds / 1e4,
      machineBusyPercent: machineCpuPercent(startMachine, endMachine)?.busyPercent ?? null,
      loadAverage,
      threads: endStats.threads,
      entities: endWorld.entities,
      keptUp:
        d('ticksSkipped') === 0 &&
        (stamps === 0 || d('stampsLate') / stamps <= 0.05) &&
        connected >= 0.95 * players,
      notes,
    };
    // Wrong results, not slowness: the world must still hold every wanderer and player.
    const held = endWorld.entities + endWorld.arriving;
    if (Math.abs(held - expected) > Math.max(5, 0.01 * expected))
      fail(`zones: the ${zones}-zone world holds ${held} entities, expected ${expected}`);
    const mirror = endStats.gateway?.entities ?? 0;
    if (Math.abs(mirror - expected) > Math.max(5, 0.01 * expected))
      fail(
        `zones: the gateway's mirror of the ${zones}-zone world holds ${mirror} entities, expected ${expected}`,
      );
    return run;
  } finally {
    await bots.stop(2000);
    await world.close();
  }
}
