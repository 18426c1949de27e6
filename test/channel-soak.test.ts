import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChannelSoak } from '../scripts/channel-soak-core.js';
import { testSeed } from './support/seed.js';

const SEED = testSeed('channel soak');

describe(`channel soak, short (seed ${SEED})`, () => {
  it('bursts of 0-64 messages plus blocks over 1000 ms latency, 25% loss, 25% duplicates: all once, in order', () => {
    const report = runChannelSoak({ seed: SEED, messages: 3_000, maxBlockBytes: 16 * 1024 });
    assert.deepEqual(report.violations, []);
    assert.ok(report.messagesDelivered >= 6_000);
    assert.ok(report.blocksDelivered >= 1, 'at least one block went through');
  });
});
