import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CorpusEntry,
  createTarget,
  formatCrash,
  formatFailures,
  runTarget,
  TARGET_NAMES,
  type Target,
  type TargetReport,
} from '../../scripts/fuzz-core.js';
import { testSeed } from '../support/seed.js';

/** The short, seeded form of `npm run fuzz`: the same targets, mutations and checks. */
const SEED = testSeed('fuzz tests');
const ITERATIONS = 20_000;

function assertClean(report: TargetReport): void {
  const replay = `seed ${SEED} (GW_SEED=${SEED}), target ${report.target}`;
  assert.equal(report.crash, null, report.crash === null ? '' : formatCrash(report.crash));
  assert.equal(report.semanticFailures, 0, `${replay}\n${formatFailures(report)}`);
}

/** A toy target: one corpus packet of eight 0x41 bytes, readers given as functions of the input. */
function toyTarget(readers: Record<string, (input: Uint8Array) => string | null>): Target<null> {
  const names = Object.keys(readers);
  const corpus: CorpusEntry<null>[] = [{ bytes: new Uint8Array(8).fill(0x41), context: null }];
  return {
    name: 'toy',
    description: 'a target for testing the loop itself',
    readers: names,
    corpus,
    run(input, _context, _iteration, r) {
      const verdicts = names.map((name, k) => {
        const reason = r.read(k, () => readers[name](input));
        r.outcome(k, reason === null, reason);
        return reason === null;
      });
      r.check('readers agree', () =>
        verdicts.every((v) => v === verdicts[0]) ? null : `verdicts ${verdicts}`,
      );
    },
  };
}

describe(`fuzz, ${ITERATIONS} inputs per target`, () => {
  for (const name of TARGET_NAMES) {
    it(`${name}: no exception escapes a reader, readers agree, accepted values survive re-encoding`, () => {
      const report = runTarget(createTarget(name, SEED), { iterations: ITERATIONS, seed: SEED });
      assertClean(report);
      assert.equal(report.iterations, ITERATIONS);
      assert.equal(report.randomInputs + report.mutatedInputs, ITERATIONS);
      // Not vacuous: mutations get past the length checks into the readers' semantic checks, and
      // every reader both accepts and rejects some of them.
      for (const reader of report.readers) {
        assert.ok(
          reader.acceptedMutated > ITERATIONS / 100,
          `${reader.name} accepted ${reader.acceptedMutated}`,
        );
        assert.ok(reader.rejected > ITERATIONS / 10, `${reader.name} rejected ${reader.rejected}`);
        assert.equal(reader.accepted + reader.rejected, ITERATIONS);
      }
      assert.ok(report.semanticChecks >= report.readers[0].accepted, 'accepted inputs were checked');
    });
  }

  it('is replayable: the same seed gives the same inputs and outcomes', () => {
    const summary = (report: TargetReport) =>
      JSON.stringify(report.readers.map((r) => [r.name, r.accepted, r.acceptedRandom, [...r.reasons]]));
    const options = { iterations: 2000, seed: SEED };
    const first = runTarget(createTarget('kinds', SEED), options);
    const second = runTarget(createTarget('kinds', SEED), options);
    assert.equal(summary(first), summary(second));
    const other = runTarget(createTarget('kinds', SEED ^ 1), { iterations: 2000, seed: SEED ^ 1 });
    assert.notEqual(summary(first), summary(other));
  });

  it('stops at an exception escaping a reader and reports reader, seed, iteration and input', () => {
    const target = toyTarget({
      calm: () => null,
      brittle: (input) => {
        if (input.length === 3) throw new TypeError('boom on three bytes');
        return null;
      },
    });
    const report = runTarget(target, { iterations: 100_000, seed: SEED });
    assert.ok(report.crash !== null, 'the crash went unnoticed');
    assert.equal(report.crash.reader, 'brittle');
    assert.equal(report.crash.target, 'toy');
    assert.equal(report.crash.seed, SEED);
    assert.equal(report.crash.inputHex.length, 6);
    assert.match(report.crash.error, /TypeError: boom on three bytes/);
    assert.equal(report.iterations, report.crash.iteration + 1, 'the loop stops at the crash');
    assert.match(
      formatCrash(report.crash),
      new RegExp(`--seed ${SEED} --target toy --iterations ${report.iterations}`),
    );
  });

  it('counts a reason naming a swallowed exception as a crash', () => {
    const target = toyTarget({
      quiet: (input) => (input[0] === 0 ? 'internal error while reading: oops' : null),
    });
    const report = runTarget(target, { iterations: 100_000, seed: SEED });
    assert.ok(report.crash !== null);
    assert.match(report.crash.error, /internal error while reading: oops/);
  });

  it('reports readers that disagree as semantic failures, with examples', () => {
    const target = toyTarget({
      lenient: () => null,
      strict: (input) => (input.length % 2 === 1 ? 'odd length' : null),
    });
    const report = runTarget(target, { iterations: 5000, seed: SEED });
    assert.equal(report.crash, null);
    assert.ok(report.semanticFailures > 0);
    assert.equal(report.readers[1].reasons.get('odd length'), report.semanticFailures);
    const examples = report.failures.get('readers agree');
    assert.ok(examples !== undefined && examples.length > 0);
    assert.equal(examples[0].inputHex.length % 4, 2, 'an odd-length input is shown');
  });
});
