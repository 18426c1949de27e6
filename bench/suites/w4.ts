/**
 * W4 arena capacity (issue 10, benchmark 2): the server's CPU per 20 Hz tick for relevancy,
 * priority, delta encoding, packet writing and encryption for 1,000 connected clients, their
 * kbit/s, heap growth and server memory per client (see bench/w4/). --quick: 20 + 40 ticks.
 * Standalone, with other client counts: `node --expose-gc dist/bench/w4/main.js --clients N`.
 */
import { gcExposed, type SuiteContext } from '../harness.js';
import { describeW4, runW4Scene } from '../w4/measure.js';

export function runW4(ctx: SuiteContext): void {
  if (!gcExposed) ctx.note('w4: GC not exposed (run node with --expose-gc): memory figures are noise');
  const quick = ctx.options.quick;
  const result = runW4Scene(
    { clients: 1000, warmupTicks: quick ? 20 : 40, ticks: quick ? 40 : 120 },
    (line) => ctx.note(line),
  );
  for (const line of describeW4(result)) ctx.note(line);
  ctx.record('w4', result);
}
