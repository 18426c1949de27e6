import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  inputs,
  Player,
  predictor,
  quantizePlayer,
  runFeedback,
  serverStates,
  spawn,
  TICK_RATE,
} from '../../bench/support/prediction-scene.js';
import { prng } from '../../src/random/prng.js';
import { compile } from '../../src/schema/index.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('prediction');
const codec = compile(Player);
const same = (a: Player, b: Player) => Buffer.from(codec.encode(a)).equals(Buffer.from(codec.encode(b)));
const angle = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  2 * Math.acos(Math.min(1, Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3])));

describe('Predictor: reconciliation against a server running the same step', () => {
  it('predicts every acknowledged tick exactly with no loss (quantized like the server)', () => {
    const random = prng(seed);
    const moves = inputs(random, 600);
    const truth = serverStates(moves);
    const p = predictor();
    let checked = 0;
    runFeedback(p, moves, truth, random, {
      ticks: 600,
      rttTicks: 9,
      jitterTicks: 0,
      loss: 0,
      framesPerTick: 1,
      onTick: (c, q) => {
        assert.ok(same(q.state, truth[c]), `tick ${c}: the prediction is the server's state`);
        checked++;
      },
    });
    assert.equal(checked, 599);
    assert.equal(p.stats.mispredictions, 0);
    assert.equal(p.stats.reconciliations, 599 - 9);
    assert.equal(p.stats.replayedTicks, 0);
    assert.equal(p.stats.maxCorrection, 0);
    assert.ok(new Set(truth.map((s) => `${s.position[0]},${s.position[2]}`)).size > 100, 'the player walked');
    assert.ok(
      truth.some((s) => !s.grounded),
      'and jumped',
    );
  });

  it('stays exact with a jittered, lossy feedback path (older states ignored, none mispredicted)', () => {
    const random = prng(seed + 1);
    const moves = inputs(random, 600);
    const truth = serverStates(moves);
    const p = predictor();
    runFeedback(p, moves, truth, random, {
      ticks: 600,
      rttTicks: 9,
      jitterTicks: 4,
      loss: 0.2,
      framesPerTick: 1,
    });
    assert.equal(p.stats.mispredictions, 0);
    assert.ok(p.stats.staleReconciles > 0, 'reordered states were ignored');
    assert.ok(p.stats.reconciliations > 250, `${p.stats.reconciliations} reconciled`);
  });

  it('converges in one reconcile after a server push, the shown position moving smoothly', () => {
    const random = prng(seed + 2);
    const PUSH_TICK = 200;
    const PUSH = 2;
    const RTT = 9;
    const FRAMES = 4;
    const moves = inputs(random, 600);
    const truth = serverStates(moves, (k, s) =>
      k === PUSH_TICK ? { ...s, position: [s.position[0] + PUSH, s.position[1], s.position[2]] } : s,
    );
    const smoothingSeconds = 0.1;
    const p = predictor({ smoothingSeconds });
    let previousShown = 0;
    let maxStep = 0;
    let maxStepOutside = 0;
    let correctedAt = -1;
    let errorAtStart = 0;
    runFeedback(p, moves, truth, random, {
      ticks: 600,
      rttTicks: RTT,
      jitterTicks: 0,
      loss: 0,
      framesPerTick: FRAMES,
      onTick: (c, q, shownX) => {
        if (correctedAt < 0 && q.stats.mispredictions > 0) {
          correctedAt = c;
          errorAtStart = q.stats.lastCorrection;
        }
        // From the correcting reconcile on, the prediction is the server's truth.
        if (correctedAt >= 0) assert.ok(same(q.state, truth[c]), `tick ${c}: converged`);
        for (const x of shownX) {
          const step = Math.abs(x - previousShown);
          if (c > 1 && correctedAt >= 0 && c <= correctedAt + 60) maxStep = Math.max(maxStep, step);
          else if (c > 1) maxStepOutside = Math.max(maxStepOutside, step);
          previousShown = x;
        }
        if (correctedAt >= 0 && c === correctedAt + Math.ceil(5 * smoothingSeconds * TICK_RATE))
          assert.ok(
            q.stats.visualError < 0.01 * PUSH + 0.01,
            `error after 5 time constants: ${q.stats.visualError}`,
          );
        if (correctedAt >= 0 && c === correctedAt + Math.ceil(8 * smoothingSeconds * TICK_RATE))
          assert.equal(q.stats.visualError, 0, 'the error is dropped once decayed');
      },
    });
    assert.equal(correctedAt, PUSH_TICK + RTT, 'corrected when the pushed state arrived');
    assert.equal(p.stats.mispredictions, 1, 'one reconcile corrected it');
    assert.ok(Math.abs(errorAtStart - PUSH) < 0.05, `correction ${errorAtStart}`);
    // A frame moves by the walk (5.3 m/s over a quarter tick, quantized) plus one frame of decay.
    const walk = (5.3 / TICK_RATE / FRAMES) * 1.2 + 0.01;
    const decayStep = PUSH * (1 - Math.exp(-1 / FRAMES / (smoothingSeconds * TICK_RATE)));
    assert.ok(maxStepOutside <= walk, `walking frame step ${maxStepOutside}`);
    assert.ok(
      maxStep <= walk + decayStep,
      `frame step ${maxStep} after the correction, bound ${walk + decayStep}`,
    );
    assert.ok(maxStep < PUSH / 4, 'no jump');
  });

  it('snaps a correction larger than snapDistance', () => {
    const random = prng(seed + 3);
    const moves = inputs(random, 300);
    const truth = serverStates(moves, (k, s) =>
      k === 100 ? { ...s, position: [s.position[0] + 5, s.position[1], s.position[2]] } : s,
    );
    const p = predictor({ snapDistance: 1 });
    let jumped = false;
    let previous = 0;
    runFeedback(p, moves, truth, random, {
      ticks: 300,
      rttTicks: 6,
      jitterTicks: 0,
      loss: 0,
      framesPerTick: 1,
      onTick: (c, q, [x]) => {
        if (c > 1 && Math.abs(x - previous) > 4) jumped = true;
        previous = x;
        if (q.stats.mispredictions > 0) assert.equal(q.stats.visualError, 0);
      },
    });
    assert.equal(p.stats.snaps, 1);
    assert.ok(jumped, 'the shown position jumped with the correction');
  });

  it('turns a corrected rotation from the one shown, on the shortest arc', () => {
    const p = predictor();
    const moves = [{ x: 0, z: 0, jump: false, yaw: 0 }];
    for (let c = 1; c <= 10; c++) p.predict(c, moves[0]);
    const before = [...p.shown(1).facing];
    const turned: Player = { ...spawn(), facing: [0, Math.sin(1), 0, Math.cos(1)] };
    // At the newest tick, so no replay: simulate would set the facing from the input's yaw again.
    assert.equal(p.reconcile(turned, 10), true);
    assert.ok(angle(p.shown(1).facing, before) < 1e-9, 'shown where it was');
    const errors: number[] = [];
    for (let c = 11; c <= 50; c++) {
      p.predict(c, { x: 0, z: 0, jump: false, yaw: 2 });
      errors.push(angle(p.shown(1).facing, p.state.facing));
    }
    for (let i = 1; i < errors.length; i++)
      assert.ok(errors[i] <= errors[i - 1] + 1e-12, 'the turn error decays');
    assert.ok(errors[errors.length - 1] < 0.01);
  });

  it('compares within quantization: a difference below the resolution is no misprediction', () => {
    const p = predictor();
    const move = { x: 1, z: 0, jump: false, yaw: 0.5 };
    for (let c = 1; c <= 5; c++) p.predict(c, move);
    const held = quantizePlayer(p.state);
    const nudged = {
      ...held,
      position: [held.position[0] + 0.001, held.position[1], held.position[2]],
    } as Player;
    assert.equal(p.reconcile(nudged, 5), false, 'same on the wire');
    const moved = {
      ...held,
      position: [held.position[0] + 0.02, held.position[1], held.position[2]],
    } as Player;
    assert.equal(p.reconcile(moved, 5), true, 'two steps of 0.01 apart');
    assert.equal(p.reconcile(moved, 5), false, 'the same state again: now held');
    assert.equal(p.reconcile(held, 4), false, 'older than reconciled: ignored');
    assert.equal(p.stats.staleReconciles, 1);
    // Every kept state sits on the grid: quantizing it again changes nothing.
    assert.deepEqual(quantizePlayer(p.state), p.state);
  });
});
