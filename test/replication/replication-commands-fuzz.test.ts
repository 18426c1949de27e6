import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCommandsFuzz } from '../../scripts/commands-fuzz-core.js';
import { formatCrash, formatFailures } from '../../scripts/fuzz-core.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('commands fuzz');

describe(`replication commands fuzz, short run (seed ${SEED}; npm run fuzz -- --target commands for the long one)`, () => {
  it('hostile command packets (sequences, ids at 0, 2^16, 2^31, 2^32-1) never throw, nor does any server step after them; refused with a reason changing nothing', () => {
    const report = runCommandsFuzz({ seed: SEED, inputs: 20_000 });
    const replay = `seed ${SEED} (GW_SEED=${SEED})`;
    assert.equal(report.crash, null, report.crash === null ? '' : formatCrash(report.crash));
    assert.equal(report.iterations, 20_000);
    assert.equal(report.semanticFailures, 0, `${replay}\n${formatFailures(report)}`);
    const [server] = report.readers;
    assert.ok(server.rejected > 0 && server.reasons.size > 2, 'hostile packets refused, with reasons');
    assert.ok(server.acceptedMutated > 0, 'some mutations parse, and were dispatched');
  });
});
