import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writePacketHeader } from '../../src/packet/header.js';
import { ReliableEndpoint, SequenceBuffer } from '../../src/packet/index.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { linkedPair, type Observed, sendTagged } from '../support/link.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('reliable endpoint tests');

/**
 * Packets sent with sendTagged(side, 0..sent-1): each has exactly one outcome, and is acked
 * only if the peer processed it (identified by the id in its payload, since sequences wrap).
 */
function assertOutcomes(sender: Observed, receiver: Observed, sent: number, label: string): void {
  const acked = new Set(sender.ackedRecords);
  const lost = new Set(sender.lostRecords);
  assert.equal(acked.size, sender.ackedRecords.length, `${label}: a packet acked twice`);
  assert.equal(lost.size, sender.lostRecords.length, `${label}: a packet lost twice`);
  for (const id of acked) assert.ok(!lost.has(id), `${label}: ${id} both acked and lost`);
  assert.equal(
    acked.size + lost.size,
    sent,
    `${label}: outcomes ${acked.size} + ${lost.size} for ${sent} packets`,
  );
  for (const id of acked)
    assert.ok(receiver.processedIds.has(id as number), `${label}: ${id} acked but never received`);
}

describe(`SequenceBuffer (seed ${SEED})`, () => {
  it('inserts, finds, removes, and refuses sequences older than its size', () => {
    const buffer = new SequenceBuffer(16, () => ({ value: 0 }));
    for (let s = 0; s < 16; s++) buffer.insert(s)!.value = s * 10;
    for (let s = 0; s < 16; s++) assert.equal(buffer.find(s)?.value, s * 10);
    buffer.remove(3);
    assert.equal(buffer.find(3), undefined);
    assert.equal(buffer.insert(20)?.value !== undefined, true);
    assert.equal(buffer.insert(4), undefined, '4 is more than 16 behind 20');
    assert.equal(buffer.find(4), undefined, 'skipped past: 4 was emptied by advancing to 20');
    assert.equal(buffer.sequence, 21);
  });

  it('never mistakes an entry from before a wrap for a current one (the 99% loss case)', () => {
    const buffer = new SequenceBuffer(256, () => ({ tag: 0 }));
    buffer.insert(10)!.tag = 1;
    // Only every 300th sequence arrives for two full wraps.
    for (let s = 300; s < 2 * 65536; s += 300) buffer.insert(s & 0xffff)!.tag = 2;
    for (let i = 0; i < 256; i++) {
      const held = buffer.sequenceAt(i);
      if (held >= 0) assert.equal(buffer.find(held)!.tag, 2);
    }
    assert.equal(buffer.find(10), undefined);
    assert.equal(buffer.exists((10 + 65536 * 2) & 0xffff), false);
  });
});

