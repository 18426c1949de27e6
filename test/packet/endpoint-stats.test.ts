/**
 * The endpoint's statistics as tallies instead of histories: the RTT figures equal the exact ones
 * over the samples the window covers (the newest 7/8 to all of rttHistorySize, in blocks), loss and
 * bandwidth match what a link with known loss and rate gives, the figures follow a change of the
 * link, and the sent-packet buffer grows only with what is in flight, never past its size.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ReliableStats,
  RTT_WINDOW_NUMBERS,
  RttWindow,
  SENT_WINDOW_NUMBERS,
  TrafficWindow,
} from '../../src/packet/endpoint-stats.js';
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import { SentPackets } from '../../src/packet/sent-packets.js';
import { prng } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('endpoint statistics tests');

function emptyStats(): ReliableStats {
  return {
    rttMinMs: 0,
    rttMaxMs: 0,
    rttAvgMs: 0,
    jitterAvgVsMinRttMs: 0,
    jitterMaxVsMinRttMs: 0,
    jitterStddevVsAvgRttMs: 0,
    packetLoss: 0,
    sentKbps: 0,
    receivedKbps: 0,
    ackedKbps: 0,
  };
}

function close(actual: number, expected: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} vs ${expected}`,
  );
}

describe(`RttWindow (seed ${SEED})`, () => {
  for (const size of [1, 5, 16, 100, 512]) {
    it(`size ${size}: the exact figures over the samples its blocks hold`, () => {
      const random = prng((SEED ^ size) >>> 0);
      const window = new RttWindow(size, new Float64Array(RTT_WINDOW_NUMBERS), 0);
      const blocks = Math.min(8, size);
      const perBlock = Math.floor(size / blocks);
      const samples: number[] = [];
      const out = emptyStats();
      for (let k = 1; k <= 5 * size + 7; k++) {
        const rtt = 20 + random() * 200;
        samples.push(rtt);
        window.add(rtt);
        assert.ok(window.changed);
        window.write(out);
        assert.ok(!window.changed);
        const held = k <= blocks * perBlock ? k : (blocks - 1) * perBlock + ((k - 1) % perBlock) + 1;
        assert.ok(held <= size && (k < size || held > (blocks - 1) * perBlock), `k ${k}: ${held} samples`);
        const newest = samples.slice(-held);
        const min = Math.min(...newest);
        const max = Math.max(...newest);
        const avg = newest.reduce((a, b) => a + b, 0) / held;
        const deviation = newest.reduce((a, b) => a + (b - avg) ** 2, 0) / held;
        close(out.rttMinMs, min, `k ${k} min`);
        close(out.rttMaxMs, max, `k ${k} max`);
        close(out.rttAvgMs, avg, `k ${k} avg`);
        close(out.jitterAvgVsMinRttMs, avg - min, `k ${k} jitter avg`);
        close(out.jitterMaxVsMinRttMs, max - min, `k ${k} jitter max`);
        assert.ok(Math.abs(out.jitterStddevVsAvgRttMs - Math.sqrt(deviation)) < 1e-6, `k ${k} stddev`);
      }
    });
  }

  it('keeps to its part of a shared array', () => {
    const numbers = new Float64Array(3 + RTT_WINDOW_NUMBERS + SENT_WINDOW_NUMBERS + 3).fill(7);
    const window = new RttWindow(512, numbers, 3);
    const traffic = new TrafficWindow(256, numbers, 3 + RTT_WINDOW_NUMBERS, true);
    for (let i = 0; i < 2000; i++) {
      window.add(i);
      traffic.add(i & 0xffff, i, 10);
      traffic.acked(i & 0xffff, 10);
    }
    window.reset();
    const out = emptyStats();
    window.write(out);
    assert.equal(out.rttMaxMs, 0);
    traffic.writeSent({ packetLossSmoothingFactor: 1, bandwidthSmoothingFactor: 1 }, out);
    assert.equal(out.packetLoss, 0);
    assert.ok(out.sentKbps > 0);
    assert.deepEqual(
      [...numbers.subarray(0, 3), ...numbers.subarray(numbers.length - 3)],
      [7, 7, 7, 7, 7, 7],
    );
  });

  it('reads zero before a sample and after reset', () => {
    const window = new RttWindow(512, new Float64Array(RTT_WINDOW_NUMBERS), 0);
    const out = emptyStats();
    window.write(out);
    assert.equal(out.rttMaxMs, 0);
    window.add(50);
    window.write(out);
    assert.equal(out.rttMinMs, 50);
    window.reset();
    assert.ok(window.changed);
    window.write(out);
    assert.deepEqual(out, emptyStats());
  });
});

/** Two endpoints ticking at `hz`, a → b dropping the packets `drop` picks, each sending `bytes` a tick. */
function pair(hz: number, bytes: number, drop: (sequence: number) => boolean) {
  let a: ReliableEndpoint | null = null;
  let b: ReliableEndpoint | null = null;
  a = new ReliableEndpoint({
    transmit: (s, data, length) => {
      if (!drop(s)) b?.receivePacket(data.slice(0, length));
    },
    process: () => true,
  });
  b = new ReliableEndpoint({
    transmit: (_s, data, length) => a?.receivePacket(data.slice(0, length)),
    process: () => true,
  });
  const payload = new Uint8Array(bytes);
  let now = 0;
  return {
    a,
    b,
    run(ticks: number) {
      for (let i = 0; i < ticks; i++) {
        now += 1 / hz;
        a.update(now);
        b.update(now);
        a.sendPacket(payload);
        b.sendPacket(payload);
      }
    },
  };
}

