import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TickClock } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('tick-clock');

describe('TickClock', () => {
  it('runs one tick per tickSeconds of time, in order, with tick set during onTick', () => {
    const clock = new TickClock({ tickRate: 50, startTick: 100 });
    const seen: number[] = [];
    assert.equal(clock.advance(10), 0); // the first call starts the clock
    assert.equal(
      clock.advance(10.05, (tick) => seen.push(tick, clock.tick)),
      2,
    );
    assert.deepEqual(seen, [101, 101, 102, 102]);
    assert.equal(clock.tick, 102);
    assert.equal(clock.advance(10.059), 0);
    assert.ok(Math.abs(clock.alpha - 0.95) < 1e-9, `${clock.alpha}`);
    assert.equal(clock.advance(10.061), 1); // without onTick the due ticks are tick - n + 1 … tick
    assert.equal(clock.tick, 103);
  });

  it('counts every tick of random frame times, alpha always in [0, 1)', () => {
    const random = prng(seed);
    const clock = new TickClock({ tickRate: 60, maxTicksPerAdvance: 1000 });
    let now = 0;
    let ticks = 0;
    clock.advance(now);
    for (let frame = 0; frame < 5000; frame++) {
      now += random() * 0.05;
      ticks += clock.advance(now);
      assert.ok(clock.alpha >= 0 && clock.alpha < 1, `alpha ${clock.alpha}`);
      assert.equal(clock.tick, ticks);
    }
    // All the time is accounted for: whole ticks plus the fraction.
    assert.ok(Math.abs(clock.position - now * 60) < 1e-6, `${clock.position} vs ${now * 60}`);
    assert.equal(clock.droppedTicks, 0);
  });

  it('bounds catch-up: at most maxTicksPerAdvance a call, the rest dropped and counted', () => {
    const clock = new TickClock({ tickRate: 10, maxTicksPerAdvance: 4 });
    clock.advance(0);
    assert.equal(clock.advance(2.05), 4); // a 2 s stall: 20 ticks due
    assert.equal(clock.droppedTicks, 16);
    assert.equal(clock.tick, 4);
    assert.ok(Math.abs(clock.alpha - 0.5) < 1e-9); // the fraction is kept
    assert.equal(clock.advance(2.1), 1); // and the clock goes on from there
    assert.equal(clock.droppedTicks, 16);
  });

  it('pause stops ticks and skips the paused time; resume goes on where it was', () => {
    const clock = new TickClock({ tickRate: 10 });
    clock.advance(0);
    clock.advance(0.25);
    assert.equal(clock.tick, 2);
    clock.pause();
    assert.ok(clock.paused);
    assert.equal(clock.advance(0.5), 0);
    assert.equal(clock.advance(5), 0);
    clock.resume();
    assert.equal(clock.advance(7), 0); // the first advance after resume only re-reads the time
    assert.equal(clock.advance(7.2), 2);
    assert.equal(clock.tick, 4);
    assert.ok(Math.abs(clock.alpha - 0.5) < 1e-9);
    clock.resume(); // resuming a running clock changes nothing
    assert.equal(clock.advance(7.3), 1);
  });

  it('rate scales time', () => {
    const clock = new TickClock({ tickRate: 100, maxTicksPerAdvance: 1000 });
    clock.advance(0);
    clock.rate = 1.1;
    clock.advance(1);
    assert.equal(clock.tick, 110);
    clock.rate = 0.9;
    clock.advance(2);
    assert.equal(clock.tick, 200);
    assert.equal(clock.rate, 0.9);
  });

  it('jump sets the position without running the ticks between', () => {
    const clock = new TickClock({ tickRate: 20 });
    let ran = 0;
    clock.advance(0);
    clock.jump(500.25);
    assert.equal(clock.tick, 500);
    assert.ok(Math.abs(clock.alpha - 0.25) < 1e-9);
    clock.advance(0.05, () => ran++);
    assert.equal(ran, 1);
    assert.equal(clock.tick, 501);
    clock.jump(-3.5); // backwards too (a new server)
    assert.equal(clock.tick, -4);
    assert.ok(Math.abs(clock.alpha - 0.5) < 1e-9);
  });
});

describe('TickClock misuse throws at the call', () => {
  it('bad options', () => {
    for (const tickRate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      assert.throws(() => new TickClock({ tickRate }), RangeError);
    assert.throws(() => new TickClock({ tickRate: 60, maxTicksPerAdvance: 0 }), RangeError);
    assert.throws(() => new TickClock({ tickRate: 60, maxTicksPerAdvance: 2.5 }), RangeError);
    assert.throws(() => new TickClock({ tickRate: 60, startTick: 0.5 }), RangeError);
  });

  it('time that is not finite or goes backwards', () => {
    const clock = new TickClock({ tickRate: 60 });
    assert.throws(() => clock.advance(Number.NaN), /finite/);
    assert.throws(() => clock.advance(Number.POSITIVE_INFINITY), /finite/);
    clock.advance(5);
    assert.throws(() => clock.advance(4), /backwards/);
    clock.advance(5); // equal times are fine
    clock.pause();
    assert.throws(() => clock.advance(4.9), /backwards/); // paused or not
  });

  it('a rate outside [0.5, 2], a position that is not finite, re-entry from onTick', () => {
    const clock = new TickClock({ tickRate: 60 });
    for (const rate of [0, 0.49, 2.01, Number.NaN]) assert.throws(() => (clock.rate = rate), RangeError);
    assert.equal(clock.rate, 1);
    assert.throws(() => clock.jump(Number.NaN), RangeError);
    clock.advance(0);
    assert.throws(() => clock.advance(0.1, () => clock.advance(0.2)), /inside onTick/);
    assert.throws(() => clock.advance(0.3, () => clock.jump(7)), /inside onTick/);
    assert.equal(clock.advance(0.4), 6); // the clock still works afterwards
  });
});