describe(`ReliableEndpoint (seed ${SEED})`, () => {
  it('a clean link: every packet delivered once and acked once, records handed back', () => {
    const link = linkedPair(SEED);
    for (let i = 0; i < 300; i++) {
      link.a.endpoint.sendPacket(new Uint8Array([i & 0xff, 1, 2]), 3, { tag: i });
      link.b.endpoint.sendPacket(new Uint8Array([i & 0xff]), 1, `b${i}`);
      link.step(1 / 60);
    }
    for (let i = 0; i < 10; i++) link.step(1 / 60);
    // The last packets are acked only if the peer sent after receiving them; flush with two more.
    link.a.endpoint.sendPacket(new Uint8Array([0]));
    link.b.endpoint.sendPacket(new Uint8Array([0]));
    link.step(1 / 60);
    link.a.endpoint.sendPacket(new Uint8Array([0]));
    link.b.endpoint.sendPacket(new Uint8Array([0]));
    link.step(1 / 60);
    assert.deepEqual(link.b.seen.processed.slice(0, 300), [...Array(300).keys()]);
    assert.ok(link.a.seen.acked.length >= 300 && link.a.seen.lost.length === 0);
    assert.deepEqual(link.a.seen.records.get(123), { tag: 123 });
    assert.equal(link.b.seen.records.get(7), 'b7');
    assert.equal(link.a.endpoint.stats().packetsAcked, link.a.seen.acked.length);
    assert.deepEqual(link.b.seen.payloads.get(5), new Uint8Array([5, 1, 2]));
  });

  it('acks under 30% loss and 5% duplicates: exactly one outcome each, acks only for received packets', () => {
    const link = linkedPair(SEED ^ 1, { loss: 0.3, duplicate: 0.05, latency: 0.05, jitter: 0.02 });
    for (let i = 0; i < 2000; i++) {
      sendTagged(link.a, i, 20);
      sendTagged(link.b, i, 20);
      link.step(1 / 60);
    }
    for (let i = 0; i < 120; i++) link.step(1 / 60); // past ackTimeout: everything resolved
    assertOutcomes(link.a.seen, link.b.seen, 2000, 'a->b');
    assertOutcomes(link.b.seen, link.a.seen, 2000, 'b->a');
    assert.ok(link.b.endpoint.stats().packetsDuplicate > 0, 'duplicates counted');
    // An estimate over the 128 older packets of the sent window: about 5 points of standard deviation.
    assert.ok(Math.abs(link.a.endpoint.packetLoss - 30) < 20, `packet loss ${link.a.endpoint.packetLoss}`);
  });

  it('acks every packet once when reordered without loss (acks before the oldest pending one are skipped)', () => {
    const link = linkedPair((SEED ^ 9) >>> 0, { latency: 0.05, jitter: 0.04, duplicate: 0.05 });
    for (let i = 0; i < 3000; i++) {
      sendTagged(link.a, i, 20);
      sendTagged(link.b, i, 20);
      link.step(1 / 60);
    }
    // b keeps sending, so a's last packets are acked too.
    for (let i = 0; i < 120; i++) {
      sendTagged(link.b, 3000 + i, 20);
      link.step(1 / 60);
    }
    assertOutcomes(link.a.seen, link.b.seen, 3000, 'a->b');
    assert.equal(link.a.seen.lost.length, 0);
    assert.equal(link.a.seen.acked.length, 3000);
    assert.equal(link.a.endpoint.stats().lateAcks, 0);
  });

  it('holds at 99% loss over several sequence wraps', () => {
    const link = linkedPair(SEED ^ 2, { loss: 0.99 }, { rttHistorySize: 16 });
    const n = 140_000;
    for (let i = 0; i < n; i++) {
      sendTagged(link.a, i);
      sendTagged(link.b, i);
      if (i % 16 === 15) link.step(1 / 60);
    }
    for (let i = 0; i < 120; i++) link.step(1 / 60);
    assertOutcomes(link.a.seen, link.b.seen, n, 'a->b');
    assert.ok(link.a.seen.ackedRecords.length > 0, 'some acks still got through');
  });

  it('holds at 10 s latency with ±2 s jitter (default and long ack timeouts)', () => {
    // The round trip is 20 s ± 4 s: with the default 1 s timeout everything is reported lost
    // (late acks ignored); a 30 s timeout and 2048-entry buffers let acks arrive.
    const long = { ackTimeout: 30, sentPacketsBufferSize: 2048, receivedPacketsBufferSize: 2048 };
    for (const config of [{}, long]) {
      const link = linkedPair(SEED ^ 3, { latency: 10, jitter: 2, loss: 0.05 }, config);
      for (let i = 0; i < 1500; i++) {
        sendTagged(link.a, i);
        sendTagged(link.b, i);
        link.step(1 / 30);
      }
      for (let i = 0; i < 30 * 40; i++) link.step(1 / 30);
      assertOutcomes(link.a.seen, link.b.seen, 1500, `a->b ${JSON.stringify(config)}`);
      if (config === long) {
        // ±2 s of jitter reorders ~120 packets, beyond the 32 an ack covers: packets that arrive
        // late are never acked and time out as lost (inherent to the protocol, as in the reference).
        assert.ok(link.a.seen.ackedRecords.length > 100, `acked ${link.a.seen.ackedRecords.length}`);
        assert.ok(Math.abs(link.a.endpoint.rttAvgMs - 20_000) < 4_500, `rtt avg ${link.a.endpoint.rttAvgMs}`);
      } else {
        // Every ack arrives after its packet's 1 s timeout: all 1500 are reported lost, none acked.
        assert.equal(link.a.seen.ackedRecords.length, 0);
      }
    }
  });

  it('late acks are counted once per packet, whether it timed out or left the sent buffer first', () => {
    // A 2 s round trip (8 s in the last case), no loss: every packet is received and acked, all of
    // them too late. In the last, a packet's entry has given its slot to newer packets (the sent
    // buffer keeps resolved packets only within the 256 of the statistics) well before its ack.
    const cases = [
      { label: 'ack timeout', config: { ackTimeout: 0.5 }, latency: 1, packets: 600 },
      {
        label: 'sent buffer reused',
        config: { ackTimeout: 30, sentPacketsBufferSize: 64 },
        latency: 1,
        packets: 600,
      },
      {
        label: 'timed out, then dropped',
        config: { ackTimeout: 0.5, sentPacketsBufferSize: 2048 },
        latency: 4,
        packets: 1200,
      },
    ];
    for (const { label, config, latency, packets } of cases) {
      const link = linkedPair(SEED ^ 9, { latency }, config);
      for (let i = 0; i < packets; i++) {
        sendTagged(link.a, i);
        sendTagged(link.b, i);
        link.step(1 / 60);
      }
      const { lateAcks, packetsAcked, packetsSent } = link.a.endpoint.stats();
      assert.equal(packetsAcked, 0, `${label}: no ack in time`);
      // Acked so far: the packets sent up to one round trip (120 ticks, or 480) ago.
      assert.ok(lateAcks <= packetsSent, `${label}: ${lateAcks} late acks for ${packetsSent} packets`);
      assert.ok(lateAcks >= packets - latency * 120 - 5, `${label}: ${lateAcks} late acks`);
    }
  });

  it('an ack repeated after its packet left the sent buffer is not late when the packet was acked in time', () => {
    // A 0.8 s round trip at 60 Hz keeps ~48 packets in flight: each packet is acked while still in
    // the 64-entry sent buffer, and its ack repeats in the peer's next packets (ack bits cover 32)
    // until ~80 packets back, past the buffer. Those repeats once counted every packet as late.
    const link = linkedPair(SEED ^ 11, { latency: 0.4 }, { ackTimeout: 30, sentPacketsBufferSize: 64 });
    for (let i = 0; i < 600; i++) {
      sendTagged(link.a, i);
      sendTagged(link.b, i);
      link.step(1 / 60);
    }
    const { lateAcks, packetsAcked, packetsLost } = link.a.endpoint.stats();
    assert.equal(packetsLost, 0, 'nothing reported lost');
    assert.ok(packetsAcked >= 600 - 60, `acked ${packetsAcked}`);
    assert.equal(lateAcks, 0, 'no ack came after its packet was reported lost');
  });

  it('one packet can ack 32 earlier ones', () => {
    const link = linkedPair(SEED);
    for (let i = 0; i < 32; i++) link.a.endpoint.sendPacket(new Uint8Array([i]));
    link.step(0.01);
    assert.equal(link.b.seen.processed.length, 32);
    link.b.endpoint.sendPacket(new Uint8Array([0]));
    link.step(0.01);
    assert.deepEqual(
      [...link.a.seen.acked].sort((x, y) => x - y),
      [...Array(32).keys()],
    );
  });

  it('drops stale and duplicate packets and counts them', () => {
    const link = linkedPair(SEED);
    const captured: Uint8Array[] = [];
    const sender = new ReliableEndpoint({
      transmit: (_s, d, n) => captured.push(d.slice(0, n)),
      process: () => true,
    });
    for (let i = 0; i < 600; i++) sender.sendPacket(new Uint8Array([1]));
    const b = link.b.endpoint;
    b.receivePacket(captured[599]);
    b.receivePacket(captured[599]);
    b.receivePacket(captured[10]); // 589 behind: older than the 256-entry received buffer
    assert.equal(b.stats().packetsDuplicate, 1);
    assert.equal(b.stats().packetsStale, 1);
    assert.deepEqual(link.b.seen.processed, [599]);
  });

  it('large packets travel as fragments and are reassembled; a lost fragment loses the packet', () => {
    const link = linkedPair(SEED ^ 4, { loss: 0.02 }, { maxPacketSize: 16 * 1024 });
    const next = prng(SEED);
    const sent = new Map<number, Uint8Array>();
    for (let i = 0; i < 200; i++) {
      const payload = randomBytes(next, 4 + Math.floor(next() * (16 * 1024 - 4)));
      payload.set([i, 0, 0, 0]);
      sent.set(link.a.endpoint.sendPacket(payload, payload.length, i), payload);
      link.b.endpoint.sendPacket(new Uint8Array([0]));
      link.step(1 / 60);
    }
    for (let i = 0; i < 120; i++) link.step(1 / 60);
    assert.ok(link.b.seen.processed.length > 100 && link.b.seen.processed.length < 200);
    for (const s of link.b.seen.processed) assert.deepEqual(link.b.seen.payloads.get(s), sent.get(s));
    assert.ok(link.a.endpoint.stats().fragmentsSent > 200);
    assertOutcomes(link.a.seen, link.b.seen, 200, 'fragments');
  });

  it('reassembly memory stays capped under a flood of fragment 0 of distinct packets', () => {
    const victim = new ReliableEndpoint(
      { transmit: () => {}, process: () => true },
      { maxPacketSize: 16 * 1024 },
    );
    const attacker = new ReliableEndpoint({
      transmit: (_s, data, length) => {
        if (data[0] === 1 && data[3] === 0) victim.receivePacket(data, 0, length); // fragment 0 only
      },
      process: () => true,
    });
    const big = new Uint8Array(16 * 1024);
    for (let i = 0; i < 5000; i++) attacker.sendPacket(big);
    const cap = victim.config.fragmentReassemblyBufferSize * (16 * 1024 + 9);
    assert.ok(victim.reassemblyBytes <= cap, `${victim.reassemblyBytes} > ${cap}`);
    assert.ok(victim.reassemblyBytes > 0);
    assert.equal(victim.stats().fragmentsReceived, 5000);
  });

  it('cleans up a partial reassembly once newer packets pass it; a straggler cannot complete it', () => {
    const captured: Uint8Array[] = [];
    const sender = new ReliableEndpoint({
      transmit: (_s, d, n) => captured.push(d.slice(0, n)),
      process: () => true,
    });
    const delivered: number[] = [];
    const receiver = new ReliableEndpoint({
      transmit: () => {},
      process: (sequence) => {
        delivered.push(sequence);
        return true;
      },
    });
    sender.sendPacket(new Uint8Array(3000)); // sequence 0: three fragments
    const [first, second, last] = captured.splice(0);
    receiver.receivePacket(first);
    receiver.receivePacket(second);
    for (let i = 0; i < 100; i++) sender.sendPacket(new Uint8Array([i])); // sequences 1..100
    for (const packet of captured) receiver.receivePacket(packet);
    receiver.receivePacket(last); // sequence 0's final fragment, far too late
    assert.deepEqual(
      delivered,
      [...Array(100).keys()].map((i) => i + 1),
      'sequence 0 never delivered',
    );
    assert.ok(receiver.stats().fragmentsInvalid >= 1, 'the straggler is refused');
  });

  it('sequence numbers roll over past 65536 with acks intact', () => {
    const link = linkedPair(SEED, {}, { rttHistorySize: 8 });
    for (let i = 0; i < 70_000; i++) {
      link.a.endpoint.sendPacket(new Uint8Array([1]));
      link.b.endpoint.sendPacket(new Uint8Array([1]));
      link.step(0.001);
    }
    link.step(0.001);
    assert.equal(link.a.endpoint.nextSequence, 70_000 - 65536);
    assert.equal(link.a.seen.lost.length, 0);
    assert.ok(link.a.seen.acked.length >= 69_999);
  });

  it('measures RTT on a fixed-latency link', () => {
    const link = linkedPair(SEED, { latency: 0.05 });
    for (let i = 0; i < 600; i++) {
      link.a.endpoint.sendPacket(new Uint8Array([1]));
      link.b.endpoint.sendPacket(new Uint8Array([1]));
      link.step(0.01);
    }
    const e = link.a.endpoint;
    // 100 ms round trip, quantized by the 10 ms tick at each end.
    assert.ok(e.rttMinMs >= 100 - 1e-3 && e.rttMinMs <= 120, `min ${e.rttMinMs}`);
    assert.ok(e.rttAvgMs >= 100 - 1e-3 && e.rttAvgMs <= 120, `avg ${e.rttAvgMs}`);
    assert.ok(e.rttMs >= 100 - 1e-3 && e.rttMs <= 120, `smoothed ${e.rttMs}`);
    assert.ok(e.sentKbps > 0 && e.receivedKbps > 0 && e.ackedKbps > 0);
    assert.ok(e.packetLoss < 1);
  });

  it('reset forgets every packet, counter and statistic', () => {
    const link = linkedPair(SEED, { latency: 0.02 });
    for (let i = 0; i < 100; i++) {
      link.a.endpoint.sendPacket(new Uint8Array([1]));
      link.b.endpoint.sendPacket(new Uint8Array([1]));
      link.step(0.01);
    }
    const e = link.a.endpoint;
    assert.ok(e.stats().packetsAcked > 0 && e.rttMs > 0);
    e.reset();
    assert.equal(e.nextSequence, 0);
    assert.equal(e.stats().packetsAcked, 0);
    assert.equal(e.rttMs, 0);
    e.update(link.now + 10);
    assert.equal(e.stats().packetsLost, 0, 'nothing from before the reset is reported');
  });

  it('rejects misuse loudly and hostile input quietly', () => {
    const e = new ReliableEndpoint({ transmit: () => {}, process: () => true }, { maxPacketSize: 1000 });
    assert.throws(() => e.sendPacket(new Uint8Array(1001)), /exceeds maxPacketSize 1000/);
    assert.throws(() => e.sendPacket(new Uint8Array(0)), RangeError);
    assert.throws(
      () => new ReliableEndpoint({ transmit: () => {}, process: () => true }, { fragmentSize: 64 }),
      /maxFragments/,
    );
    const next = prng(SEED ^ 5);
    for (let i = 0; i < 20_000; i++) e.receivePacket(randomBytes(next, Math.floor(next() * 1200)));
    e.receivePacket(new ArrayBuffer(8) as unknown as Uint8Array);
    const c = e.stats();
    assert.ok(c.packetsInvalid + c.fragmentsInvalid + c.packetsStale > 1000);
    // A non-canonical header (ack as two bytes though the difference fits one) is rejected.
    const packet = new Uint8Array([0, 5, 0, 4, 0, 0x11]); // prefix 0: ack u16 = 4, diff 1
    const before = c.packetsInvalid;
    e.receivePacket(packet);
    assert.equal(c.packetsInvalid, before + 1);
    const canonical = new Uint8Array(8);
    const n = writePacketHeader(canonical, 0, 5, 4, 0xffffffff);
    assert.equal(n, 4);
  });
});
