import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCrash } from '../../scripts/fuzz-core.js';
import { runLockstepFuzz } from '../../scripts/lockstep-fuzz-core.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('lockstep fuzz');

describe(`lockstep and rollback fuzz, short run (seed ${SEED}; npm run fuzz -- --target lockstep for the long one)`, () => {
  it('hostile peer datagrams (turns, frames, sequences at 0, 2^16, 2^31, 2^32-1) never make a session update throw', () => {
    const report = runLockstepFuzz({ seed: SEED, inputs: 12_000 });
    assert.equal(report.crash, null, report.crash === null ? '' : formatCrash(report.crash));
    assert.equal(report.iterations, 12_000);
    const [lockstep, rollback] = report.readers;
    assert.ok(lockstep.rejected > 0, 'the lockstep victim refused hostile packets');
    assert.ok(
      rollback.rejected > 0 && rollback.reasons.size > 1,
      'the rollback victim refused them, for reasons',
    );
  });
});