describe('loss and bandwidth from the traffic tallies', () => {
  it('a quarter of the packets lost reads 25%, and the rates are the link rate', () => {
    const link = pair(60, 100, (s) => s % 4 === 1);
    link.run(600);
    assert.ok(Math.abs(link.a.packetLoss - 25) < 0.01, `loss ${link.a.packetLoss}`);
    assert.ok(link.b.packetLoss < 0.01, `b's loss ${link.b.packetLoss}`);
    // 100 bytes + the 28 counted for IP and UDP, 60 a second; the window's span is one interval
    // short of its packets (as the reference measures it): 128 / 127 of the rate.
    const kbps = (128 * 8 * 60) / 1000;
    const window = 128 / 127;
    assert.ok(Math.abs(link.a.sentKbps / (kbps * window) - 1) < 0.001, `sent ${link.a.sentKbps}`);
    assert.ok(Math.abs(link.a.ackedKbps / (0.75 * kbps * window) - 1) < 0.001, `acked ${link.a.ackedKbps}`);
    // Received packets count their packet header too (3 to 9 bytes).
    const headed = (rate: number, share: number) => rate / (share * kbps) - 1;
    const aReceived = headed(link.a.receivedKbps, window);
    assert.ok(aReceived > 3 / 128 && aReceived < 9 / 128 + 0.01, `a received ${link.a.receivedKbps}`);
    // b receives three of four packets: the rate over the span they arrived in.
    const bReceived = headed(link.b.receivedKbps, 0.75);
    assert.ok(bReceived > 0 && bReceived < 9 / 128 + 0.02, `b received ${link.b.receivedKbps}`);
  });

  it('follows a change: loss ends, and the figure falls to zero', () => {
    let lossy = true;
    const link = pair(60, 20, (s) => lossy && s % 2 === 0);
    link.run(400);
    assert.ok(Math.abs(link.a.packetLoss - 50) < 0.5, `loss ${link.a.packetLoss}`);
    lossy = false;
    link.run(600);
    assert.ok(link.a.packetLoss < 0.01, `loss after ${link.a.packetLoss}`);
  });

  it('counts a packet and its ack once, and forgets buckets the window left', () => {
    const window = new TrafficWindow(256, new Float64Array(SENT_WINDOW_NUMBERS), 0, true);
    const out = emptyStats();
    const smoothing = { packetLossSmoothingFactor: 1, bandwidthSmoothingFactor: 1 };
    for (let s = 0; s < 256; s++) window.add(s, s / 10, 100);
    for (let s = 0; s < 256; s += 2) window.acked(s, 100);
    window.writeSent(smoothing, out);
    // Buckets of 32; the newest is 7 (224..255): 0..3 are averaged, half of them acked.
    assert.equal(out.packetLoss, 50);
    assert.ok(Math.abs(out.sentKbps - (128 * 100 * 8) / 12.7 / 1000) < 1e-9, `sent ${out.sentKbps}`);
    // A jump past the ring: nothing of the old buckets is read (the figure stays as it was).
    window.add(5000, 600, 100);
    window.writeSent(smoothing, out);
    assert.equal(out.packetLoss, 0);
    // An old sequence whose bucket was replaced is not counted, nor is an ack for it.
    window.add(10, 601, 100);
    window.acked(10, 100);
    window.writeSent(smoothing, out);
    assert.equal(out.packetLoss, 0);
  });

  it('wraps with the sequence', () => {
    const window = new TrafficWindow(256, new Float64Array(SENT_WINDOW_NUMBERS), 0, true);
    const out = emptyStats();
    const smoothing = { packetLossSmoothingFactor: 1, bandwidthSmoothingFactor: 1 };
    for (let k = 0; k < 70_000; k++) {
      const s = k & 0xffff;
      window.add(s, k / 60, 50);
      if (k % 10 !== 0) window.acked(s, 50);
    }
    window.writeSent(smoothing, out);
    assert.ok(Math.abs(out.packetLoss - 10) < 1, `loss ${out.packetLoss}`);
  });
});

