import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DeliveryLog,
  formatSoakReport,
  OutcomeLedger,
  PayloadPattern,
  runSoak,
  type SoakReport,
  Violations,
} from '../../scripts/packet-soak-core.js';
import { prng, randomInt } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';

/** The short, seeded form of `npm run soak`: the same wiring, payload pattern and checks. */
const SEED = testSeed('packet soak tests');
const PACKETS = 20_000;

/** The figures a replay must reproduce exactly. */
function fingerprint(report: SoakReport): string {
  return JSON.stringify(
    report.directions.map((d) => [d.sent, d.delivered, d.acked, d.lost, d.refused, d.link, d.receiver]),
  );
}

describe(`packet soak, ${PACKETS} packets each way`, () => {
  it('5% loss, duplicates, reordering: every payload intact and delivered at most once, no false acks, one outcome each', () => {
    const report = runSoak({ seed: SEED, packets: PACKETS });
    const text = formatSoakReport(report);
    assert.ok(report.ok, text);
    assert.equal(report.violations.total, 0, text);
    for (const d of report.directions) {
      assert.equal(d.sent, PACKETS);
      assert.equal(d.acked + d.lost, PACKETS, `${d.name}: acked + lost`);
      assert.equal(d.falseAcks, 0);
      assert.equal(d.sender.packetsAcked, d.acked);
      // Not vacuous: most packets arrive and are acked, a fifth are lost (a fragmented packet
      // needs all its datagrams), fragments, duplicates and refusals all happen.
      assert.ok(
        d.delivered > 0.7 * PACKETS && d.delivered < 0.9 * PACKETS,
        `${d.name}: delivered ${d.delivered}`,
      );
      assert.ok(d.acked > 0.65 * PACKETS, `${d.name}: acked ${d.acked}`);
      assert.ok(d.lost > 0.1 * PACKETS, `${d.name}: lost ${d.lost}`);
      assert.ok(d.acked <= d.delivered, `${d.name}: acked ${d.acked} > delivered ${d.delivered}`);
      assert.ok(d.sender.fragmentsSent > 2 * PACKETS, `${d.name}: fragments ${d.sender.fragmentsSent}`);
      assert.ok(
        d.receiver.packetsDuplicate > 0 && d.receiver.fragmentsDuplicate > 0,
        `${d.name}: duplicates`,
      );
      assert.ok(d.refused > 0, `${d.name}: refused ${d.refused}`);
      const loss = d.link.lost / d.link.offered;
      assert.ok(loss > 0.04 && loss < 0.06, `${d.name}: datagram loss ${loss}`);
      // 2 × (50 ± 10 ms), measured at 1/60 s ticks.
      assert.ok(d.rtt.min >= 80 && d.rtt.avg < 200, `${d.name}: rtt ${JSON.stringify(d.rtt)}`);
    }
    assert.ok(report.peakReassemblyBytes > 0 && report.peakReassemblyBytes <= report.reassemblyCap);
  });

  it('is replayable: the same seed gives the same run, another seed another', () => {
    const options = { packets: 3000, seed: SEED };
    const first = runSoak(options);
    assert.equal(fingerprint(runSoak(options)), fingerprint(first));
    assert.notEqual(fingerprint(runSoak({ ...options, seed: (SEED ^ 1) >>> 0 })), fingerprint(first));
  });

  it('catches a payload bit flipped below the endpoint, and names the seed', () => {
    const rng = prng(SEED);
    const report = runSoak({
      seed: SEED,
      packets: 3000,
      tamper: (direction, data) => {
        // Regular (unfragmented) packets a->b, now and then: the last byte is payload.
        if (direction === 0 && (data[0] & 1) === 0 && data.length > 12 && rng() < 0.05)
          data[data.length - 1] ^= 1 << randomInt(rng, 8);
      },
    });
    assert.equal(report.ok, false);
    assert.ok(report.violations.count('corrupted') > 0, formatSoakReport(report));
    assert.match(formatSoakReport(report), new RegExp(`seed ${SEED}: FAIL`));
  });

  it('catches acks forged below the endpoint', () => {
    const rng = prng(SEED ^ 2);
    const report = runSoak({
      seed: SEED,
      packets: 3000,
      tamper: (direction, data) => {
        // Regular packets b->a: every ack_bits byte present claims 7 of its 8 packets received
        // (0xFE stays canonical; 0xFF would be dropped as malformed).
        if (direction !== 1 || (data[0] & 1) !== 0 || rng() < 0.5) return;
        const prefix = data[0];
        let p = 3 + (prefix & 0x20 ? 1 : 2);
        for (let bit = 1; bit <= 4; bit++) if (prefix & (1 << bit)) data[p++] = 0xfe;
      },
    });
    assert.equal(report.ok, false);
    assert.ok(report.violations.count('false ack') > 0, formatSoakReport(report));
    assert.ok(report.directions[0].falseAcks > 0);
  });
});

