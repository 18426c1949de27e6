/**
 * Lockstep (issue 13): what a LockstepSession costs on the wire and on the CPU.
 *
 * 1. Bytes per peer per second, 8 peers each issuing 4 orders a second, over the network simulator
 *    on a LAN-like link and on the tests' bad link (100 ms ± 30 ms one way, 5% loss, duplicates),
 *    against Age of Empires' budget (8 players on 28.8 kbit/s modems). Payload bytes are the links'
 *    payloads; "on the wire" adds 28 bytes of IPv4 + UDP per datagram. Medians over seeds.
 * 2. The largest unit count of the tests' RTS sim (test/support/rts-sim.ts) for which one peer's
 *    turn (session + sim, measured over two peers in one process, no network delay) stays within
 *    100 ms of one core: the cost per unit from 1 M and 4 M units, solved for 100 ms, checked.
 */

import { LockstepScene } from '../../test/support/lockstep-scene.js';
import { check, type SuiteContext } from '../harness.js';

const AOE_BYTES_PER_SECOND = 28_800 / 8;
const IP_UDP_HEADER = 28;

interface Link {
  name: string;
  conditions: { latencyMs: number; jitterMs: number; loss?: number; duplicates?: number };
  resendSeconds?: number;
}

const LAN = { latencyMs: 10, jitterMs: 2 };
const BAD = { latencyMs: 100, jitterMs: 30, loss: 5, duplicates: 2 };
const LINKS: Link[] = [
  { name: 'LAN: 10 ms ± 2 one way', conditions: LAN },
  { name: 'bad: 100 ms ± 30 one way, 5% loss, 2% dup', conditions: BAD },
  { name: 'LAN, resendSeconds 0.1', conditions: LAN, resendSeconds: 0.1 },
  { name: 'bad, resendSeconds 0.1', conditions: BAD, resendSeconds: 0.1 },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function bytesRun(link: Link, seed: number, seconds: number) {
  const scene = new LockstepScene({
    peers: 8,
    units: 64,
    seed,
    conditions: link.conditions,
    session: link.resendSeconds === undefined ? {} : { resendSeconds: link.resendSeconds },
  });
  scene.runUntil(() => false, seconds);
  const stats = scene.peers.map((p) => p.session.stats());
  for (const s of stats) check(s.desyncs === 0, `lockstep ${link.name} seed ${seed}: a desync`);
  const perPeer = stats.map((s) => {
    const bytes = s.peers.reduce((n, p) => n + p.bytesSent, 0);
    const datagrams = s.peers.reduce((n, p) => n + p.datagramsSent, 0);
    return { bytes: bytes / scene.now, datagrams: datagrams / scene.now };
  });
  return {
    bytes: median(perPeer.map((p) => p.bytes)),
    datagrams: median(perPeer.map((p) => p.datagrams)),
    turnMs: stats[0].turnMs,
    stalled: median(stats.map((s) => s.stallSeconds / scene.now)),
    orders: median(stats.map((s) => s.commandsQueued / scene.now)),
  };
}

/** Milliseconds of CPU per peer per turn at `units` units: two peers, `turns` turns. */
function turnCost(units: number, turns: number): number {
  const scene = new LockstepScene({
    peers: 2,
    units,
    seed: 1,
    conditions: {},
    session: { adaptTurnMs: false },
    maxTurns: turns + 16,
  });
  scene.runUntil(() => scene.minTurn() >= 2, 5, 0.1);
  const from = scene.minTurn();
  const start = performance.now();
  scene.runUntil(() => scene.minTurn() >= from + turns, turns, 0.1);
  const elapsed = performance.now() - start;
  const ran = scene.minTurn() - from;
  check(ran >= turns, `lockstep turn cost: only ${ran} turns of ${turns}`);
  check(scene.peers[0].checksums[from + 1] === scene.peers[1].checksums[from + 1], 'lockstep: peers differ');
  return elapsed / (ran * 2);
}

export function runLockstep(ctx: SuiteContext): void {
  const quick = ctx.options.quick;
  const seeds = quick ? [1] : [1, 2, 3];
  const seconds = quick ? 20 : 60;
  ctx.note(
    `\n== lockstep: 8 peers × 4 orders/s, ${seconds} s simulated per run, seeds ${seeds.join(', ')} (medians) ==`,
  );
  const rows: string[][] = [];
  for (const link of LINKS) {
    const runs = seeds.map((seed) => bytesRun(link, seed, seconds));
    const bytes = median(runs.map((r) => r.bytes));
    const datagrams = median(runs.map((r) => r.datagrams));
    const wire = bytes + datagrams * IP_UDP_HEADER;
    ctx.record(`lockstep.bytes.${link.name}`, { bytes, datagrams, wire, turnMs: runs[0].turnMs });
    rows.push([
      link.name,
      `${runs[0].turnMs}`,
      median(runs.map((r) => r.orders)).toFixed(2),
      bytes.toFixed(0),
      datagrams.toFixed(1),
      `${((wire * 8) / 1000).toFixed(1)}`,
      `${((100 * bytes) / AOE_BYTES_PER_SECOND).toFixed(0)}% / ${((100 * wire) / AOE_BYTES_PER_SECOND).toFixed(0)}%`,
      `${(100 * median(runs.map((r) => r.stalled))).toFixed(1)}%`,
    ]);
  }
  const headers = [
    'link',
    'turn ms',
    'orders/s',
    'payload B/s',
    'datagrams/s',
    'on the wire kbit/s',
    'of 28.8 kbit/s (payload / wire)',
    'time stalled',
  ];
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  ctx.note('lockstep: sent per peer per second (to 7 others)');
  ctx.note([line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));

  // The unit count a 100 ms turn holds: the cost is linear in units (a + b × units), so it is
  // measured at 1 M and 4 M units (medians of 3), solved for 100 ms, and checked there.
  const turns = quick ? 6 : 12;
  const cost = (units: number) => median([0, 1, 2].map(() => turnCost(units, turns)));
  const small = turnCost(1024, quick ? 50 : 200);
  ctx.note(`lockstep: ${small.toFixed(3)} ms per peer per turn at 1,024 units (session + sim)`);
  const at1 = cost(1 << 20);
  const at4 = cost(1 << 22);
  const perUnit = (at4 - at1) / (3 << 20);
  const fixed = at1 - perUnit * (1 << 20);
  let units = Math.floor((100 - fixed) / perUnit / 1024) * 1024;
  let atUnits = cost(units);
  if (atUnits > 100) {
    units = Math.floor((units * 100) / atUnits / 1024) * 1024;
    atUnits = cost(units);
  }
  ctx.record('lockstep.maxUnits', {
    units,
    msPerTurn: atUnits,
    nsPerUnit: perUnit * 1e6,
    msPerTurnAt1024: small,
  });
  ctx.note(
    `lockstep: ${(perUnit * 1e6).toFixed(2)} ns per unit per turn; largest unit count within a 100 ms turn on one core: ${units.toLocaleString('en-US')} units (${atUnits.toFixed(1)} ms per turn measured there, session + sim)`,
  );
}
