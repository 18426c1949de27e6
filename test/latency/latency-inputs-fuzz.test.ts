import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCrash, formatFailures } from '../../scripts/fuzz-core.js';
import { runInputsFuzz } from '../../scripts/inputs-fuzz-core.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('inputs fuzz');

describe(`input channel fuzz, short run (seed ${SEED}; npm run fuzz -- --target inputs for the long one)`, () => {
  it('hostile input entries and reports (ticks at 0, 2^16, 2^31, 2^32-1) never throw, nor does any server step after them, are refused with a reason changing nothing, and the real stream is intact', () => {
    const report = runInputsFuzz({ seed: SEED, inputs: 20_000 });
    const replay = `seed ${SEED} (GW_SEED=${SEED})`;
    assert.equal(report.crash, null, report.crash === null ? '' : formatCrash(report.crash));
    assert.equal(report.iterations, 20_000);
    assert.equal(report.semanticFailures, 0, `${replay}\n${formatFailures(report)}`);
    const [buffer, sender, real] = report.readers;
    assert.ok(buffer.rejected > 0 && buffer.reasons.size > 2, 'hostile entries refused, with reasons');
    assert.ok(sender.rejected > 0, 'hostile reports refused');
    assert.ok(buffer.acceptedMutated > 0, 'some mutations parse, and were checked');
    const reasons = [...buffer.reasons.keys()].join('; ');
    assert.match(reasons, /far from the server tick/, 'edge ticks reached the tick rules');
    assert.ok(real.accepted > 1000 && real.rejected === 0, 'every real packet accepted');
  });
});
