/**
 * BandwidthBudget: the token bucket never lets the bytes sent over any interval exceed
 * burst + rate × interval (so the long-run average stays at or under the rate), the per-packet
 * cap holds, the defaults keep a 60 Hz game under 256 kbit/s, and time obeys the stack's rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { BandwidthBudget } from '../../src/replication/budget.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('budget tests');

describe('BandwidthBudget', () => {
  it('over every interval, bytes sent ≤ burst + rate × interval (random rates, ticks, spends)', () => {
    const next = prng(SEED);
    for (let run = 0; run < 50; run++) {
      const bytesPerPacket = 50 + Math.floor(next() * 1200);
      const kbps = 8 + next() * 500;
      const burst = bytesPerPacket * (1 + next() * 4);
      const budget = new BandwidthBudget({ bytesPerPacket, kbps, burstBytes: burst });
      const rate = (kbps * 1000) / 8;
      const times: number[] = [];
      const totals: number[] = []; // bytes sent up to and including times[i]
      let now = next() * 100;
      let total = 0;
      for (let i = 0; i < 600; i++) {
        now += next() < 0.1 ? 0 : next() * 0.05;
        budget.update(now);
        const available = budget.availableBytes();
        assert.ok(available <= bytesPerPacket && available >= 0 && Number.isInteger(available));
        const spend = next() < 0.7 ? available : Math.floor(next() * (available + 1));
        budget.spend(spend);
        total += spend;
        times.push(now);
        totals.push(total);
      }
      // Every window [times[i], times[j]]: what was sent after the update at i up to j.
      for (let i = 0; i < times.length; i += 7)
        for (let j = i; j < times.length; j++) {
          const sent = totals[j] - (i > 0 ? totals[i - 1] : 0);
          const allowed = burst + rate * (times[j] - times[i]) + 1e-6;
          assert.ok(sent <= allowed, `run ${run}: ${sent} bytes in ${times[j] - times[i]} s > ${allowed}`);
        }
    }
  });

  it('the defaults keep a 60 Hz game that fills every packet under 256 kbit/s', () => {
    const budget = new BandwidthBudget();
    let total = 0;
    const seconds = 60;
    for (let tick = 0; tick <= seconds * 60; tick++) {
      budget.update(tick / 60);
      const bytes = budget.availableBytes();
      budget.spend(bytes);
      total += bytes;
    }
    assert.ok((total * 8) / seconds / 1000 < 256, `${(total * 8) / seconds / 1000} kbit/s`);
    assert.equal(budget.bytesPerPacket, 512);
    assert.equal(budget.kbps, 256);
  });

  it('a low rate limits packets below the cap; overspending leaves a debt that is repaid', () => {
    const budget = new BandwidthBudget({ bytesPerPacket: 1000, kbps: 8, burstBytes: 1000 }); // 1000 B/s
    budget.update(0);
    assert.equal(budget.availableBytes(), 1000);
    budget.spend(1500);
    assert.equal(budget.availableBytes(), 0);
    budget.update(0.4);
    assert.equal(budget.availableBytes(), 0, 'still repaying');
    budget.update(1);
    assert.equal(budget.availableBytes(), 500);
    budget.update(100);
    assert.equal(budget.availableBytes(), 1000, 'the bucket holds at most the burst');
    budget.kbps = 80;
    budget.spend(1000);
    budget.update(100.0625);
    assert.equal(budget.availableBytes(), 625);
  });

  it('time rule and misuse: NaN, ±Infinity and backwards times throw and change nothing', () => {
    const budget = new BandwidthBudget();
    budget.update(5);
    budget.update(5);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 4.999])
      assert.throws(() => budget.update(bad), RangeError);
    budget.spend(1024);
    budget.update(5 + 1 / 128);
    assert.equal(budget.availableBytes(), 250, '1/128 s at 32000 B/s');
    assert.throws(() => budget.spend(-1), /bytes must be a finite number >= 0/);
    assert.throws(() => budget.spend(Number.NaN), /bytes/);
    assert.throws(() => new BandwidthBudget({ kbps: 0 }), /kbps must be a finite number > 0/);
    assert.throws(() => new BandwidthBudget({ bytesPerPacket: Number.NaN }), /bytesPerPacket/);
    assert.throws(() => {
      budget.burstBytes = -5;
    }, /bytes/);
  });
});
