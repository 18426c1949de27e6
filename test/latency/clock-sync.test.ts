import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClockSync, TickClock } from '../../src/latency/index.js';
import { type ClockFrame, runClockScene, worst } from '../support/clock-scene.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('clock-sync');

/** The worst |error| per half second, for the log: how the error falls over time. */
function profile(frames: ClockFrame[], key: 'estimateError' | 'clockError', seconds: number): string {
  const parts: string[] = [];
  for (let t = 0; t < seconds; t += 0.5) parts.push(worst(frames, key, t, t + 0.5).toFixed(2));
  return parts.join(' ');
}

/** The largest move of the clock beyond what real time at rate 1 explains, ticks per frame. */
function largestStep(frames: ClockFrame[], from: number, tickSeconds: number): number {
  let most = 0;
  for (let i = 1; i < frames.length; i++) {
    if (frames[i].now < from) continue;
    const expected = (frames[i].now - frames[i - 1].now) / tickSeconds;
    most = Math.max(most, Math.abs(frames[i].position - frames[i - 1].position - expected));
  }
  return most;
}

describe('ClockSync converges on the server tick', () => {
  const cases = [
    // The target: within one tick after 2 s at 50 ms ± 20 ms.
    { name: '50 ms ± 20 ms', latencyMs: 50, jitterMs: 20, loss: 0, settled: 2 },
    // Wider jitter needs more samples before the least delay shows: half the least RTT (a sum of
    // two delays) comes down slower than the least one-way delay, and until it does the estimate
    // runs ahead. Over 20000 seeds (scene as below) the worst error from 3 s on was 1.17 ticks
    // (0.05% above 1; seed 759415340: 1.14 at 3.0 s), from 5 s on 0.88.
    { name: '150 ms ± 30 ms, 5% loss', latencyMs: 150, jitterMs: 30, loss: 0.05, settled: 5 },
  ];
  for (const c of cases)
    for (const [label, lead] of [
      ['tracking the server', 0],
      ['leading by 6 ticks', 6],
    ] as const)
      it(`${c.name}, ${label}: within one tick from ${c.settled} s on, no jump after the start`, () => {
        for (let run = 0; run < 5; run++) {
          const s = seed + run * 7919 + lead;
          const { latencyMs, jitterMs, loss, settled } = c;
          const scene = runClockScene({ seed: s, seconds: 10, latencyMs, jitterMs, loss, lead });
          const estimate = worst(scene.frames, 'estimateError', settled, 10);
          const clockError = worst(scene.frames, 'clockError', settled + 0.5, 10);
          if (run === 0) {
            console.log(
              `  ${c.name} lead ${lead}: estimate |error| per 0.5 s: ${profile(scene.frames, 'estimateError', 4)}`,
            );
            console.log(
              `  ${c.name} lead ${lead}: clock    |error| per 0.5 s: ${profile(scene.frames, 'clockError', 4)}`,
            );
          }
          assert.ok(estimate <= 1, `seed ${s}: estimate off by ${estimate} ticks after ${settled} s`);
          assert.ok(clockError <= 1, `seed ${s}: clock off by ${clockError} ticks after ${settled + 0.5} s`);
          assert.deepEqual(
            scene.jumps.map((j) => j.reason),
            ['start'],
            `seed ${s}: jumps ${JSON.stringify(scene.jumps)}`,
          );
          for (const f of scene.frames) assert.ok(f.rate >= 0.9 && f.rate <= 1.1, `rate ${f.rate}`);
          // No jump: per frame (≤ 20 ms, 1.2 ticks) the clock moves at most 10% off real time.
          const step = largestStep(scene.frames, 1, 1 / 60);
          assert.ok(step <= 0.13, `seed ${s}: the clock stepped ${step} ticks off real time`);
        }
      });
});

