/**
 * The zones bench's two tables: what each run cost (CPU by part, whether it kept up) and what its
 * handoffs and bytes were. One row per run; the lines under each table say what the columns are.
 */
import type { ZonesRun } from './zone-world-run.js';

interface Column {
  header: string;
  cell: (r: ZonesRun) => string;
}

const fixed = (v: number | null, digits: number) => (v === null ? 'n/a' : v.toFixed(digits));

const run = (r: ZonesRun) =>
  `${r.layout} ${r.engine} (${r.zoneHosts} ${r.engine === 'redis' ? 'proc' : 'thr'})`;

const COST: Column[] = [
  { header: 'zones', cell: run },
  { header: 'players', cell: (r) => `${r.connected}/${r.players}` },
  { header: 'CPU ms/tick', cell: (r) => r.cpuMsPerTick.toFixed(2) },
  { header: 'µs/player/tick', cell: (r) => r.cpuUsPerPlayerTick.toFixed(0) },
  {
    header: 'gateway ms/tick',
    cell: (r) => fixed(r.gatewayCpuSeconds === null ? null : (r.gatewayCpuSeconds / r.ticks) * 1000, 2),
  },
  { header: 'zones ms/tick', cell: (r) => fixed(r.zoneCpuMsPerTick, 2) },
  { header: 'engine ms/tick', cell: (r) => fixed(r.engineCpuMsPerTick, 2) },
  { header: 'skipped', cell: (r) => `${r.ticksSkipped}` },
  { header: 'late stamps', cell: (r) => `${r.stampsLate}/${r.stampsLate + r.stampsOnTime}` },
  { header: 'kept up', cell: (r) => (r.keptUp ? 'yes' : 'NO') },
  { header: 'bots %core', cell: (r) => r.botCpuPercent.toFixed(0) },
  { header: 'machine %core', cell: (r) => fixed(r.machineBusyPercent, 0) },
  { header: 'load', cell: (r) => r.loadAverage.toFixed(2) },
];

const HANDOFFS: Column[] = [
  { header: 'zones', cell: run },
  { header: 'players', cell: (r) => `${r.connected}/${r.players}` },
  { header: 'handoffs/s', cell: (r) => r.handoffsPerSecond.toFixed(1) },
  {
    header: 'handoff ticks p50/p99',
    cell: (r) =>
      r.handoffLatency === null ? '—' : `${r.handoffLatency.ticksP50}/${r.handoffLatency.ticksP99}`,
  },
  {
    header: 'handoff ms p50/p99',
    cell: (r) => (r.handoffLatency === null ? '—' : `${r.handoffLatency.msP50}/${r.handoffLatency.msP99}`),
  },
  { header: 'commit ms p50/p99', cell: (r) => `${r.commitP50Ms.toFixed(1)}/${r.commitP99Ms.toFixed(1)}` },
  { header: 'B/handoff', cell: (r) => r.handoffBytesPerHandoff.toFixed(0) },
  { header: 'border entities', cell: (r) => r.borderEntities.toFixed(0) },
  { header: 'x-zone B/border-entity-tick', cell: (r) => fixed(r.crossZoneBytesPerBorderEntityTick, 3) },
  { header: 'feed B/entity-tick', cell: (r) => r.feedBytesPerEntityTick.toFixed(2) },
  { header: 'engine B/tick', cell: (r) => fixed(r.engineBytesPerTick, 0) },
];

function table(columns: Column[], runs: readonly ZonesRun[]): string[] {
  const rows = runs.map((r) => columns.map((c) => c.cell(r)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((row) => row[i].length)));
  // The run's name to the left, figures to the right.
  const line = (row: string[]) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(columns.map((c) => c.header)), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

export function formatTables(runs: readonly ZonesRun[]): string {
  const lines = table(COST, runs);
  for (const r of runs) for (const note of r.notes) lines.push(`  ${r.layout} ${r.engine}: ${note}`);
  lines.push(
    'CPU: every process of the world (not the bots) ÷ ticks of the window. Embedded: the server process (process.cpuUsage);',
    '  gateway = its main thread (/proc; the store and feed hub run there too), zones = its other threads, engine n/a.',
    '  Redis: gateway = this process, zones = the zone processes (each reports its process.cpuUsage), engine = redis-server (/proc).',
    "kept up: no tick skipped, ≤ 5% of the gateway's stamps late, ≥ 95% of the bots connected. load: 1-min load average at the window's start.",
    '',
    ...table(HANDOFFS, runs),
    "handoff ticks/ms: from the tick the source zone decides a handoff (T-1, for a handoff at T) to the end of the destination's first step of",
    '  the entity; ms from the moment T-1 was due on the world clock (1 tick = 50 ms is the least). p50/p99 over the window, ms as 2-ms bin tops.',
    "commit: the commitHandoff call → the store's answer (each zone's last 256). B/handoff: entity-record bytes per commit (the engine carries",
    "  each twice: in with the commit, out to the destination's inbox read).",
    "border entities: entities within the interest radius (50 m) of another zone, mean of the window's samples. x-zone: handoff record bytes",
    "  (the only zone-to-zone traffic: a neighbour's entities reach players through the gateway's mirror) per border entity per tick.",
    "feed: zone → gateway batch bytes per entity per tick. engine B/tick: redis-server's INFO total_net_input_bytes + total_net_output_bytes",
    "  per tick (feeds in and out, commits, inbox reads, snapshots, leases; the bench's own INFO calls too, ~2 KB each 2 s).",
  );
  return lines.join('\n');
}
