/**
 * `npm run build && node dist/bench/w3-lanes.js [--frames N]`: bits per changed cube of the entity
 * delta codec on the W3 cube scene (../shared/workloads/W3.md, its reference generator), against
 * baselines 1 and 6 frames old (6 ≈ the ack delay at 50 ms one way), beside the absolute
 * encoding; then the cost of the changed-lane set forms beside serialize's subset encodings, and
 * the speed of quantize / write / read. Skips with a message where ../shared is absent.
 */
import { commandLine, flagValue, positiveIntegerFlag } from '../scripts/cli.js';
import { measureDelta, readDelta, writeDelta } from '../src/replication/entity-delta.js';
import type { LaneState } from '../src/replication/lane-state.js';
import { compileLayout } from '../src/replication/layout.js';
import { compile } from '../src/schema/codec.js';
import { MeasureStream } from '../src/serialize/measure-stream.js';
import { ReadStream } from '../src/serialize/read-stream.js';
import {
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetRelative,
  serializeSubsetSentinel,
} from '../src/serialize/subset.js';
import { WriteStream } from '../src/serialize/write-stream.js';
import { CubeSchema, type CubeValue, cubeValue, loadScene, type SceneModule } from './w3/scene.js';

const args = commandLine({
  name: 'node dist/bench/w3-lanes.js',
  description:
    'Bits per changed cube of the entity delta codec on the W3 cube scene, the changed-lane set forms, and codec speed.',
  flags: { frames: { arg: 'N', help: 'frames of the scene to run (default 1200)' } },
});
const frames = flagValue(() => positiveIntegerFlag('--frames', args.frames, 1200));
const loaded = await loadScene();
if (typeof loaded === 'string') {
  console.log(`w3-lanes: skipped, ${loaded}`);
  process.exit(0);
}
const scene: SceneModule = loaded;
const layout = compileLayout(CubeSchema);
const codec = compile(CubeSchema);
const LAGS = [1, 6];
const HISTORY = Math.max(...LAGS) + 1;

// history[f % HISTORY][k]: the quantized state of cube k at frame f.
const history: LaneState[][] = Array.from({ length: HISTORY }, () =>
  Array.from({ length: scene.CUBES }, () => layout.createState()),
);
const state = scene.initialState();
const value: CubeValue = { position: { x: 0, y: 0, z: 0 }, orientation: [0, 0, 0, 1], rest: true };
const probe = layout.createState();
const totals = LAGS.map(() => ({ cubes: 0, bits: 0, position: 0, orientation: 0 }));
let absoluteBits = 0;
for (let f = 0; f <= frames; f++) {
  if (f > 0) scene.step(state);
  const now = history[f % HISTORY];
  for (let k = 0; k < scene.CUBES; k++) layout.quantize(cubeValue(state, k, value), now[k]);
  if (f < HISTORY) continue;
  LAGS.forEach((lag, i) => {
    const then = history[(f - lag) % HISTORY];
    for (let k = 0; k < scene.CUBES; k++) {
      const a = now[k].lanes;
      const b = then[k].lanes;
      let changed = false;
      for (let l = 0; l < a.length; l++) changed ||= a[l] !== b[l];
      if (!changed) continue;
      totals[i].cubes++;
      totals[i].bits += measureDelta(layout, now[k], then[k]);
      if (a[3] !== b[3]) {
        // The orientation's own bits: a state differing from the baseline in that lane alone.
        probe.lanes.set(b);
        probe.lanes[3] = a[3];
        totals[i].orientation += measureDelta(layout, probe, then[k]) - 5;
      }
      if (i === 0) absoluteBits += codec.measure(layout.dequantize(now[k]) as CubeValue);
    }
  });
}
console.log(`W3, ${frames} frames, ${scene.CUBES} cubes; bits per changed cube (entity index not included):`);
console.log(`  absolute (the schema codec): ${(absoluteBits / totals[0].cubes).toFixed(1)}`);
LAGS.forEach((lag, i) => {
  const tot = totals[i];
  const flags = 5;
  const rest = tot.bits / tot.cubes - flags - tot.orientation / tot.cubes;
  console.log(
    `  delta vs ${lag}-frame-old baseline: ${(tot.bits / tot.cubes).toFixed(1)} over ${(tot.cubes / (frames + 1 - HISTORY)).toFixed(1)} cubes/frame` +
      ` (flags 5, orientation ${(tot.orientation / tot.cubes).toFixed(1)}, position + rest ${rest.toFixed(1)})`,
  );
});

// The changed-lane set: this codec's forms beside serialize's subset encodings (random k of S).
const measure = new MeasureStream();
let seed = 12345;
const random = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed % n;
};
console.log('\nchanged-lane set, mean bits (S lanes, k changed): ours | bitmask indices sentinel relative');
for (const lanes of [5, 10, 20, 40]) {
  for (const k of [1, 2, 3, 5]) {
    if (k > lanes) continue;
    const sums = [0, 0, 0, 0, 0];
    const trials = 2000;
    for (let trial = 0; trial < trials; trial++) {
      const set = new Set<number>();
      while (set.size < k) set.add(random(lanes));
      const indices = [...set].sort((x, y) => x - y);
      const indexBits = 32 - Math.clz32(lanes);
      // Flags alone up to 8 lanes; above, a tag and the cheaper of flags and the index list.
      sums[0] += lanes <= 8 ? lanes : 1 + Math.min(lanes, (k + 1) * indexBits);
      [
        serializeSubsetBitmask,
        serializeSubsetIndices,
        serializeSubsetSentinel,
        serializeSubsetRelative,
      ].forEach((encode, e) => {
        measure.reset();
        encode(measure, indices, lanes, lanes);
        sums[e + 1] += measure.bitsProcessed;
      });
    }
    console.log(`  S ${lanes}, k ${k}: ${sums.map((s) => (s / trials).toFixed(1)).join(' | ')}`);
  }
}

// Speed: per cube, on the last frame's states.
const ws = new WriteStream(64);
const rs = new ReadStream();
const out = layout.createState();
const now = history[frames % HISTORY];
const then = history[(frames - 6) % HISTORY];
function time(label: string, rounds: number, body: (k: number) => void): void {
  const start = performance.now();
  for (let r = 0; r < rounds; r++) for (let k = 0; k < scene.CUBES; k++) body(k);
  const ns = ((performance.now() - start) * 1e6) / (rounds * scene.CUBES);
  console.log(`  ${label}: ${ns.toFixed(0)} ns per cube`);
}
console.log('\nspeed (901 cubes × rounds):');
const scratch = layout.createState();
time('quantize', 200, (k) => layout.quantize(cubeValue(state, k, value), scratch));
time('dequantize in place', 200, (k) => layout.dequantize(now[k], value));
time('measureDelta', 200, (k) => measureDelta(layout, now[k], then[k]));
time('writeDelta', 200, (k) => {
  ws.reset();
  writeDelta(ws, layout, now[k], then[k]);
});
const encoded = now.map((s, k) => {
  ws.reset();
  writeDelta(ws, layout, s, then[k]);
  return ws.finish().slice();
});
time('readDelta', 200, (k) => {
  rs.reset(encoded[k]);
  if (!readDelta(rs, layout, then[k], out)) throw new Error(`w3-lanes: read failed: ${rs.error}`);
});
