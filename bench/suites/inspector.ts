/**
 * The network inspector's cost (issue 27): the W4 arena's server CPU per tick with no inspector,
 * with one left detached (watched through the warmup, then stopped), and with one client
 * watched, in the same run, alternated over rounds so drift hits each alike. A detached inspector
 * must be within noise of none. --quick: fewer ticks and rounds.
 */
import { collectAllGarbage, type SuiteContext } from '../harness.js';
import { runW4Arena } from '../w4/measure.js';

type Mode = 'absent' | 'detached' | 'watched';

export function runInspector(ctx: SuiteContext): void {
  const quick = ctx.options.quick;
  const ticks = quick ? { warmupTicks: 20, ticks: 40 } : { warmupTicks: 40, ticks: 120 };
  const rounds = quick ? 2 : 3;
  const clients = 1000;
  const modes: Mode[] = ['absent', 'detached', 'watched'];
  const cpu: Record<Mode, number[]> = { absent: [], detached: [], watched: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      const r = runW4Arena({ clients, ...ticks, inspector: mode });
      collectAllGarbage();
      cpu[mode].push(r.serverCpuMs);
    }
  }
  const results: Record<string, { serverCpuMs: number; rounds: number[] }> = {};
  for (const mode of modes) {
    const sorted = [...cpu[mode]].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    results[mode] = { serverCpuMs: median, rounds: cpu[mode] };
    ctx.note(
      `inspector ${mode}: W4 ${clients} clients, server CPU ${median.toFixed(2)} ms/tick (median of ${rounds} rounds: ${cpu[mode].map((v) => v.toFixed(2)).join(', ')})`,
    );
  }
  ctx.record('inspector', results);
}
