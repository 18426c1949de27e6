import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import {
  type Address,
  type DatagramTransport,
  type LinkConditions,
  MemoryNetwork,
  NetworkSimulator,
  toAddress,
} from '../../src/transport/index.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('simulator tests');

interface Delivery {
  seq: number;
  sentAt: number;
  at: number;
}

interface RunOptions {
  seed?: number;
  outgoing?: LinkConditions;
  incoming?: LinkConditions;
  count: number;
  /** Seconds between sends (and between updates). */
  interval?: number;
  /** Payload length for each datagram (at least 4). */
  size?: (seq: number) => number;
  maxInFlight?: number;
  /** Called after every step. */
  onStep?: (step: number, sender: DatagramTransport, receiver: DatagramTransport) => void;
}

/**
 * One datagram per step from a to b over a memory network, each end wrapped in a simulator when
 * conditions for its side are given. Each step: update both ends to the step's time, send, then
 * receive everything due. Deliveries are recorded with the step time they arrived at.
 */
function run(options: RunOptions) {
  const { seed = SEED, count, interval = 0.001, size = () => 4, maxInFlight = 1 << 16 } = options;
  const network = new MemoryNetwork({ maxQueuedDatagrams: 1 << 16 });
  const a = network.createTransport();
  const b = network.createTransport();
  const sender = options.outgoing
    ? new NetworkSimulator(a, { seed, outgoing: options.outgoing, maxInFlight })
    : a;
  const receiver = options.incoming
    ? new NetworkSimulator(b, { seed, incoming: options.incoming, maxInFlight })
    : b;
  const deliveries: Delivery[] = [];
  const buffer = new Uint8Array(2048);
  const view = new DataView(buffer.buffer);
  let now = 0;
  const receive = () => {
    while (
      receiver.receive((from, data) => {
        assert.equal(from, a.localAddress);
        const seq = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
        assert.equal(data.length, size(seq));
        deliveries.push({ seq, sentAt: seq * interval, at: now });
      }, 1 << 16) > 0
    );
  };
  const inFlight = () =>
    (sender instanceof NetworkSimulator ? sender.inFlight : 0) +
    (receiver instanceof NetworkSimulator ? receiver.inFlight : 0);
  let step = 0;
  for (; step < count || inFlight() > 0; step++) {
    now = step * interval;
    sender.update(now);
    receiver.update(now);
    if (step < count) {
      view.setUint32(0, step, true);
      sender.send(b.localAddress, buffer.subarray(0, size(step)));
    }
    receive();
    options.onStep?.(step, sender, receiver);
    assert.ok(step < count + 1_000_000, 'datagrams never left the simulator');
  }
  return { deliveries, sender, receiver };
}

/** Rates seen by the receiver, measured from the deliveries alone. */
function measure(deliveries: Delivery[], count: number) {
  const seen = new Set<number>();
  let duplicates = 0;
  let late = 0;
  let highest = -1;
  for (const d of deliveries) {
    if (seen.has(d.seq)) {
      duplicates++;
      continue;
    }
    seen.add(d.seq);
    if (d.seq < highest) late++;
    else highest = d.seq;
  }
  return {
    unique: seen.size,
    lost: count - seen.size,
    duplicates,
    late,
    lossRate: (count - seen.size) / count,
    duplicateRate: duplicates / seen.size,
    lateRate: late / seen.size,
    seen,
  };
}

const schedule = (deliveries: Delivery[]) => deliveries.map((d) => `${d.seq}@${d.at.toFixed(6)}`).join(' ');

