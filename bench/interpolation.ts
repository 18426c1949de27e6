/**
 * `npm run build && node --expose-gc dist/bench/interpolation.js`: bytes allocated after warm-up
 * (V8's sampling heap profiler) per blend of compileInterpolator, per GhostSampler.sample, per
 * Predictor.shown frame and per LagCompensation.rewind that tests one entity; the generated
 * interpolator against the closure fallback (`codegen: false`, what a strict CSP gets) where the
 * caller takes an interpolator. Also the median time per blend of 9 runs (noisy: a shared machine).
 */
import { commandLine } from '../scripts/cli.js';
import { type Infer, t } from '../src/index.js';
import {
  compileInterpolator,
  GhostSampler,
  type Interpolator,
  LagCompensation,
} from '../src/latency/index.js';
import { prng } from '../src/random/prng.js';
import { EntityHistory } from '../src/replication/index.js';
import { compileLayout } from '../src/replication/layout.js';
import { consume, median, sinkChecksum } from './harness.js';
import { allocatedPerIteration } from './support/allocation.js';
import { inputs, predictor } from './support/prediction-scene.js';
import { Soldier, SoldierType } from './support/soldier.js';

const Mob = t.object({
  position: t.vector3(t.float(-512, 512, 0.01)),
  speed: t.float32(),
  facing: t.quaternion(),
  hp: t.int(0, 100),
  alive: t.bool(),
  path: t.array(t.float32(), 4),
  gear: t.object({ level: t.uint8(), weight: t.float32() }),
});
type Mob = Infer<typeof Mob>;

const N = 200_000;

function mob(x: number): Mob {
  return {
    position: [x + 0.25, 2.5, -x - 0.75],
    speed: x * 1.5 + 0.1,
    facing: [0, Math.sin(x), 0, Math.cos(x)],
    hp: 50,
    alive: true,
    path: [x + 0.1, x + 0.2],
    gear: { level: 3, weight: x + 0.3 },
  };
}

/**
 * Into an output the interpolator made (passing undefined once), and into a caller's `{}`: V8 may
 * give the latter's float fields a boxed representation (see plainObjectMaker), as GhostSampler's
 * and LagCompensation's outputs get.
 */
async function blend(lerp: Interpolator<Mob>): Promise<{ bytes: number; braces: number; ns: number }> {
  const a = mob(1.1);
  const b = mob(1.7);
  const out = lerp.interpolate(a, b, 0.25, undefined as unknown as Mob);
  const braced = lerp.interpolate(a, b, 0.25, {} as Mob);
  // Constant fractions: a double computed in this loop would be boxed by the call, not the blend.
  const bytes = await allocatedPerIteration((n) => {
    for (let i = 0; i < n; i++) lerp.interpolate(a, b, 0.375, out);
  }, N);
  const braces = await allocatedPerIteration((n) => {
    for (let i = 0; i < n; i++) lerp.interpolate(a, b, 0.375, braced);
  }, N);
  const times: number[] = [];
  for (let r = 0; r < 9; r++) {
    const start = performance.now();
    for (let i = 0; i < N; i++) lerp.interpolate(a, b, 0.375, out);
    times.push(((performance.now() - start) * 1e6) / N);
  }
  consume(out.position[0]);
  return { bytes, braces, ns: median(times) };
}

async function sample(lerp: Interpolator<Mob>): Promise<number> {
  const layout = compileLayout(Mob);
  const history = new EntityHistory(layout as never, 8);
  for (let tick = 1; tick <= 8; tick++) layout.quantize(mob(tick / 10), history.slotFor(tick));
  const sampler = new GhostSampler(lerp);
  // An integer consumed (a double passed to consume would be boxed), the same render tick each time (interpolated between ticks 6 and 7): the two states stay loaded.
  return allocatedPerIteration((n) => {
    for (let i = 0; i < n; i++) consume(sampler.sample(history, 6.5)!.hp);
  }, N);
}

async function rewind(lerp: Interpolator<Soldier>): Promise<number> {
  const lc = new LagCompensation({
    interpolator: lerp,
    bounds: (s: Soldier, out: Float64Array) => {
      for (let a = 0; a < 3; a++) {
        out[a] = s.position[a] - s.radius;
        out[a + 3] = s.position[a] + s.radius;
      }
    },
    tickRate: 60,
    capacity: 4,
    layout: SoldierType.layout,
  });
  for (let tick = 1; tick <= 60; tick++)
    for (let id = 0; id < 4; id++) {
      const angle = tick / 20 + id;
      lc.record(tick, id, {
        position: [id * 10 + Math.cos(angle), Math.sin(angle), 0],
        facing: [0, 0, Math.sin(angle / 2), Math.cos(angle / 2)],
        radius: 0.6,
        hp: 100,
        teleported: false,
      });
    }
  const volume = [-1.5, -1.5, -1, 1.5, 1.5, 1]; // soldier 0 only
  let tested = 0;
  const test = () => {
    tested++;
  };
  const bytes = await allocatedPerIteration((n) => {
    for (let i = 0; i < n; i++) lc.rewind(0, 40, 0.5, volume, test);
  }, N);
  if (tested === 0) throw new Error('no soldier was tested');
  return bytes;
}

async function shown(): Promise<number> {
  const moves = inputs(prng(3), 40);
  const p = predictor();
  for (let tick = 1; tick < 40; tick++) p.predict(tick, moves[tick]);
  // A constant alpha and an integer consumed: a double passed to a call would be boxed by the caller.
  return allocatedPerIteration((n) => {
    for (let i = 0; i < n; i++) consume(p.shown(0.375).hp);
  }, N);
}

async function main(): Promise<void> {
  commandLine({
    name: 'node --expose-gc dist/bench/interpolation.js',
    description: 'Allocation and time per interpolator blend, GhostSampler.sample, Predictor.shown, rewind.',
    flags: {},
  });
  console.log('bytes allocated per call after warm-up (sampling heap profiler); ns per blend: median of 9');
  for (const codegen of [true, false]) {
    const name = codegen ? 'generated' : 'fallback ';
    const b = await blend(compileInterpolator(Mob, { codegen }));
    const s = await sample(compileInterpolator(Mob, { codegen }));
    const r = await rewind(compileInterpolator(Soldier, { codegen, teleportField: 'teleported' }));
    console.log(
      `  ${name}: blend ${b.bytes.toFixed(1)} B (${b.ns.toFixed(0)} ns; into a {} ${b.braces.toFixed(1)} B), ` +
        `GhostSampler.sample ${s.toFixed(1)} B, ` +
        `rewind of one ${r.toFixed(1)} B`,
    );
  }
  console.log(`  Predictor.shown (its own interpolator, default options): ${(await shown()).toFixed(1)} B`);
  console.log(`checksum ${sinkChecksum()}`);
}

await main();
