/**
 * W4 arena (issue 10, benchmark 2), both sides in one run on the shared scene (bench/w4/scene.ts):
 * ghostwire's server through the real stack at 1,000 and 100 clients (CPU per tick for
 * relevancy, priority, delta encoding, packet writing and encryption; bytes and kbit/s per
 * client; memory per connected client; heap growth), @colyseus/schema's StateView at 100
 * clients, and the ratios against the targets. --quick: fewer ticks (about a minute).
 * Standalone: `node --expose-gc dist/bench/w4/main.js --clients N`, `node dist/bench/w4/colyseus-run.js`.
 */
import { check, collectAllGarbage, gcExposed, type SuiteContext } from '../harness.js';
import { W4_ARENA } from '../w4/arena.js';
import { runColyseusW4 } from '../w4/colyseus.js';
import { describeSideBySide } from '../w4/compare.js';
import { describeW4, retained, runW4Arena } from '../w4/measure.js';
import { W4_ENTITIES } from '../w4/scene.js';

export function runW4(ctx: SuiteContext): void {
  if (!gcExposed) ctx.note('w4: GC not exposed (run node with --expose-gc): memory figures are noise');
  const quick = ctx.options.quick;
  const ticks = quick ? { warmupTicks: 20, ticks: 40 } : { warmupTicks: 40, ticks: 120 };
  const progress = (line: string) => ctx.note(line);
  const big = runW4Arena({ clients: 1000, ...ticks }, progress);
  for (const line of describeW4(big)) ctx.note(line);
  collectAllGarbage();
  const small = runW4Arena({ clients: 100, ...ticks }, progress);
  for (const line of describeW4(small)) ctx.note(line);
  collectAllGarbage();
  const colyseus = runColyseusW4({
    entities: W4_ENTITIES,
    clients: 100,
    ...ticks,
    seed: W4_ARENA.seed,
    verifyClients: 1,
    retained,
  });
  check(
    colyseus.mismatches === 0,
    `w4: the Colyseus peer's client disagreed with the server: ${colyseus.firstMismatch}`,
  );
  for (const line of describeSideBySide(big, small, colyseus)) ctx.note(line);
  ctx.record('w4', { ghostwire: big, ghostwire100: small, colyseus });
}
