/**
 * `npm run bench -- --only capacity`: the same game on two servers, back to back at each size:
 * ghostwire's room server (bench/capacity/ghostwire.ts: the demo arena as rooms of 64, one
 * room-server process, UDP, encrypted) and the Colyseus copy of the arena (bench/capacity/
 * colyseus.ts, WebSocket), both at 20 Hz, bots in two child processes, server CPU from /proc over
 * a steady window after the joins and a warm-up. 64, 128 and 256 players, then doubling while both
 * kept up (up to 1,024). Players per core only for a run that kept up (bench/capacity/result.ts).
 * With GW_CAPACITY_COLYSEUS=0 (or if Colyseus cannot load) ghostwire runs alone.
 */

import { runGhostwireCapacity } from '../capacity/ghostwire.js';
import { type CapacityRun, keepUpFailures } from '../capacity/result.js';
import type { SuiteContext } from '../harness.js';

type RunColyseusCapacity = typeof import('../capacity/colyseus.js').runColyseusCapacity;

const ROOM_SIZE = 64;
const BOT_PROCESSES = 2;
const SEED = 25;
const FIRST_SIZES = [64, 128, 256];
const MOST_PLAYERS = 1024;

/** The Colyseus runner, loaded only when this suite runs (Colyseus is a dev dependency, heavy to load). */
async function loadColyseus(): Promise<RunColyseusCapacity | string> {
  if (process.env.GW_CAPACITY_COLYSEUS === '0') return 'GW_CAPACITY_COLYSEUS=0';
  try {
    return (await import('../capacity/colyseus.js')).runColyseusCapacity;
  } catch (error) {
    return `bench/capacity/colyseus.js did not load (${error instanceof Error ? error.message.split('\n')[0] : error})`;
  }
}

export async function runCapacity(ctx: SuiteContext): Promise<void> {
  const quick = ctx.options.quick;
  const window = { seconds: quick ? 6 : 20, warmupSeconds: quick ? 2 : 3 };
  const colyseus = await loadColyseus();
  if (typeof colyseus === 'string') ctx.note(`ghostwire alone: ${colyseus}`);
  ctx.note(
    `rooms of ${ROOM_SIZE}, 20 Hz, ${BOT_PROCESSES} bot processes, steady window ${window.seconds} s after the joins (players ÷ 25 s) and ${window.warmupSeconds} s warm-up; CPU from /proc; servers alternate at each size`,
  );
  const runs: CapacityRun[] = [];
  const sizes = [...FIRST_SIZES];
  for (let i = 0; i < sizes.length; i++) {
    const players = sizes[i];
    const options = { players, roomSize: ROOM_SIZE, botProcesses: BOT_PROCESSES, seed: SEED + i, ...window };
    const atSize: CapacityRun[] = [await runGhostwireCapacity(options)];
    if (typeof colyseus !== 'string') atSize.push(await colyseus(options));
    for (const run of atSize) {
      runs.push(run);
      ctx.note(formatRow(run));
    }
    const [ours, theirs] = atSize;
    if (theirs !== undefined && ours.cpuUsPerPlayerTick > 0 && theirs.cpuUsPerPlayerTick > 0)
      ctx.note(
        `  ${players} players: ghostwire CPU per player ÷ Colyseus's = ${(ours.cpuUsPerPlayerTick / theirs.cpuUsPerPlayerTick).toFixed(2)}${ours.keptUp && theirs.keptUp ? '' : ' (a server did not keep up: not a capacity ratio)'}`,
      );
    const next = players * 2;
    if (i === sizes.length - 1 && next <= MOST_PLAYERS && atSize.every((r) => r.keptUp)) sizes.push(next);
  }
  ctx.note(`\n${formatTable(runs)}`);
  ctx.record('runs', runs);
}

const HEADERS = [
  'server',
  'players',
  'µs/player/tick',
  'players/core',
  'kB/s down',
  'kB/s up',
  'on time',
  'delivered',
  'ELU',
  'join p50/p99 ms',
  'bot µs/player/s',
];

function cells(r: CapacityRun): string[] {
  const percent = (ratio: number) => `${(100 * ratio).toFixed(1)}%`;
  const botUs = r.connected > 0 ? (r.botCpuSeconds / r.connected / r.windowSeconds) * 1e6 : 0;
  return [
    r.server,
    `${r.players}`,
    r.cpuUsPerPlayerTick.toFixed(1),
    r.playersPerCore === null ? 'did not keep up' : r.playersPerCore.toFixed(0),
    (r.downBytesPerPlayerSecond / 1000).toFixed(2),
    (r.upBytesPerPlayerSecond / 1000).toFixed(2),
    percent(r.ticksOnTimeRatio),
    percent(r.deliveredRatio),
    percent(r.eventLoopUtilization),
    `${r.joinP50Ms.toFixed(0)}/${r.joinP99Ms.toFixed(0)}`,
    botUs.toFixed(0),
  ];
}

function formatRow(r: CapacityRun): string {
  const c = cells(r);
  return `  ${HEADERS.map((h, i) => `${h} ${c[i]}`).join(' · ')}${r.notes.length > 0 ? `\n    ${r.notes.join('\n    ')}` : ''}`;
}

/** One table of every run; a run that did not keep up says why under it. */
export function formatTable(runs: readonly CapacityRun[]): string {
  const rows = runs.map(cells);
  const widths = HEADERS.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (row: string[]) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  const lines = [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const [i, r] of runs.entries()) {
    lines.push(line(rows[i]));
    if (!r.keptUp) lines.push(`  ${r.server} ${r.players} did not keep up: ${keepUpFailures(r).join('; ')}`);
  }
  lines.push(
    'µs/player/tick: server CPU (user + system, /proc) ÷ (players × ticks) over the window; players/core only for a run that kept up',
    "(≥ 95% of ticks on time, the worst client ≥ 95% of its state packets); ELU: the server process's event-loop utilisation.",
  );
  return lines.join('\n');
}
