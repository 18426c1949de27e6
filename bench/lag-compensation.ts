/**
 * `npm run build && node dist/bench/lag-compensation.js`: the cost of a lag-compensated hit test
 * and the interpolation delay the adaptive rule settles at.
 *
 * 1. LagCompensation at 60 ticks/s with 1 s of history: 64 soldiers recorded every tick, then
 *    rewinds to random view ticks in the history with a small volume (a hitscan's box, touching
 *    one or two soldiers) and with a volume of everything (all 64 blended and tested). Medians of
 *    7 timed runs (the machine is shared: timings are noisy), and bytes allocated per rewind.
 * 2. InterpolationDelay on 20 Hz snapshots (every 3 ticks at 60 ticks/s), 50 ms latency, 0 and
 *    20 ms of jitter, 0, 5 and 20% loss, 30 s per seed, 5 seeds: the delay it settles at and the frames
 *    it starved, against Fiedler's rule held fixed (3 intervals: 9 ticks, 150 ms).
 */
import { commandLine } from '../scripts/cli.js';
import { compileInterpolator, LagCompensation } from '../src/latency/index.js';
import { prng } from '../src/random/prng.js';
import { allocatedPerIteration } from './support/allocation.js';
import { runLink } from './support/snapshot-link.js';
import { Soldier, SoldierType } from './support/soldier.js';

const TICK_RATE = 60;
const ENTITIES = 64;
const RUNS = 7;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

function bounds(s: Soldier, out: Float64Array): void {
  for (let a = 0; a < 3; a++) {
    out[a] = s.position[a] - s.radius;
    out[a + 3] = s.position[a] + s.radius;
  }
}

/** Soldier `id`'s position at `tick`: a circle of 1 m around its cell of an 8 × 8 grid 10 m apart. */
function where(id: number, tick: number): [number, number] {
  const a = tick / 20 + id;
  return [(id % 8) * 10 + Math.cos(a), Math.floor(id / 8) * 10 + Math.sin(a)];
}

/** 64 soldiers on an 8 × 8 grid 10 m apart, each walking a small circle, recorded for 3 s. */
function filled(): LagCompensation<Soldier> {
  const lc = new LagCompensation({
    interpolator: compileInterpolator(Soldier, { teleportField: 'teleported' }),
    bounds,
    tickRate: TICK_RATE,
    capacity: ENTITIES,
    layout: SoldierType.layout,
  });
  const value: Soldier = {
    position: [0, 0, 0],
    facing: [0, 0, 0, 1],
    radius: 0.6,
    hp: 100,
    teleported: false,
  };
  for (let tick = 1; tick <= 3 * TICK_RATE; tick++)
    for (let id = 0; id < ENTITIES; id++) {
      const a = tick / 20 + id;
      value.position = [...where(id, tick), 0];
      value.facing = [0, 0, Math.sin(a / 2), Math.cos(a / 2)];
      lc.record(tick, id, value);
    }
  return lc;
}

function rewindCost(): void {
  const lc = filled();
  const random = prng(1);
  const present = lc.presentTick;
  const everything = [-1e9, -1e9, -1e9, 1e9, 1e9, 1e9];
  // The shots, made before timing: a view tick in the history and a 0.2 m box on a random
  // soldier's path (where it stood at that tick), so one soldier is tested.
  const SHOTS = 1024;
  const views = new Float64Array(SHOTS);
  const boxes: Float64Array[] = [];
  for (let i = 0; i < SHOTS; i++) {
    views[i] = present - 1 - random() * (lc.historyTicks - 2);
    const [x, y] = where((random() * ENTITIES) | 0, Math.floor(views[i]));
    boxes.push(Float64Array.of(x - 0.1, y - 0.1, -1, x + 0.1, y + 0.1, 1));
  }
  let hits = 0;
  const test = (_id: number, s: Soldier) => {
    if (s.hp > 0) hits++;
  };
  const run = (volume: 'small' | 'all', n: number) => {
    for (let i = 0; i < n; i++) {
      const view = views[i & (SHOTS - 1)];
      const tick = Math.floor(view);
      lc.rewind(0, tick, view - tick, volume === 'small' ? boxes[i & (SHOTS - 1)] : everything, test);
    }
  };
  for (const volume of ['small', 'all'] as const) {
    const n = volume === 'small' ? 50_000 : 10_000;
    run(volume, n); // warm up
    const before = lc.stats(0);
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const start = performance.now();
      run(volume, n);
      times.push(((performance.now() - start) * 1000) / n);
    }
    const after = lc.stats(0);
    const tested = (after.entitiesTested - before.entitiesTested) / (after.rewinds - before.rewinds);
    console.log(
      `rewind, ${ENTITIES} entities, ${volume === 'small' ? 'small volume' : 'volume of everything'}: ` +
        `${median(times).toFixed(2)} µs median of ${RUNS} runs (min ${Math.min(...times).toFixed(2)}, ` +
        `max ${Math.max(...times).toFixed(2)}); ${tested.toFixed(2)} entities tested per rewind`,
    );
  }
  if (hits === 0) throw new Error('no entity was ever tested');
}

async function allocation(): Promise<void> {
  const lc = filled();
  const noop = () => {};
  // Constant arguments: a double passed from this loop would be boxed by the caller, not the rewind.
  const bytes = async (volume: number[]) =>
    allocatedPerIteration((n) => {
      for (let i = 0; i < n; i++) lc.rewind(0, 150, 0.5, volume, noop);
    }, 200_000);
  const missing = await bytes([500, 500, -1, 501, 501, 1]);
  const one = await bytes([9.5, -1, -1, 10.5, 1, 1]);
  console.log(
    `rewind allocation after warm-up: ${missing.toFixed(3)} bytes when no entity is tested, ` +
      `${one.toFixed(1)} bytes with one tested`,
  );
}

function delays(): void {
  const seeds = [1, 2, 3, 4, 5];
  const tickMs = 1000 / TICK_RATE;
  console.log(`interpolation delay, 20 Hz snapshots (3 ticks), 50 ms latency, 30 s x ${seeds.length} seeds:`);
  for (const [jitterMs, loss] of [
    [0, 0],
    [20, 0],
    [20, 0.05],
    [20, 0.2],
  ]) {
    const phases = [{ seconds: 30, latencyMs: 50, jitterMs, loss }];
    const adaptive = seeds.map((s) => runLink(s, phases));
    const fixed = seeds.map((s) =>
      runLink(s, phases, { delay: { jitterMultiple: 0, starvationTarget: 0.999 } }),
    );
    const ticks = median(adaptive.map((r) => r.delay.ticks));
    const frames = adaptive.reduce((sum, r) => sum + r.frames, 0);
    const starved = adaptive.reduce((sum, r) => sum + r.sampler.starved, 0);
    const fixedStarved = fixed.reduce((sum, r) => sum + r.sampler.starved, 0);
    console.log(
      `  jitter ±${jitterMs} ms, loss ${loss * 100}%: settles at ${ticks.toFixed(2)} ticks ` +
        `(${(ticks * tickMs).toFixed(0)} ms; Fiedler's 3x: 9 ticks, 150 ms), ` +
        `starved ${starved} of ${frames} frames (Fiedler's fixed: ${fixedStarved})`,
    );
  }
}

async function main(): Promise<void> {
  commandLine({
    name: 'node dist/bench/lag-compensation.js',
    description: 'Lag-compensated rewind cost, and the adaptive interpolation delay against Fiedler’s rule.',
    flags: {},
  });
  rewindCost();
  await allocation();
  delays();
}

await main();
