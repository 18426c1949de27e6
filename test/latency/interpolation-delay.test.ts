import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runLink } from '../../bench/support/snapshot-link.js';
import { InterpolationDelay, interpolationDelayTicks } from '../../src/latency/index.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('interpolation-delay');
const steady = { latencyMs: 50, jitterMs: 0, loss: 0 };

/** The trace's delay at `seconds`. */
const ticksAt = (trace: { now: number; ticks: number }[], seconds: number) =>
  trace.find((f) => f.now >= seconds)!.ticks;

describe('InterpolationDelay', () => {
  it("settles on Fiedler's three packet intervals on a steady link, measuring the interval", () => {
    const run = runLink(seed, [{ seconds: 10, ...steady }]);
    const stats = run.delay.stats();
    assert.equal(stats.intervalTicks, 3);
    assert.ok(Math.abs(run.delay.ticks - interpolationDelayTicks(3)) < 1e-6, `delay ${run.delay.ticks}`);
    assert.ok(stats.jitterTicks < 1e-6);
    assert.equal(stats.lost, 0);
    assert.equal(stats.starvedFrames, 0);
    // The newest snapshot stays at least 2 intervals ahead of the render tick (one arrives each
    // interval; read a frame later, a tick here, at 60 frames per second).
    const depth = stats.minDepthTicks;
    assert.ok(depth >= 6 - 1e-6 && depth <= 7 + 1e-6, `depth ${depth}`);
    assert.equal(run.backwards, 0);
  });

  it('grows with 20 ms of jitter and 5% loss so that the sampler rarely starves', () => {
    let starved = 0;
    let frames = 0;
    let fixedStarved = 0;
    let lost = 0;
    let sent = 0;
    let jitter = 0;
    for (let k = 0; k < 4; k++) {
      const phases = [{ seconds: 30, latencyMs: 75, jitterMs: 20, loss: 0.05 }];
      const run = runLink(seed + k, phases);
      const stats = run.delay.stats();
      assert.ok(stats.ticks > 10 && stats.ticks < 16, `delay ${stats.ticks}`);
      lost += stats.lost;
      sent += stats.lost + stats.snapshots;
      assert.ok(stats.lossRate < 0.2, `loss rate ${stats.lossRate} (a recent average)`);
      // One run's figure is the estimate at its end, which rises fast on a few large changes: it
      // can pass the link's 2.4 ticks of peak-to-peak jitter (GW_SEED=730802653: 2.45, k = 2), but
      // not 3.4, the most a transit time can change (that jitter, plus up to a frame's wait to be
      // read). Their mean is the sharp check (below).
      assert.ok(stats.jitterTicks > 0.5 && stats.jitterTicks < 3.4, `jitter ${stats.jitterTicks}`);
      jitter += stats.jitterTicks / 4;
      // The delay's own count is the sampler's: the entity is in every snapshot.
      assert.equal(stats.starvedFrames, run.sampler.starved);
      assert.equal(run.backwards, 0);
      starved += run.sampler.starved;
      frames += run.frames;
      // The same link with the delay held at Fiedler's rule, for comparison.
      const fixed = runLink(seed + k, phases, { delay: { jitterMultiple: 0, starvationTarget: 0.999 } });
      assert.ok(Math.abs(fixed.delay.ticks - 9) < 1e-9);
      fixedStarved += fixed.sampler.starved;
    }
    console.log(`adaptive: ${starved} starved of ${frames} frames; Fiedler's 9 ticks: ${fixedStarved}`);
    // Over 5000 fresh seeds the mean of the four was 1.04 to 1.87 ticks.
    assert.ok(jitter > 0.9 && jitter < 2.1, `mean jitter ${jitter}`);
    // The gaps counted match the loss: 5% of 2400 snapshots (± 4.5 standard deviations).
    assert.ok(lost / sent > 0.03 && lost / sent < 0.07, `lost ${lost} of ${sent}`);
    assert.ok(starved / frames < 0.002, `${starved} of ${frames} frames starved`);
  });

  it('grows quickly on a burst of jitter and loss, never moving the render tick back', () => {
    const run = runLink(seed, [
      { seconds: 10, ...steady },
      { seconds: 5, latencyMs: 50, jitterMs: 50, loss: 0.2 },
    ]);
    assert.ok(Math.abs(ticksAt(run.trace, 9.9) - 9) < 1e-6);
    // Within half a second of the burst the delay has grown by more than 0.4 tick, within one
    // second by more than one and a half (the jitter estimate rises fast; shrinking back takes
    // seconds). Worst of 400 seeds: 1.3 and 2.7 ticks; since the delay shrinks faster (0.1 tick a
    // tick) GW_SEED=216 grew 0.97 in the first half second and GW_SEED=29 1.99 in the first;
    // GW_SEED=882921667 grew 0.4999 in the first half second (its burst's first packets came
    // evenly spaced), then 7.4 by the second.
    const most = (from: number, to: number) =>
      Math.max(...run.trace.filter((f) => f.now >= from && f.now <= to).map((f) => f.ticks));
    const half = most(10, 10.5);
    const one = most(10, 11);
    assert.ok(half > 9.4 && one > 10.5, `delay ${half} within 0.5 s of burst, ${one} within 1 s`);
    assert.equal(run.backwards, 0);
  });

  it('shrinks slowly at the bounded rate once the link calms, never moving the render tick back', () => {
    const run = runLink(seed, [
      { seconds: 10, latencyMs: 50, jitterMs: 60, loss: 0.1 },
      { seconds: 30, ...steady },
    ]);
    const before = ticksAt(run.trace, 10);
    const after = run.delay.ticks;
    assert.ok(before > 12 && after < before - 3, `${before} -> ${after}`);
    assert.ok(after < 9.5, `back near the rule: ${after}`);
    const { shrinkRate } = run.delay;
    for (let i = 1; i < run.trace.length; i++) {
      const [a, b] = [run.trace[i - 1], run.trace[i]];
      assert.ok(b.render >= a.render, `render tick ${b.render} after ${a.render}`);
      const elapsedTicks = (b.now - a.now) * 60;
      // Over the first 16 snapshots (0.8 s at 20 Hz, plus losses and latency) a smaller target is
      // taken at once.
      if (a.now >= 1.5)
        assert.ok(a.ticks - b.ticks <= shrinkRate * elapsedTicks + 1e-9, 'shrinks at the bounded rate');
    }
    assert.equal(run.backwards, 0);
  });

  it('a long first step after connecting does not leave a long delay behind', () => {
    // Snapshots every tick at 60 Hz, but the second comes 7 ticks after the first (the first
    // packets after a handshake): the interval is believed at its next, shorter step, and over the
    // settling snapshots the delay drops to the rule at once, the render tick only moving forward.
    const delay = new InterpolationDelay({ tickRate: 60 });
    let tick = 100;
    let now = 1;
    delay.onSnapshot(now, tick);
    tick += 7;
    now += 7 / 60;
    delay.onSnapshot(now, tick);
    let last = delay.renderTick(now);
    const early = delay.ticks;
    for (let i = 0; i < 20; i++) {
      tick += 1;
      now += 1 / 60;
      delay.onSnapshot(now, tick);
      const render = delay.renderTick(now);
      assert.ok(render >= last, `render tick ${render} after ${last}`);
      last = render;
    }
    assert.ok(early >= 20, `the long step first made the delay ${early} ticks`);
    assert.ok(delay.ticks <= interpolationDelayTicks(1) + 0.5, `still ${delay.ticks} ticks`);
  });

  it('clamps to [minTicks, maxTicks] and uses a fixed packet interval when given', () => {
    const high = runLink(seed, [{ seconds: 5, latencyMs: 50, jitterMs: 40, loss: 0.3 }], {
      delay: { maxTicks: 12 },
    });
    assert.equal(high.delay.ticks, 12);
    const low = runLink(seed, [{ seconds: 5, ...steady }], { delay: { minTicks: 15 } });
    assert.equal(low.delay.ticks, 15);
    const delay = new InterpolationDelay({ tickRate: 60, packetIntervalTicks: 2 });
    assert.equal(delay.ticks, 6);
    assert.ok(Number.isNaN(delay.renderTick(0)), 'nothing received yet');
    delay.onSnapshot(0.1, 10);
    assert.ok(delay.known);
    assert.equal(delay.renderTick(0.1), 10 - 6);
    delay.onSnapshot(0.2, 10);
    assert.equal(delay.stats().late, 1);
    // A gap of three intervals: two snapshots lost.
    delay.onSnapshot(0.2, 16);
    assert.equal(delay.stats().lost, 2);
    delay.reset();
    assert.equal(delay.stats().snapshots, 0);
    assert.ok(!delay.known);
  });

  it('throws for time that is not finite or goes back, and for bad options', () => {
    const delay = new InterpolationDelay({ tickRate: 60 });
    delay.onSnapshot(1, 3);
    assert.throws(() => delay.onSnapshot(0.5, 6), RangeError);
    assert.throws(() => delay.update(Number.NaN), RangeError);
    assert.throws(() => delay.renderTick(Number.POSITIVE_INFINITY), RangeError);
    assert.throws(() => delay.onSnapshot(2, Number.NaN), RangeError);
    for (const bad of [
      { tickRate: 0 },
      { tickRate: 60, packetIntervalTicks: 0 },
      { tickRate: 60, growRate: 1 },
      { tickRate: 60, minTicks: 10, maxTicks: 5 },
      { tickRate: 60, starvationTarget: 0 },
      { tickRate: 60, windowSnapshots: 0 },
    ])
      assert.throws(() => new InterpolationDelay(bad), RangeError);
  });
});