describe('soak ledgers', () => {
  it('the payload pattern notices a flipped bit anywhere, a wrong length and a wrong id', () => {
    const pattern = new PayloadPattern(SEED, { max: 64, smallShare: 0, smallMax: 8 });
    const buffer = new Uint8Array(64);
    let id = 0;
    while (pattern.length(0, id) < 40) id++;
    const length = pattern.write(0, id, buffer);
    assert.equal(pattern.check(0, id, buffer, 0, length), null);
    for (let bit = 0; bit < length * 8; bit++) {
      buffer[bit >>> 3] ^= 1 << (bit & 7);
      assert.notEqual(pattern.check(0, id, buffer, 0, length), null, `bit ${bit}`);
      buffer[bit >>> 3] ^= 1 << (bit & 7);
    }
    assert.match(pattern.check(0, id, buffer, 0, length - 1) ?? '', /length/);
    assert.notEqual(pattern.check(1, id, buffer, 0, length), null, 'the other direction');
    assert.notEqual(pattern.check(0, id + 65536, buffer, 0, length), null, 'the same sequence a wrap later');
  });

  it('flags a false ack, two outcomes, a wrong record and a packet left without an outcome', () => {
    const violations = new Violations();
    const delivered = new Set([0, 2]);
    const ledger = new OutcomeLedger('x', (id) => delivered.has(id), violations);
    for (let i = 0; i < 4; i++) ledger.onSent(i);
    ledger.onAcked(0, 0);
    assert.equal(violations.total, 0);
    ledger.onAcked(1, 1);
    assert.equal(violations.count('false ack'), 1);
    ledger.onLost(0, 0);
    assert.equal(violations.count('two outcomes'), 1);
    ledger.onAcked(2, 3);
    assert.equal(violations.count('record'), 1);
    ledger.onSent(7);
    assert.equal(violations.count('sequence'), 1);
    ledger.finish();
    assert.equal(violations.count('no outcome'), 3); // packets 2, 3 and 4
  });

  it('flags a delivery twice, a corrupted payload and a packet never sent', () => {
    const violations = new Violations();
    const pattern = new PayloadPattern(SEED, { max: 256, smallShare: 0.5, smallMax: 8 });
    const log = new DeliveryLog('x', 0, pattern, () => 3, violations);
    const buffer = new Uint8Array(300);
    const at = 7;
    const length = pattern.write(0, 1, buffer.subarray(at));
    assert.equal(log.receive(1, buffer, at, length), true);
    assert.equal(log.receive(1, buffer, at, length), false);
    assert.equal(violations.count('delivered twice'), 1);
    const other = pattern.write(0, 2, buffer.subarray(at));
    buffer[at + other - 1] ^= 0x10;
    assert.equal(log.receive(2, buffer, at, other), false);
    assert.equal(violations.count('corrupted'), 1);
    assert.equal(log.receive(5, buffer, at, other), false);
    assert.equal(violations.count('never sent'), 1);
    assert.equal(log.delivered, 1);
  });
});