describe('ClockSync on trouble', () => {
  it('a server restart (its tick goes back) is confirmed, jumped and reported as server', () => {
    const scene = runClockScene({
      seed,
      seconds: 8,
      latencyMs: 50,
      jitterMs: 20,
      serverJumpAt: 4,
      serverJumpBy: -5000,
    });
    assert.equal(scene.sync.serverJumps, 1);
    assert.deepEqual(
      scene.jumps.map((j) => j.reason),
      ['start', 'server'],
    );
    const jump = scene.jumps[1];
    assert.ok(jump.now > 4 && jump.now < 4.3, `jumped at ${jump.now}`);
    assert.ok(jump.to < jump.from - 4900);
    assert.ok(worst(scene.frames, 'estimateError', 5.5, 8) <= 1);
    assert.ok(worst(scene.frames, 'clockError', 6, 8) <= 1);
  });

  it('a server tick jumping forward is believed at once and reported', () => {
    const scene = runClockScene({
      seed,
      seconds: 8,
      latencyMs: 50,
      jitterMs: 20,
      serverJumpAt: 4,
      serverJumpBy: 300,
    });
    assert.equal(scene.sync.serverJumps, 1);
    assert.deepEqual(
      scene.jumps.map((j) => j.reason),
      ['start', 'server'],
    );
    assert.ok(worst(scene.frames, 'clockError', 6, 8) <= 1);
  });

  it('a small move of the server (below jumpTicks) is steered, never jumped', () => {
    const scene = runClockScene({
      seed,
      seconds: 10,
      latencyMs: 50,
      jitterMs: 20,
      serverJumpAt: 4,
      serverJumpBy: 5,
    });
    assert.deepEqual(
      scene.jumps.map((j) => j.reason),
      ['start'],
    );
    assert.equal(scene.sync.serverJumps, 0);
    assert.ok(worst(scene.frames, 'clockError', 7, 10) <= 1);
  });

  it('when samples stop, the clock keeps running on the last estimate without jumping', () => {
    const scene = runClockScene({ seed, seconds: 12, latencyMs: 50, jitterMs: 20, silentFrom: 3 });
    assert.ok(scene.sync.lastSampleTime < 3.03, `${scene.sync.lastSampleTime}`); // the next frame after 3 s
    assert.deepEqual(
      scene.jumps.map((j) => j.reason),
      ['start'],
    );
    assert.ok(worst(scene.frames, 'estimateError', 3, 12) <= 1);
    assert.ok(worst(scene.frames, 'clockError', 3, 12) <= 1);
  });

  it('a clock that fell behind (a long pause) is jumped and reported as error', () => {
    const clock = new TickClock({ tickRate: 60 });
    const reasons: string[] = [];
    const sync = new ClockSync(clock, { onJump: (reason) => reasons.push(reason) });
    clock.advance(0);
    sync.addSample(0, 1000, 1e-6);
    sync.update(0);
    assert.ok(Math.abs(clock.position - 1000) < 1e-6);
    for (let now = 0.1; now < 1.05; now += 0.1) {
      clock.advance(now);
      sync.update(now);
    }
    assert.ok(Math.abs(clock.position - 1060) < 0.01, `${clock.position}`);
    clock.pause();
    clock.advance(2);
    clock.resume();
    clock.advance(3);
    sync.update(3); // the clock lost 2 s: 120 ticks behind
    assert.deepEqual(reasons, ['start', 'error']);
    assert.equal(sync.jumps, 2);
    assert.ok(Math.abs(clock.position - 1180) < 1e-6);
    assert.equal(clock.rate, 1);
  });

  it('steers by at most maxRateAdjust and removes a small error over correctionSeconds', () => {
    const clock = new TickClock({ tickRate: 50 });
    const sync = new ClockSync(clock, { maxRateAdjust: 0.05, correctionSeconds: 1, jumpTicks: 20 });
    clock.advance(0);
    sync.addSample(0, 100, 1e-6);
    sync.update(0, 0);
    sync.update(0, 1); // one tick behind the target: 1 tick over 1 s is 2% faster
    assert.ok(Math.abs(clock.rate - 1.02) < 1e-9, `${clock.rate}`);
    sync.update(0, 15); // far behind, but below jumpTicks: the bound holds
    assert.equal(clock.rate, 1.05);
    sync.update(0, -15);
    assert.equal(clock.rate, 0.95);
    assert.equal(sync.jumps, 1);
  });

  it('an RTT of 0 (not measured yet) keeps the tick but waits for a measured RTT to sync', () => {
    const clock = new TickClock({ tickRate: 60 });
    const sync = new ClockSync(clock);
    clock.advance(0);
    sync.addSample(0, 600, 0);
    sync.update(0);
    assert.equal(sync.synced, false);
    assert.equal(clock.position, 0); // not placed with the delay unknown
    sync.addSample(0.05, 600, 100); // a later sample of the same tick, with a 100 ms RTT
    sync.update(0.05);
    assert.equal(sync.synced, true);
    // The first sample (least delay) with half the only measured RTT: 600 + 3 ticks at 0, so 606 at 0.05 s.
    assert.ok(Math.abs(sync.estimate(0.05) - 606) < 1e-9, `${sync.estimate(0.05)}`);
    assert.ok(Math.abs(clock.position - 606) < 1e-9);
    assert.equal(sync.jumps, 1);
  });

  it('addRtt: a round trip measured with no newer tick (an idle server) syncs on the tick held', () => {
    const clock = new TickClock({ tickRate: 60 });
    const sync = new ClockSync(clock);
    clock.advance(0);
    sync.addRtt(0, 100); // no sample yet: nothing to go on
    assert.equal(sync.synced, false);
    sync.addSample(0, 600, 0); // the creates' section, before the first round trip
    sync.update(0);
    assert.equal(sync.synced, false);
    sync.addRtt(0.5, 0); // still not measured
    assert.equal(sync.synced, false);
    sync.addRtt(1, 100); // a second later: no newer tick came, the first still holds
    sync.update(1);
    assert.equal(sync.synced, true);
    assert.equal(sync.samples, 1, 'a round trip is not a tick sample');
    // 600 at 0 plus half the RTT (3 ticks) plus the 60 ticks since.
    assert.ok(Math.abs(sync.estimate(1) - 663) < 1e-9, `${sync.estimate(1)}`);
    assert.ok(Math.abs(clock.position - 663) < 1e-9);
    assert.throws(() => sync.addRtt(2, -1), RangeError);
    assert.throws(() => sync.addRtt(2, Number.NaN), RangeError);
    assert.throws(() => sync.addRtt(0.5, 100), /backwards/);
  });

  it('reset forgets every sample: the next sync places the clock again, as a start', () => {
    const clock = new TickClock({ tickRate: 60 });
    const reasons: string[] = [];
    const sync = new ClockSync(clock, { onJump: (reason) => reasons.push(reason) });
    clock.advance(0);
    sync.addSample(0, 600, 100);
    sync.update(0);
    sync.reset();
    assert.equal(sync.synced, false);
    assert.equal(clock.rate, 1);
    sync.addSample(1, 50, 100); // a new connection to another server
    sync.update(1);
    assert.deepEqual(reasons, ['start', 'start']);
    assert.equal(sync.serverJumps, 0);
    assert.ok(Math.abs(clock.position - 53) < 1e-9);
  });

  it('a single late packet does not move the estimate', () => {
    const clock = new TickClock({ tickRate: 60 });
    const sync = new ClockSync(clock);
    sync.addSample(0, 600, 100);
    const before = sync.estimate(1);
    sync.addSample(0.5, 600, 100); // the same tick half a second later: 30 ticks late
    assert.equal(sync.estimate(1), before);
    assert.equal(sync.serverJumps, 0);
  });
});

