/**
 * `npm run bench -- --only zones`: one world of 10,000 wanderers moving every tick (20 Hz, a 1 km
 * square) and bot players walking random paths across borders (full GameClients in a child
 * process), as 1, 2 and 4 zones (1×1, 2×1, 2×2) on each engine: embedded (zone threads, the store
 * and feed hub in the main thread) and Redis (zone processes and the gateway's process on a
 * redis-server the bench starts on loopback; skipped with the reason where there is none). Then
 * how many bots one zone drives on this machine: 1×1 embedded with more bots, until one run does
 * not keep up. CPU of every process (engine included) per tick and per player per tick, handoffs
 * per second and their latency end to end (ticks and ms, p50/p99), bytes per handoff, per border
 * entity and through the engine, and whether the world kept up. Fails only on a wrong world
 * (entities lost or duplicated), never on speed. See bench/zones/.
 *
 * GW_ZONES_BENCH_PLAYERS: bots of the layout runs (32); GW_ZONES_BENCH_ENGINES: engines to run
 * (embedded,redis); GW_ZONES_BENCH_BOT_SWEEP: the bot counts of the sweep (64,128; '' for none).
 */
import type { SuiteContext } from '../harness.js';
import { cores } from '../support/process-stats.js';
import { BenchRedisServer, redisServerMissing } from '../support/redis-server.js';
import { formatTables } from '../zones/zone-table.js';
import { startEmbeddedWorld, startRedisWorld, type ZoneWorldOptions } from '../zones/zone-world-engines.js';
import { runZonedWorld, type ZonesRun } from '../zones/zone-world-run.js';

const LAYOUTS = [
  { columns: 1, rows: 1 },
  { columns: 2, rows: 1 },
  { columns: 2, rows: 2 },
];
const WANDERERS = 10_000;
const PLAYERS = Number(process.env.GW_ZONES_BENCH_PLAYERS ?? 32);
const ENGINES = (process.env.GW_ZONES_BENCH_ENGINES ?? 'embedded,redis').split(',');
const BOT_SWEEP = (process.env.GW_ZONES_BENCH_BOT_SWEEP ?? '64,128')
  .split(',')
  .filter((s) => s !== '')
  .map(Number);
const SEED = 26;

export async function runZones(ctx: SuiteContext): Promise<void> {
  for (const engine of ENGINES)
    if (engine !== 'embedded' && engine !== 'redis')
      throw new RangeError(`GW_ZONES_BENCH_ENGINES: ${engine} is not an engine (embedded, redis)`);
  const quick = ctx.options.quick;
  const window = { windowSeconds: quick ? 6 : 20, warmupSeconds: quick ? 2 : 5 };
  ctx.note(
    `${WANDERERS} wanderers + ${PLAYERS} bots (GameClients in one child process), 20 Hz, interest radius 50 m on 1 km²; engines: ${ENGINES.join(', ')} (Redis: zones in ${cores} processes at most, no persistence); window ${window.windowSeconds} s after the wanderers settle in their zones and ${window.warmupSeconds} s warm-up`,
  );
  const runs: ZonesRun[] = [];
  const one = async (engine: string, layout: { columns: number; rows: number }, players: number) => {
    const options = { ...layout, players, wanderers: WANDERERS, seed: SEED, ...window };
    let run: ZonesRun;
    if (engine === 'redis') {
      // A fresh server each run: a world's leases and snapshots must not meet the last one's.
      const redis = await BenchRedisServer.start();
      try {
        run = await runZonedWorld(options, await startRedisWorld({ ...options, processes: cores }, redis));
      } finally {
        await redis.stop();
      }
    } else run = await runZonedWorld(options, await startEmbeddedWorld(options satisfies ZoneWorldOptions));
    runs.push(run);
    ctx.note(`  ${run.layout} ${run.engine}, ${players} bots: ${JSON.stringify(run)}`);
    return run;
  };
  for (const engine of ENGINES) {
    const missing = engine === 'redis' ? redisServerMissing() : null;
    if (missing !== null) {
      ctx.note(`redis: skipped: ${missing}`);
      continue;
    }
    for (const layout of LAYOUTS) await one(engine, layout, PLAYERS);
  }
  // How many bots 2 cores drive at one zone: a count counts only when the world kept up.
  for (const players of BOT_SWEEP) if (!(await one('embedded', LAYOUTS[0], players)).keptUp) break;

  ctx.note(`\n${formatTables(runs)}`);
  for (const engine of ENGINES) {
    const of = runs.filter((r) => r.engine === engine && r.players === PLAYERS);
    if (of.length < 2) continue;
    ctx.note(
      `${engine}: CPU per tick vs 1 zone: ${of
        .slice(1)
        .map((r) => `${r.zones} zones ${(r.cpuMsPerTick / of[0].cpuMsPerTick).toFixed(2)}`)
        .join(', ')}`,
    );
  }
  const driven = runs.filter((r) => r.engine === 'embedded' && r.zones === 1 && r.keptUp);
  if (driven.length > 0)
    ctx.note(
      `bots one zone drove and kept up (embedded, 1×1): ${Math.max(...driven.map((r) => r.connected))}`,
    );
  ctx.record('runs', runs);
}
