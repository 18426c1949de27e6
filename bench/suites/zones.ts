/**
 * `npm run bench -- --only zones`: one world of 10,000 wanderers moving every tick (20 Hz, a 1 km
 * square) and bot players walking random paths across borders (full GameClients in a child
 * process), as 1, 2 and 4 zones (1×1, 2×1, 2×2) on this machine with the embedded engine. Server
 * CPU per tick and per player per tick, the gateway's share, handoffs per second with their bytes
 * and commit latency, the feed's bytes per entity-tick, and whether the world kept up. Fails only
 * on a wrong world (entities lost or duplicated), never on speed. See bench/zones/zone-world-run.ts.
 */
import type { SuiteContext } from '../harness.js';
import { runZonedWorld, type ZonesRun } from '../zones/zone-world-run.js';

const LAYOUTS = [
  { columns: 1, rows: 1 },
  { columns: 2, rows: 1 },
  { columns: 2, rows: 2 },
];
const WANDERERS = 10_000;
const PLAYERS = Number(process.env.GW_ZONES_BENCH_PLAYERS ?? 32);
const SEED = 26;

export async function runZones(ctx: SuiteContext): Promise<void> {
  const quick = ctx.options.quick;
  const window = { windowSeconds: quick ? 6 : 20, warmupSeconds: quick ? 2 : 5 };
  ctx.note(
    `${WANDERERS} wanderers + ${PLAYERS} bots (GameClients in one child process), 20 Hz, interest radius 50 m on 1 km², embedded engine; window ${window.windowSeconds} s after the wanderers settle in their zones and ${window.warmupSeconds} s warm-up`,
  );
  const runs: ZonesRun[] = [];
  for (const layout of LAYOUTS) {
    const run = await runZonedWorld({
      ...layout,
      players: PLAYERS,
      wanderers: WANDERERS,
      seed: SEED,
      ...window,
    });
    runs.push(run);
    ctx.note(`  ${run.layout}: ${JSON.stringify(run)}`);
  }
  ctx.note(`\n${formatTable(runs)}`);
  const base = runs[0].cpuMsPerTick;
  ctx.note(
    `CPU per tick vs 1 zone: ${runs
      .slice(1)
      .map((r) => `${r.zones} zones ${(r.cpuMsPerTick / base).toFixed(2)}`)
      .join(', ')}`,
  );
  ctx.record('runs', runs);
}

const HEADERS = [
  'zones',
  'players',
  'CPU ms/tick',
  'µs/player/tick',
  'gateway ms/tick',
  'zones ms/tick',
  'handoffs/s',
  'B/handoff',
  'feed B/entity-tick',
  'commit p50/p99 ms',
  'skipped',
  'late stamps',
  'kept up',
  'bots %core',
  'machine %core',
  'load',
];

function cells(r: ZonesRun): string[] {
  const gateway = r.gatewayCpuSeconds === null ? 'n/a' : ((r.gatewayCpuSeconds / r.ticks) * 1000).toFixed(2);
  return [
    `${r.layout} (${r.threads} thr)`,
    `${r.connected}/${r.players}`,
    r.cpuMsPerTick.toFixed(2),
    r.cpuUsPerPlayerTick.toFixed(0),
    gateway,
    r.zoneCpuMsPerTick === null ? 'n/a' : r.zoneCpuMsPerTick.toFixed(2),
    r.handoffsPerSecond.toFixed(1),
    r.handoffBytesPerHandoff.toFixed(0),
    r.feedBytesPerEntityTick.toFixed(2),
    `${r.commitP50Ms.toFixed(1)}/${r.commitP99Ms.toFixed(1)}`,
    `${r.ticksSkipped}`,
    `${r.stampsLate}/${r.stampsLate + r.stampsOnTime}`,
    r.keptUp ? 'yes' : 'NO',
    r.botCpuPercent.toFixed(0),
    r.machineBusyPercent === null ? 'n/a' : r.machineBusyPercent.toFixed(0),
    r.loadAverage.toFixed(2),
  ];
}

export function formatTable(runs: readonly ZonesRun[]): string {
  const rows = runs.map(cells);
  const widths = HEADERS.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (row: string[]) => row.map((cell, c) => cell.padStart(widths[c])).join('  ');
  const lines = [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const [i, r] of runs.entries()) {
    lines.push(line(rows[i]));
    for (const note of r.notes) lines.push(`  ${r.layout}: ${note}`);
  }
  lines.push(
    'CPU: the server process (zone threads + gateway, process.cpuUsage) ÷ ticks of the window; gateway: its main thread (/proc); zones: the rest.',
    'B/handoff: entity-record payload bytes committed per handoff; feed: zone → gateway batch bytes per entity per tick; commit: commitHandoff call → store answer.',
  );
  return lines.join('\n');
}
