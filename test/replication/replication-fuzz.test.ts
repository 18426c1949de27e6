import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCrash, formatFailures } from '../../scripts/fuzz-core.js';
import { runReplicationFuzz } from '../../scripts/replication-fuzz-core.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('replication fuzz');

describe(`replication fuzz, short run (seed ${SEED}; npm run fuzz -- --target replication for the long one)`, () => {
  it('hostile ghost sections never throw, are refused with a reason changing nothing, and the real mirror converges', () => {
    const report = runReplicationFuzz({ seed: SEED, inputs: 30_000 });
    const replay = `seed ${SEED} (GW_SEED=${SEED})`;
    assert.equal(report.crash, null, report.crash === null ? '' : formatCrash(report.crash));
    assert.equal(report.iterations, 30_000);
    assert.equal(report.semanticFailures, 0, `${replay}\n${formatFailures(report)}`);
    const [victim, real, mismatched] = report.readers;
    assert.ok(mismatched.rejected > 0 && mismatched.accepted === 0, 'a mismatched mirror takes nothing');
    assert.ok(victim.rejected > 0 && victim.reasons.size > 3, 'hostile sections refused, with reasons');
    assert.ok(victim.acceptedMutated > 0, 'some mutations parse, and were checked for consistency');
    assert.ok(real.accepted > 1000 && real.rejected === 0, 'every real packet accepted');
  });
});
