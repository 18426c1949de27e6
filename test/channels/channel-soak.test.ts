import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTREME_RUN, LOSS_RUN, runChannelSoak } from '../../scripts/channel-soak-core.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('channel soak');

describe(`channel soak, short (seed ${SEED})`, () => {
  it('bursts of 0-64 messages plus blocks over 1000 ms latency, 25% loss, 25% duplicates: all once, in order', () => {
    const report = runChannelSoak({ seed: SEED, messages: 3_000, maxBlockBytes: 16 * 1024 });
    assert.deepEqual(report.violations, []);
    assert.ok(report.messagesDelivered >= 6_000);
    assert.ok(report.blocksDelivered >= 1, 'at least one block went through');
  });

  it("Fiedler's extremes (10 s ± 2 s one way, 25% loss, 50% duplicates), default packet-layer settings: all once, in order, all acked", () => {
    const report = runChannelSoak({ ...EXTREME_RUN, seed: SEED, messages: 1_000 });
    assert.deepEqual(report.violations, []);
    assert.ok(report.messagesDelivered >= 2_000);
    assert.ok(report.blocksDelivered >= 1, 'at least one block went through');
  });

  it('99% loss for a minute, then recovery: all once, in order, all acked', () => {
    const report = runChannelSoak({ ...LOSS_RUN, seed: SEED, messages: 1_000 });
    assert.deepEqual(report.violations, []);
    assert.ok(report.messagesDelivered >= 2_000);
    assert.ok(report.simulatedSeconds > 60, 'the run outlasted the loss');
  });
});