function within(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${what}: measured ${actual.toFixed(4)}, configured ${expected}, tolerance ${tolerance} (seed ${SEED})`,
  );
}

const BUSY: LinkConditions = {
  latency: 40,
  jitter: 15,
  loss: 5,
  burst: { enter: 1, exit: 30, loss: 60 },
  duplicates: 5,
  duplicateDelay: 10,
  reorder: 5,
  reorderDelay: 30,
};

describe('NetworkSimulator', () => {
  it('passes everything through at once and in order under zero conditions', () => {
    const network = new MemoryNetwork();
    const a = new NetworkSimulator(network.createTransport(), { seed: SEED });
    const b = new NetworkSimulator(network.createTransport(), { seed: SEED, maxDatagramsPerReceive: 7 });
    const next = prng(SEED);
    const sent: number[][] = [];
    for (let i = 0; i < 1000; i++) {
      const data = Uint8Array.from({ length: 1 + randomInt(next, 100) }, () => randomInt(next, 256));
      a.send(b.localAddress, data);
      sent.push([...data]);
      data.fill(0); // the caller may reuse its buffer
    }
    assert.equal(a.inFlight, 0, 'nothing is held on the way out');
    const got: number[][] = [];
    let calls = 0;
    for (let n = 1; n > 0; calls++) {
      n = b.receive((from, data) => {
        assert.equal(from, a.localAddress);
        got.push([...data]);
      });
      assert.ok(n <= 7);
    }
    assert.deepEqual(got, sent);
    assert.equal(calls, Math.ceil(1000 / 7) + 1);
    assert.equal(b.inFlight, 0);
    for (const sim of [a, b]) {
      for (const c of [sim.counters.outgoing, sim.counters.incoming]) {
        assert.equal(c.lost + c.duplicated + c.reordered + c.overflow, 0);
      }
    }
    assert.equal(a.counters.outgoing.passed, 1000);
    assert.equal(b.counters.incoming.passed, 1000);
    assert.equal(b.stats.received, 1000);
    assert.equal(a.stats.sent, 1000);
  });

  it('reproduces the exact delivery schedule for a seed, in both directions', () => {
    for (const side of ['outgoing', 'incoming'] as const) {
      const once = (seed: number) => schedule(run({ seed, [side]: BUSY, count: 3000 }).deliveries);
      const first = once(SEED);
      assert.equal(once(SEED), first, `${side}: same seed, same schedule`);
      assert.notEqual(once((SEED + 1) >>> 0), first, `${side}: another seed, another schedule`);
    }
  });

  it('measures the configured loss, duplicate and reorder rates over 20,000 datagrams', () => {
    const count = 20_000;
    for (const side of ['outgoing', 'incoming'] as const) {
      const conditions = { latency: 20, loss: 10, duplicates: 5, reorder: 5, reorderDelay: 50 };
      const { deliveries, sender, receiver } = run({ [side]: conditions, count });
      const m = measure(deliveries, count);
      within(m.lossRate, 0.1, 0.012, `${side} loss`);
      within(m.duplicateRate, 0.05, 0.01, `${side} duplicates`);
      within(m.lateRate, 0.05, 0.01, `${side} reordering`);
      // The counters agree with what the receiver saw.
      const sim = (side === 'outgoing' ? sender : receiver) as NetworkSimulator;
      const c = sim.counters[side];
      assert.equal(c.offered, count);
      assert.equal(c.lost, m.lost);
      assert.equal(c.passed, m.unique);
      assert.equal(c.duplicated, m.duplicates);
      // A held-back datagram among the very last has nothing left to overtake it.
      assert.ok(c.reordered >= m.late && c.reordered - m.late <= 3, `${c.reordered} held, ${m.late} late`);
      assert.equal(c.inFlight, 0);
    }
  });

  it('keeps every delay within latency ± jitter plus the extra delays', () => {
    const count = 20_000;
    const interval = 0.001;
    const conditions = {
      latency: 100,
      jitter: 20,
      duplicates: 10,
      duplicateDelay: 30,
      reorder: 10,
      reorderDelay: 50,
    };
    for (const side of ['outgoing', 'incoming'] as const) {
      const { deliveries } = run({ [side]: conditions, count, interval });
      const first = new Map<number, number>();
      let min = Infinity;
      let max = -Infinity;
      for (const d of deliveries) {
        const delay = (d.at - d.sentAt) * 1000;
        min = Math.min(min, delay);
        max = Math.max(max, delay);
        // Delivery is seen at the first step at or after its time, so up to one interval late.
        assert.ok(delay >= 80 - 1e-6, `${side}: delay ${delay} ms under latency - jitter`);
        assert.ok(delay < 100 + 20 + 50 + 30 + interval * 1000 + 1e-6, `${side}: delay ${delay} ms`);
        if (!first.has(d.seq)) first.set(d.seq, delay);
      }
      // The whole jitter range is used, and the extra delays happen.
      assert.ok(min < 81, `${side}: shortest delay ${min}`);
      assert.ok(max > 190, `${side}: longest delay ${max}`);
      const plain = [...first.values()].filter((d) => d <= 121 + 1e-6).length / first.size;
      within(plain, 0.9, 0.012, `${side}: share delivered within latency + jitter`);
    }
    // Jitter larger than the latency never makes a negative delay.
    const { deliveries } = run({ outgoing: { latency: 5, jitter: 20 }, count: 2000 });
    assert.equal(deliveries.length, 2000);
    assert.ok(deliveries.every((d) => d.at >= d.sentAt));
    assert.ok(deliveries.filter((d) => d.at === d.sentAt).length > 500, 'clamped to zero delay often');
  });

  it('a fixed latency lands on the same tick every time: 50 ms at 60 Hz is exactly 3 ticks', () => {
    // Send time + latency and the tick clock agree only up to float rounding.
    for (const side of ['outgoing', 'incoming'] as const) {
      const { deliveries } = run({ [side]: { latency: 50 }, count: 20_000, interval: 1 / 60 });
      assert.equal(deliveries.length, 20_000);
      const late = deliveries.filter((d) => Math.round((d.at - d.sentAt) * 60) !== 3);
      assert.deepEqual(
        late.slice(0, 5),
        [],
        `${side}: ${late.length} datagrams not 3 ticks after their send`,
      );
    }
  });

  it('burst loss loses datagrams in runs (Gilbert–Elliott)', () => {
    const count = 20_000;
    const runs = (deliveries: Delivery[]) => {
      const { seen, lost } = measure(deliveries, count);
      let runCount = 0;
      for (let i = 0; i < count; i++) if (!seen.has(i) && (i === 0 || seen.has(i - 1))) runCount++;
      return { lost, mean: lost / runCount };
    };
    const burst = runs(run({ outgoing: { burst: { enter: 2, exit: 20, loss: 100 } }, count }).deliveries);
    // Stationary share in a burst: enter / (enter + exit); mean run length 1 / exit.
    within(burst.lost / count, 2 / 22, 0.03, 'burst loss rate');
    assert.ok(burst.mean > 3.5 && burst.mean < 7, `mean loss run ${burst.mean} (seed ${SEED})`);
    // The same rate lost independently comes in runs barely longer than one.
    const independent = runs(run({ outgoing: { loss: (2 / 22) * 100 }, count }).deliveries);
    within(independent.lost / count, 2 / 22, 0.012, 'independent loss rate');
    assert.ok(independent.mean < 1.3, `mean independent run ${independent.mean}`);
    // Base loss applies outside bursts.
    const mixed = run({ outgoing: { loss: 10, burst: { enter: 0, exit: 100, loss: 100 } }, count });
    within(measure(mixed.deliveries, count).lossRate, 0.1, 0.012, 'good-state loss');
  });

  it('reuses its pool: no growth over a long run', () => {
    const interval = 0.001;
    let warmSize = 0;
    let warmBytes = 0;
    const next = prng(SEED);
    const sizes = Array.from({ length: 100_000 }, () => 4 + randomInt(next, 1197));
    const { sender, receiver, deliveries } = run({
      outgoing: BUSY,
      incoming: BUSY,
      count: 100_000,
      interval,
      size: (seq) => sizes[seq],
      onStep: (step, s, r) => {
        if (step === 20_000) {
          warmSize = (s as NetworkSimulator).poolSize + (r as NetworkSimulator).poolSize;
          warmBytes = (s as NetworkSimulator).poolBytes + (r as NetworkSimulator).poolBytes;
        }
      },
    });
    const out = sender as NetworkSimulator;
    const inc = receiver as NetworkSimulator;
    const size = out.poolSize + inc.poolSize;
    const bytes = out.poolBytes + inc.poolBytes;
    // At most (40 + 15 + 30 + 10) ms of traffic at one datagram per ms is held per direction.
    assert.ok(size <= 2 * 130, `pool of ${size} holders`);
    // The pool follows the most datagrams ever held at once, whose peak still creeps up a few after
    // warm-up (a random walk's maximum, GW_SEED=1418786768: +11); a leak would add thousands.
    assert.ok(size - warmSize <= 24, `pool grew from ${warmSize} to ${size} after warm-up`);
    assert.ok(bytes <= size * 2048, `pool bytes ${bytes}`);
    assert.ok(bytes - warmBytes <= 24 * 2048, `pool bytes grew from ${warmBytes} to ${bytes}`);
    assert.ok(deliveries.length > 80_000);
  });

  it('bounds the datagrams held in flight and counts the overflow', () => {
    const network = new MemoryNetwork();
    const a = network.createTransport();
    const b = network.createTransport();
    const sim = new NetworkSimulator(a, { seed: SEED, outgoing: { latency: 100 }, maxInFlight: 10 });
    for (let i = 0; i < 50; i++) sim.send(b.localAddress, Uint8Array.of(i));
    assert.equal(sim.inFlight, 10);
    assert.equal(sim.counters.outgoing.overflow, 40);
    assert.equal(sim.counters.outgoing.passed, 10);
    assert.equal(sim.stats.undeliverable, 40);
    sim.update(0.0999);
    assert.equal(b.stats.queued, 0);
    sim.update(0.1);
    const got: number[] = [];
    b.receive((_f, d) => got.push(d[0]));
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(sim.inFlight, 0);
    assert.equal(sim.poolSize, 10);

    const inbound = new NetworkSimulator(network.createTransport(), {
      seed: SEED,
      incoming: { latency: 100 },
      maxInFlight: 4,
    });
    for (let i = 0; i < 6; i++) b.send(inbound.localAddress, Uint8Array.of(i));
    assert.equal(
      inbound.receive(() => assert.fail('not due yet')),
      0,
    );
    assert.equal(inbound.stats.queued, 4);
    assert.equal(inbound.stats.dropped, 2);
    inbound.update(0.1);
    assert.equal(
      inbound.receive(() => {}),
      4,
    );
  });

  it('receive delivers at most max, oldest due first', () => {
    const network = new MemoryNetwork();
    const a = network.createTransport();
    const sim = new NetworkSimulator(network.createTransport(), { seed: SEED, incoming: { latency: 10 } });
    for (let i = 0; i < 20; i++) a.send(sim.localAddress, Uint8Array.of(i));
    assert.equal(
      sim.receive(() => {}, 5),
      0,
      'pulled 5 into flight, none due',
    );
    sim.update(0.01);
    const got: number[] = [];
    assert.equal(
      sim.receive((_f, d) => got.push(d[0]), 3),
      3,
    );
    assert.equal(
      sim.receive((_f, d) => got.push(d[0]), 10),
      2,
    );
    assert.deepEqual(got, [0, 1, 2, 3, 4]);
    assert.equal(
      sim.receive(() => {}, 0),
      0,
    );
    // The receive of 10 pulled 8 more (its limit less the 2 due), due at 0.02; 7 wait in b.
    sim.update(0.02);
    assert.throws(() => sim.receive(() => sim.receive(() => {})), /inside its own handler/);
    assert.equal(
      sim.receive(() => {}),
      7,
      'the datagram whose handler threw is consumed',
    );
    assert.equal(sim.stats.queued, 7);
  });

  it('changes conditions at run time; held datagrams keep their times', () => {
    const network = new MemoryNetwork();
    const a = network.createTransport();
    const b = network.createTransport();
    const sim = new NetworkSimulator(a, { seed: SEED, outgoing: { latency: 50 } });
    sim.send(b.localAddress, Uint8Array.of(1));
    sim.setConditions('outgoing', { loss: 100 });
    for (let i = 0; i < 100; i++) sim.send(b.localAddress, Uint8Array.of(2));
    assert.equal(sim.counters.outgoing.lost, 100);
    sim.setConditions('outgoing', {});
    sim.send(b.localAddress, Uint8Array.of(3)); // no delay now: arrives before the held one
    sim.update(0.05);
    const got: number[] = [];
    b.receive((_f, d) => got.push(d[0]));
    assert.deepEqual(got, [3, 1]);
    assert.deepEqual(sim.getConditions('outgoing'), {
      latency: 0,
      jitter: 0,
      loss: 0,
      burst: null,
      duplicates: 0,
      duplicateDelay: 20,
      reorder: 0,
      reorderDelay: 50,
    });
    sim.setConditions('incoming', { latency: 5, burst: { enter: 1, exit: 50, loss: 100 } });
    assert.deepEqual(sim.getConditions('incoming').burst, { enter: 1, exit: 50, loss: 100 });
    assert.equal(sim.getConditions('outgoing').latency, 0);
  });

  it('throws at the call on misuse, even for datagrams it would delay', () => {
    const network = new MemoryNetwork({ maxDatagramSize: 1200 });
    const b = network.createTransport();
    const sim = new NetworkSimulator(network.createTransport(), { seed: SEED, outgoing: { latency: 100 } });
    assert.throws(() => sim.send(b.localAddress, new Uint8Array(1201)), /maxDatagramSize \(1200 bytes\)/);
    assert.throws(() => sim.send('nowhere' as Address, new Uint8Array(1)), /is not an address/);
    assert.throws(() => sim.setConditions('outgoing', { loss: 101 }), /outgoing\.loss must be a percentage/);
    assert.throws(
      () => sim.setConditions('incoming', { latency: -1 }),
      /incoming\.latency must be milliseconds/,
    );
    assert.throws(
      () => sim.setConditions('outgoing', { burst: { enter: 1, exit: Number.NaN, loss: 1 } }),
      /outgoing\.burst\.exit/,
    );
    assert.throws(() => sim.setConditions('sideways' as never, {}), /direction must be/);
    assert.throws(() => new NetworkSimulator(b, { seed: -1 }), /seed must be an integer/);
    assert.throws(() => new NetworkSimulator(b, { seed: 1, maxInFlight: 0 }), /maxInFlight/);
    sim.update(1);
    assert.throws(() => sim.update(0.5), /time went backwards/);
    assert.throws(() => sim.update(Number.NaN), /must be a finite/);
    assert.equal(sim.stats.sent, 0);
    // Sending to a valid address nobody holds is not misuse: it is counted by the wrapped transport.
    sim.send(toAddress('10.9.8.7:6'), new Uint8Array(1));
    sim.update(2);
    assert.equal(sim.inner.stats.undeliverable, 1);
  });

  it('close is idempotent, closes the wrapped transport and discards what it holds', () => {
    const network = new MemoryNetwork();
    const b = network.createTransport();
    const inner = network.createTransport();
    const sim = new NetworkSimulator(inner, { seed: SEED, outgoing: { latency: 10 } });
    sim.send(b.localAddress, Uint8Array.of(1));
    sim.close();
    sim.close();
    assert.equal(sim.closed, true);
    assert.equal(inner.closed, true);
    assert.equal(sim.inFlight, 0);
    sim.update(1);
    assert.equal(b.stats.queued, 0);
    assert.throws(() => sim.send(b.localAddress, Uint8Array.of(1)), /is closed/);
    assert.equal(
      sim.receive(() => {}),
      0,
    );
  });
});
