/**
 * `npm run build && node dist/bench/prediction.js [--seed N]`: what client prediction costs and
 * how large its corrections are.
 * 1. Time (median of rounds, noisy on a shared machine): one predicted tick, a reconcile that
 *    matches, a reconcile that mispredicts and replays 10 ticks, and one shown() frame, for a small
 *    player (position, velocity, rotation, hp, grounded; 60 Hz).
 * 2. Allocation per shown() frame and per matching reconcile (sampling heap profiler).
 * 3. Corrections over a 60 s run at 150 ms RTT (9 ticks, + 0..2 ticks jitter) with 5% loss of the
 *    server's states, where the server sometimes corrects: it knocks the player (0.5% of ticks,
 *    0.2..1.5 m) and misses an input when three packets in a row were lost (p = 0.05³; the input
 *    sender's redundancy covers shorter losses), repeating the previous one.
 */
import { commandLine } from '../scripts/cli.js';
import { prng } from '../src/random/prng.js';
import { consume, median, sinkChecksum } from './harness.js';
import { allocatedPerIteration } from './support/allocation.js';
import {
  inputs,
  type Move,
  type Player,
  predictor,
  runFeedback,
  serverStates,
  spawn,
  TICK_RATE,
} from './support/prediction-scene.js';

const ROUNDS = 15;
const BATCH = 2000;
const REPLAY = 10;

/** Median µs per operation of `batch` over ROUNDS timed rounds (after two untimed ones). */
function time(batch: () => void): number {
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS + 2; r++) {
    const start = performance.now();
    batch();
    const elapsed = performance.now() - start;
    if (r >= 2) samples.push((elapsed * 1000) / BATCH);
  }
  return median(samples);
}

function costs(): void {
  const moves = inputs(prng(1), BATCH + REPLAY + 1);
  const p = predictor();
  let tick = 0;
  const predictOnly = time(() => {
    for (let i = 0; i < BATCH; i++) consume(p.predict(++tick, moves[tick % moves.length]).hp);
  });
  // A server state per tick that always differs from the prediction (hp alternates).
  const wounded: Player = { ...spawn(), hp: 99 };
  const healthy: Player = { ...spawn(), hp: 100 };
  const both = time(() => {
    for (let i = 0; i < BATCH; i++) {
      p.predict(++tick, moves[tick % moves.length]);
      p.reconcile(tick % 2 === 0 ? wounded : healthy, tick - REPLAY);
    }
  });
  const mispredicted = p.stats().mispredictions;
  // A matching reconcile: the server's state is the one predicted for that tick.
  const total = BATCH * (ROUNDS + 2) + 1;
  const long = inputs(prng(2), total + 1);
  const truth = serverStates(long);
  const q = predictor();
  let next = 0;
  const predictMatch = time(() => {
    for (let i = 0; i < BATCH; i++) {
      next++;
      q.predict(next, long[next]);
      if (next > REPLAY) consume(q.reconcile(truth[next - REPLAY], next - REPLAY) ? 1 : 0);
    }
  });
  const matching = predictMatch - predictOnly;
  let alpha = 0;
  const shown = time(() => {
    for (let i = 0; i < BATCH; i++) {
      alpha = alpha >= 1 ? 0 : alpha + 0.25;
      consume(p.shown(alpha).position[0]);
    }
  });
  console.log('cost, median µs per call (noisy: a shared 2-core machine)');
  console.log(`  predict one tick                         ${predictOnly.toFixed(2)}`);
  console.log(
    `  reconcile matching (no correction)       ${matching.toFixed(2)}   (mispredicted ${q.stats().mispredictions})`,
  );
  console.log(
    `  reconcile mispredicted + replay ${REPLAY} ticks ${(both - predictOnly).toFixed(2)}   (with its predict ${both.toFixed(2)}; mispredicted ${mispredicted})`,
  );
  console.log(`  shown(alpha) one frame                   ${shown.toFixed(2)}`);
}

