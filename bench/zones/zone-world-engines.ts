/**
 * The zones bench's world on each engine, behind one face (./zone-world-run.ts drives it):
 *
 * - **embedded**: every zone in a worker thread of this process, the store and the feed hub in
 *   its main thread with the gateway (ZonedWorld with no `redis`).
 * - **redis**: the zones in child processes (./zone-host.ts; zones dealt round over at most
 *   `processes` of them, one zone thread each) and the gateway in this process, all pointed at a
 *   redis-server the caller started. As machines of one world would be, on one machine.
 *
 * A sample gives every zone's last report, the gateway's figures, and the CPU time so far of each
 * part: the gateway's (this process's main thread when embedded, where the store and hub run too;
 * this whole process on Redis), the zones' (the zone threads; the zone processes, every thread)
 * and the engine's (redis-server; in the gateway's share when embedded), plus the bytes the engine
 * carried so far (redis-server's INFO: in + out; null when embedded).
 */
import { readFileSync } from 'node:fs';
import type { ZoneGatewayStats } from '../../src/zones/zone-gateway.js';
import type { SupervisedZone } from '../../src/zones/zone-supervisor.js';
import { ZonedWorld, type ZonedWorldOptions } from '../../src/zones/zoned-world.js';
import { JsonLineChild } from '../support/child-process.js';
import type { BenchRedisServer } from '../support/redis-server.js';
import { INTEREST_RADIUS, SIDE } from './zone-bench-game.js';

export type ZoneBenchEngine = 'embedded' | 'redis';

export interface ZoneWorldOptions {
  columns: number;
  rows: number;
  players: number;
  wanderers: number;
  seed: number;
  snapshotTicks?: number;
}

export interface ZoneWorldSample {
  zones: SupervisedZone[];
  gateway: ZoneGatewayStats | null;
  /** CPU seconds so far: everything, and each part (null where it cannot be told apart). */
  cpu: { total: number; gateway: number | null; zones: number | null; engine: number | null };
  /** Bytes the engine read and wrote so far (null: embedded, or not told). */
  engineBytes: number | null;
}

export interface ZoneWorldUnderTest {
  engine: ZoneBenchEngine;
  /** The gateway's URL for GameClient.connect. */
  url: string;
  /** Zone threads (embedded) or zone processes (Redis). */
  zoneHosts: number;
  sample(): Promise<ZoneWorldSample>;
  close(): Promise<void>;
}

const processCpuSeconds = () => {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1e6;
};

/** This process's main thread's CPU seconds (Linux), or null where /proc is not there. */
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

function worldOptions(options: ZoneWorldOptions): ZonedWorldOptions {
  return {
    rules: new URL('./zone-bench-rules.js', import.meta.url),
    bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
    columns: options.columns,
    rows: options.rows,
    interestRadius: INTEREST_RADIUS,
    port: 0,
    transports: ['udp'],
    maxPlayers: options.players + 8,
    maxPlayersPerAddress: options.players + 8,
    joinRate: { perSecond: 1000, burst: 1000 },
    ...(options.snapshotTicks === undefined ? {} : { snapshotTicks: options.snapshotTicks }),
  };
}

export async function startEmbeddedWorld(options: ZoneWorldOptions): Promise<ZoneWorldUnderTest> {
  setWorldEnvironment(options);
  const world = await ZonedWorld.start(worldOptions(options));
  return {
    engine: 'embedded',
    url: world.url,
    zoneHosts: world.stats().threads,
    sample: async () => {
      const stats = world.stats();
      const total = processCpuSeconds();
      const gateway = mainThreadCpuSeconds();
      return {
        // A copy: the supervisor updates its entries in place, and a window needs its two ends.
        zones: structuredClone(stats.zones),
        gateway: stats.gateway,
        cpu: { total, gateway, zones: gateway === null ? null : total - gateway, engine: null },
        engineBytes: null,
      };
    },
    close: () => world.close(),
  };
}

/** The rules module reads the world from the environment (zone threads and zone hosts inherit it). */
function setWorldEnvironment(options: ZoneWorldOptions): void {
  process.env.GW_ZONES_BENCH_WANDERERS = String(options.wanderers);
  process.env.GW_ZONES_BENCH_SEED = String(options.seed);
}

export async function startRedisWorld(
  options: ZoneWorldOptions & { processes: number },
  redis: BenchRedisServer,
): Promise<ZoneWorldUnderTest> {
  setWorldEnvironment(options);
  const zones = options.columns * options.rows;
  const count = Math.max(1, Math.min(options.processes, zones));
  const deal: number[][] = Array.from({ length: count }, () => []);
  for (let zone = 0; zone < zones; zone++) deal[zone % count].push(zone);
  const originMs = Date.now();
  const hosts = deal.map(
    (list) =>
      new JsonLineChild({
        script: new URL('./zone-host.js', import.meta.url).pathname,
        args: [
          ...['--redis', redis.url, '--origin', String(originMs), '--zones', list.join(',')],
          ...['--columns', String(options.columns), '--rows', String(options.rows)],
          ...['--wanderers', String(options.wanderers), '--seed', String(options.seed)],
        ],
        suite: 'zones',
        name: `zone-host of zones ${list.join(',')}`,
      }),
  );
  let world: ZonedWorld | null = null;
  const close = async () => {
    await world?.close();
    await Promise.all(hosts.map((host) => host.stop(5000)));
  };
  try {
    await Promise.all(hosts.map((host) => host.next('ready', 60_000, 'starting its zones')));
    world = await ZonedWorld.start({ ...worldOptions(options), redis: redis.url, originMs, runZones: [] });
  } catch (error) {
    await close();
    throw error;
  }
  const gatewayWorld = world;
  let markId = 0;
  return {
    engine: 'redis',
    url: gatewayWorld.url,
    zoneHosts: count,
    sample: async () => {
      const id = ++markId;
      for (const host of hosts) host.send({ type: 'mark', id });
      const marks = await Promise.all(hosts.map((host) => host.next('mark', 10_000, 'asking for its zones')));
      const engineCpu = redis.cpuSeconds();
      const traffic = await redis.trafficBytes();
      const gateway = processCpuSeconds();
      let zonesCpu = 0;
      const zoneList: SupervisedZone[] = [];
      for (const mark of marks) {
        zonesCpu += (Number(mark.cpuUser) + Number(mark.cpuSystem)) / 1e6;
        zoneList.push(...(mark.zones as SupervisedZone[]));
      }
      return {
        zones: zoneList.sort((a, b) => a.zone - b.zone),
        gateway: gatewayWorld.stats().gateway,
        cpu: { total: gateway + zonesCpu + (engineCpu ?? 0), gateway, zones: zonesCpu, engine: engineCpu },
        engineBytes: traffic === null ? null : traffic.input + traffic.output,
      };
    },
    close,
  };
}
