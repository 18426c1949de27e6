/**
 * Latency (issue 11): the whole stack end to end in the latency scene (bench/latency/scene.ts: a
 * 60 Hz server, a predicted player moved by inputs, four runners shown through the adaptive
 * interpolation delay, shots at runner 0 rewound by lag compensation) over the network simulator,
 * per link: clock-sync error over time, input-to-display latency with and without prediction, the
 * display delay of remote entities against Fiedler's three packet intervals, mispredictions and the
 * size of corrections, input bytes per second, and shots that hit what the shooter saw. Medians over
 * seeds (worst for the error tails). The per-call costs are in the part benches:
 * dist/bench/inputs.js, dist/bench/prediction.js, dist/bench/lag-compensation.js.
 */
import { check, type SuiteContext } from '../harness.js';
import { type LatencySceneOptions, type LatencySceneResult, runLatencyScene } from '../latency/scene.js';

interface Link {
  name: string;
  options: Omit<LatencySceneOptions, 'seed' | 'seconds'>;
}

const LINKS: Link[] = [
  { name: '100 ms RTT ± 40, no loss', options: { latencyMs: 50, jitterMs: 20, loss: 0 } },
  {
    name: '150 ms RTT ± 30, 5% loss, shoved every 2 s',
    options: { latencyMs: 75, jitterMs: 15, loss: 5, shoveAt: 3, shoveEvery: 2 },
  },
  { name: '150 ms RTT ± 30, 20% loss', options: { latencyMs: 75, jitterMs: 15, loss: 20 } },
];
/** Seconds after which the error tails are taken (the clock and buffers have settled). */
const SETTLED = 2;

const median = (values: number[]) => {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)];
};
const f2 = (n: number) => n.toFixed(2);

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** |clock-sync error| (ticks) at and after `from` seconds, before `to`. */
function errors(r: LatencySceneResult, from: number, to = Number.POSITIVE_INFINITY): number[] {
  return r.clockErrors.filter((e) => e.at >= from && e.at < to).map((e) => Math.abs(e.error));
}

function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function runLatency(ctx: SuiteContext): void {
  const seeds = ctx.options.quick ? [1, 2] : [1, 2, 3, 4, 5];
  const seconds = ctx.options.quick ? 8 : 20;
  ctx.note(
    `\n== latency: the whole stack at 60 Hz, ${seconds} s per run, seeds ${seeds.join(', ')} (medians) ==`,
  );
  const rows: string[][] = [];
  const overTime: string[][] = [];
  for (const link of LINKS) {
    const runs = seeds.map((seed) => runLatencyScene({ ...link.options, seed, seconds }));
    for (const r of runs) {
      check(r.backwards === 0, `latency ${link.name} seed ${r.seed}: interpolation went back in time`);
      check(r.outside === 0, `latency ${link.name} seed ${r.seed}: interpolated outside the states`);
    }
    const settled = runs.map((r) => errors(r, SETTLED));
    const corrections = runs.flatMap((r) => r.corrections);
    const shots = runs.reduce((n, r) => n + r.shots, 0);
    const hits = runs.reduce((n, r) => n + r.hits, 0);
    const row = {
      clockP50: median(settled.map((e) => quantile(e, 0.5))),
      clockP99: median(settled.map((e) => quantile(e, 0.99))),
      clockMax: Math.max(...settled.map((e) => Math.max(...e))),
      predictedDelay: median(runs.map((r) => r.predictedDisplayDelayTicks)),
      mirrorDelay: median(runs.map((r) => r.mirrorDisplayDelayTicks)),
      delay: median(runs.map((r) => r.meanDelayTicks)),
      fiedler: runs[0].fiedlerTicks,
      starved: runs.reduce((n, r) => n + r.starved, 0) / runs.reduce((n, r) => n + r.samples, 0),
      mispredictions: median(runs.map((r) => r.mispredictions)),
      correctionMean:
        corrections.length === 0 ? 0 : corrections.reduce((a, b) => a + b, 0) / corrections.length,
      correctionMax: corrections.length === 0 ? 0 : Math.max(...corrections),
      inputBytes: median(runs.map((r) => r.inputBytesPerSecond)),
      repeated: median(runs.map((r) => r.repeatedInputs)),
      hitRate: shots === 0 ? Number.NaN : hits / shots,
    };
    ctx.record(`latency.${link.name}`, row);
    rows.push([
      link.name,
      `${f2(row.clockP50)} / ${f2(row.clockP99)} / ${f2(row.clockMax)}`,
      `${row.predictedDelay.toFixed(1)} / ${row.mirrorDelay.toFixed(1)}`,
      `${f2(row.delay)} / ${row.fiedler}`,
      `${(100 * row.starved).toFixed(2)}%`,
      `${row.mispredictions} (${f2(row.correctionMean)} / ${f2(row.correctionMax)} m)`,
      `${row.inputBytes.toFixed(0)}`,
      `${row.repeated}`,
      `${(100 * row.hitRate).toFixed(2)}%`,
    ]);
    const windows: [number, number][] = [
      [0.5, 1],
      [1, 2],
      [2, 4],
      [4, seconds],
    ];
    overTime.push([
      link.name,
      ...windows.map(([from, to]) => f2(Math.max(...runs.map((r) => Math.max(0, ...errors(r, from, to)))))),
    ]);
  }
  ctx.note(
    renderTable(
      [
        'link',
        'clock error p50 / p99 / max (ticks)',
        'input→display predicted / not (ticks)',
        'remote delay / 3× rule (ticks)',
        'starved',
        'mispredictions (correction mean / max)',
        'input B/s',
        'inputs repeated',
        'shots hit',
      ],
      rows,
    ),
  );
  ctx.note('\nclock-sync |error| over time, worst of the seeds (ticks):');
  ctx.note(renderTable(['link', '0.5-1 s', '1-2 s', '2-4 s', `4-${seconds} s`], overTime));
  ctx.note(
    [
      'clock error: ClockSync.estimate − the server clock, from 2 s on. input→display: ticks from a changed input',
      'to the player shown moving — predicted (the input is applied at its own tick) and as the mirror shows it',
      'without prediction (a round trip plus the server input buffer). remote delay: the adaptive interpolation',
      "delay's mean after 2 s against Fiedler's 3 packet intervals (snapshots every tick). mispredictions: a",
      'median per run; corrections are the shoves (3 m). inputs repeated: server ticks with no input after 2 s.',
      'input B/s: the input channel entries (2 axes, fire, an aim of two 1/64 m floats; shots 4 a second, each',
      'with the render tick) at the client frame rate (~100 packets/s). shots hit: within one 1/64 m step of',
      'the rewound runner.',
    ].join('\n'),
  );
}