function corrections(seed: number): void {
  const random = prng(seed);
  const TICKS = 60 * TICK_RATE;
  const moves = inputs(random, TICKS);
  // The inputs as the server applied them: a missed one repeats the previous.
  const applied: Move[] = moves.map((m, k) => (k > 1 && random() < 0.05 ** 3 ? moves[k - 1] : m));
  const missed = applied.filter((m, k) => m !== moves[k]).length;
  let knocks = 0;
  const truth = serverStates(applied, (_k, s) => {
    if (random() >= 0.005) return s;
    knocks++;
    const push = (0.2 + random() * 1.3) * (random() < 0.5 ? -1 : 1);
    return { ...s, position: [s.position[0] + push, s.position[1], s.position[2]] };
  });
  const p = predictor();
  let previous = 0;
  let maxFrameStep = 0;
  let maxVisual = 0;
  const { corrections: sizes } = runFeedback(p, moves, truth, random, {
    ticks: TICKS,
    rttTicks: 9,
    jitterTicks: 2,
    loss: 0.05,
    framesPerTick: 2,
    onTick: (c, q, shownX) => {
      for (const x of shownX) {
        if (c > 1) maxFrameStep = Math.max(maxFrameStep, Math.abs(x - previous));
        previous = x;
      }
      maxVisual = Math.max(maxVisual, q.stats().visualError);
    },
  });
  const s = p.stats();
  const mean = sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length);
  console.log(`corrections, 60 s at 60 Hz, 150 ms RTT (+0..33 ms), 5% state loss, seed ${seed}`);
  console.log(
    `  server: ${knocks} knocks, ${missed} missed inputs; client: ${s.reconciliations} reconciled, ${s.staleReconciles} stale`,
  );
  console.log(`  mispredictions ${s.mispredictions}, replayed ticks ${s.replayedTicks}`);
  console.log(`  correction distance (m): mean ${mean.toFixed(3)}, max ${s.maxCorrection.toFixed(3)}`);
  console.log(
    `  shown x: largest frame step ${maxFrameStep.toFixed(3)} m (walking alone ${(5.3 / TICK_RATE / 2).toFixed(3)}), largest visual error ${maxVisual.toFixed(3)} m`,
  );
}

/**
 * Bytes allocated per shown() frame (with and without a visual error) and per matching reconcile;
 * simulate's own allocation is excluded. The interpolator's blend allocates nothing (generated
 * code); what remains per frame is outside it (shown's own code, inlined into the loop).
 */
async function allocation(): Promise<void> {
  const moves = inputs(prng(3), 40);
  const truth = serverStates(moves);
  const quiet = predictor();
  const corrected = predictor({ smoothingSeconds: 1e6 });
  for (let t = 1; t < 40; t++) {
    quiet.predict(t, moves[t]);
    corrected.predict(t, moves[t]);
  }
  corrected.shown(1);
  corrected.reconcile({ ...truth[39], position: [3.25, 0.5, -1.75] }, 39);
  const frames = (p: typeof quiet) => (n: number) => {
    for (let i = 0; i < n; i++) consume(p.shown((i % 4) / 4).position[0]);
  };
  const shownQuiet = await allocatedPerIteration(frames(quiet), 200_000);
  const shownCorrected = await allocatedPerIteration(frames(corrected), 200_000);
  const reconcile = await allocatedPerIteration((n) => {
    for (let i = 0; i < n; i++) consume(quiet.reconcile(truth[30], 30) ? 1 : 0);
  }, 200_000);
  console.log('allocation, bytes per call (sampling heap profiler)');
  console.log(`  shown, no visual error                   ${shownQuiet.toFixed(1)}`);
  console.log(`  shown, visual error applied              ${shownCorrected.toFixed(1)}`);
  console.log(`  reconcile matching                       ${reconcile.toFixed(1)}`);
}

async function main(): Promise<void> {
  const values = commandLine({
    name: 'node dist/bench/prediction.js',
    description: 'Client prediction: cost of predict / reconcile / replay / shown, and correction sizes.',
    flags: { seed: { arg: 'N', help: 'seed of the correction run (default 1)' } },
  });
  costs();
  corrections(Number(values.seed ?? 1) >>> 0);
  await allocation();
  console.log(`checksum ${sinkChecksum()}`);
}

await main();