describe('the sent-packet buffer grows with what is in flight', () => {
  it('drops a record left in a slot when a packet without one takes it', () => {
    const sent = new SentPackets<string>(256);
    sent.add(0, 0, 10, 'first');
    sent.resolve(sent.indexOf(0), false); // reported lost: its record went with the outcome
    sent.add(1, 0, 10, 'second');
    for (let s = 2; s < 40; s++) {
      const index = sent.indexOf(s - 1);
      sent.resolve(index, true);
      sent.add(s, 0, 10, undefined);
    }
    // Every slot was reused by packets without records: none hands back an old one.
    for (let s = 24; s < 40; s++) {
      const index = sent.indexOf(s);
      if (index >= 0) assert.equal(sent.resolve(index, true), undefined);
    }
  });

  it('stays at its first 4 slots while each packet is resolved within a few, and grows to its size at most', () => {
    const sent = new SentPackets<number>(2048);
    for (let s = 0; s < 5000; s++) {
      const sequence = s & 0xffff;
      sent.add(sequence, s, 100, s);
      const back = (sequence - 3) & 0xffff;
      const index = sent.indexOf(back);
      if (s >= 3) {
        assert.ok(index >= 0, `packet ${back} in flight is held`);
        assert.equal(sent.resolve(index, true), s - 3);
      }
    }
    assert.equal(sent.capacity, 4);
    // Nothing resolved: every packet is kept, up to the configured size and no further.
    for (let s = 5000; s < 5000 + 3000; s++) sent.add(s & 0xffff, s, 100, s);
    assert.equal(sent.capacity, 2048);
    // Each kept packet hands back its own record once, moved with it as the buffer grew.
    for (let back = 0; back < 2048; back++) {
      const index = sent.indexOf((8000 - 1 - back) & 0xffff);
      assert.ok(index >= 0 && !sent.resolved(index));
      assert.equal(sent.timeAt(index), 8000 - 1 - back);
      assert.equal(sent.bytesAt(index), 100);
      assert.equal(sent.resolve(index, back % 2 === 0), 8000 - 1 - back);
      assert.equal(sent.acked(index), back % 2 === 0);
      assert.equal(sent.resolve(index, true), undefined);
    }
  });
});
