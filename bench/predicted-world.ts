/**
 * `npm run build && node dist/bench/predicted-world.js`: what a rollback of the predicted world
 * costs against the number of entities predicted (PredictedWorld, src/latency/predicted-world.ts).
 * Each iteration predicts one tick (every entity moves) and receives a server state for one entity
 * that differs from its prediction `depth` ticks back: one rollback restores it there and replays
 * every predicted entity to now (N × depth moves, each quantized through the schema). The entity
 * is a sliding crate (x, y, vx: a 1/64 m grid). Median µs per tick over rounds; noisy on a shared
 * machine.
 */
import { PredictedWorld } from '../src/latency/predicted-world.js';
import { defineEntity } from '../src/replication/entity-type.js';
import { t } from '../src/schema/schema.js';
import { consume, median } from './harness.js';

const coord = t.float(-512, 512, 1 / 64);
const Crate = defineEntity('crate', t.object({ x: coord, y: coord, vx: t.int(-8, 8) }));
type CrateState = { x: number; y: number; vx: number };
const move = (c: CrateState): CrateState => ({ ...c, x: c.x + c.vx / 64 });
const ROUNDS = 9;
const TICKS = 400;

/** µs per predicted tick with `count` entities predicted, one mispredicting `depth` ticks back each tick (depth 0: none). */
function perTick(count: number, depth: number): { us: number; resimulated: number } {
  const ghosts = new Map<
    number,
    { id: number; type: typeof Crate; value: CrateState; tick: number; generation: number }
  >();
  for (let id = 0; id < count; id++)
    ghosts.set(id, { id, type: Crate, value: { x: id % 8, y: 0, vx: 4 }, tick: 1, generation: 0 });
  // The server's tick s applied input tick s; every report known.
  const mirror = { ghost: (id: number) => ghosts.get(id) ?? null, capacity: count };
  let newest = 1;
  const inputs = {
    appliedInputTick: (s: number) => (s <= newest ? s : -1),
    get reportedTick() {
      return newest;
    },
  };
  const world = new PredictedWorld({
    mirror: mirror as never,
    inputs: inputs as never,
    tickRate: 30,
    maxPredicted: 4096,
    types: new Map([
      [
        Crate,
        {
          move: move as (s: unknown) => unknown,
          near: 1e6,
          position: (s: unknown) => [(s as CrateState).x, 0] as const,
        },
      ],
    ]),
  });
  let tick = 1;
  world.advance(tick);
  world.updateNear(ghosts.keys(), [0, 0]);
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS + 2; round++) {
    const start = performance.now();
    for (let i = 0; i < TICKS; i++) {
      tick++;
      world.advance(tick);
      newest = tick;
      if (depth > 0) {
        // Entity 0's server state `depth` ticks back, nudged off the prediction.
        const g = ghosts.get(0)!;
        const at = tick - depth;
        g.value = { x: (at % 64) / 64 + (i % 2) / 64, y: 0, vx: 4 };
        g.tick = at;
      }
      world.reconcile(tick);
    }
    const elapsed = performance.now() - start;
    if (round >= 2) samples.push((elapsed * 1000) / TICKS);
  }
  const stats = world.stats();
  consume(stats.rollbacks);
  if (world.stats().predicted !== count)
    throw new Error(`predicted ${world.stats().predicted}, expected ${count}`);
  return { us: median(samples), resimulated: stats.resimulatedTicks / Math.max(1, stats.rollbacks) };
}

const rows: string[][] = [
  ['predicted', 'no rollback µs/tick', 'depth 6 µs/tick', 'depth 10 µs/tick', 'moves per rollback (d10)'],
];
for (const count of [1, 8, 32, 128]) {
  const none = perTick(count, 0);
  const d6 = perTick(count, 6);
  const d10 = perTick(count, 10);
  rows.push([
    String(count),
    none.us.toFixed(1),
    d6.us.toFixed(1),
    d10.us.toFixed(1),
    d10.resimulated.toFixed(0),
  ]);
}
console.log(`PredictedWorld: one rollback a tick against entities predicted (node ${process.version})`);
for (const row of rows) console.log(row.map((cell) => cell.padStart(12)).join(' '));