describe('ClockSync misuse', () => {
  const clock = new TickClock({ tickRate: 60 });
  it('rejects bad options', () => {
    assert.throws(() => new ClockSync(clock, { windowSamples: 0 }), RangeError);
    assert.throws(() => new ClockSync(clock, { windowSamples: 1.5 }), RangeError);
    assert.throws(() => new ClockSync(clock, { correctionSeconds: 0 }), RangeError);
    assert.throws(() => new ClockSync(clock, { maxRateAdjust: 0.9 }), RangeError);
    assert.throws(() => new ClockSync(clock, { jumpTicks: Number.NaN }), RangeError);
    assert.throws(() => new ClockSync(clock, { windowSamples: 4, confirmSamples: 5 }), RangeError);
  });
  it('rejects bad samples and time that goes backwards or is not finite', () => {
    const sync = new ClockSync(clock);
    assert.throws(() => sync.estimate(0), /no sample/);
    assert.throws(() => sync.addSample(Number.NaN, 1, 1), RangeError);
    assert.throws(() => sync.addSample(1, Number.POSITIVE_INFINITY, 1), RangeError);
    assert.throws(() => sync.addSample(1, 1, -1), RangeError);
    assert.throws(() => sync.addSample(1, 1, Number.NaN), RangeError);
    sync.addSample(2, 1, 1);
    assert.throws(() => sync.addSample(1, 1, 1), /backwards/);
    assert.throws(() => sync.update(1), /backwards/);
    assert.throws(() => sync.update(3, Number.NaN), RangeError);
  });
});
