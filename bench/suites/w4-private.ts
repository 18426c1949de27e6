/**
 * W4 arena with a private 32-byte field per entity (issue 27), beside the plain scene in the same
 * run: 'owner' (each client's followed entity is its own, whose secret changes every tick) and
 * 'team' (four teams by kind, 1% of secrets changing a tick), and 'public' (the same field and
 * changes as 'owner', seen by everyone: the field's own cost). CPU per server tick at 100 and
 * 1,000 clients, bytes per client. --quick: fewer ticks.
 */
import { collectAllGarbage, type SuiteContext } from '../harness.js';
import type { W4Private } from '../w4/arena.js';
import { runW4Arena, type W4Result } from '../w4/measure.js';

export function runW4Private(ctx: SuiteContext): void {
  const quick = ctx.options.quick;
  const ticks = quick ? { warmupTicks: 20, ticks: 40 } : { warmupTicks: 40, ticks: 120 };
  const results: Record<string, W4Result> = {};
  for (const clients of [100, 1000]) {
    for (const privateField of [null, 'public', 'owner', 'team'] as (W4Private | null)[]) {
      const r = runW4Arena({ clients, ...ticks, privateField });
      collectAllGarbage();
      const name = `${clients} clients, ${privateField ?? 'plain'}`;
      results[name] = r;
      ctx.note(
        `w4-private ${name}: server CPU ${r.serverCpuMs.toFixed(2)} ms/tick (wall ${r.serverWallMs.toFixed(2)}; ` +
          `the game's writes ${r.writeCpuMs.toFixed(2)} more), ` +
          `${r.bytesPerClientPerTick.toFixed(1)} B/client/tick, ${r.updatesPerClientPerTick.toFixed(1)} updates/client/tick, ` +
          `${r.meanGhosts.toFixed(0)} ghosts/client, replication ${(r.replicationBytesPerClient / 1024).toFixed(1)} KiB/client`,
      );
    }
  }
  ctx.record('w4-private', results);
}
