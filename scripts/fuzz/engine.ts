import { prng, randomInt } from '../../src/random/prng.js';
import { deriveSeed, hex, show } from './helpers.js';
import { InputMaker } from './input-maker.js';
import {
  MAX_REASONS,
  newTargetReport,
  normalizeReason,
  type RunOptions,
  recordFailure,
  runMeter,
  type TargetReport,
} from './report.js';
import { type CorpusEntry, ReaderCrash, type Recorder, type Target } from './target.js';

/** Reasons that mean a reader caught an exception of its own: the input found a bug. */
const SWALLOWED = /internal error while reading|serialize threw/;

function pickerFor(corpus: readonly CorpusEntry<unknown>[]): (rng: () => number) => CorpusEntry<unknown> {
  const cumulative: number[] = [];
  let total = 0;
  for (const entry of corpus) {
    total += entry.weight ?? 1;
    cumulative.push(total);
  }
  return (rng) => {
    const x = rng() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return corpus[lo];
  };
}

/** Feeds `options.iterations` inputs to a target; stops at the first crash. Never throws for a crash. */
export function runTarget(target: Target<unknown>, options: RunOptions): TargetReport {
  const { iterations, seed } = options;
  const randomShare = options.randomShare ?? 0.2;
  const rng = prng(deriveSeed(seed, `${target.name}/inputs`));
  let largest = 0;
  for (const entry of target.corpus) largest = Math.max(largest, entry.bytes.length);
  const maker = new InputMaker(2 * largest + 64);
  const pick = pickerFor(target.corpus);

  const report = newTargetReport({
    target: target.name,
    description: target.description,
    seed,
    readers: target.readers,
    corpusSize: target.corpus.length,
    gc: options.gc,
  });

  let iteration = 0;
  let mutated = false;
  let input: Uint8Array = new Uint8Array(0);

  const recorder: Recorder = {
    read(reader, fn) {
      try {
        return fn();
      } catch (error) {
        throw new ReaderCrash(target.readers[reader], error);
      }
    },
    outcome(reader, accepted, reason) {
      const stats = report.readers[reader];
      if (accepted) {
        stats.accepted++;
        if (mutated) stats.acceptedMutated++;
        else stats.acceptedRandom++;
        return;
      }
      const text = reason ?? 'rejected (no reason given)';
      if (SWALLOWED.test(text)) throw new ReaderCrash(target.readers[reader], text);
      stats.rejected++;
      let key = normalizeReason(text);
      if (!stats.reasons.has(key) && stats.reasons.size >= MAX_REASONS) key = '(other reasons)';
      stats.reasons.set(key, (stats.reasons.get(key) ?? 0) + 1);
    },
    check(name, fn) {
      report.semanticChecks++;
      let detail: string | null | undefined;
      try {
        detail = fn();
      } catch (error) {
        if (error instanceof ReaderCrash) throw error;
        detail = `threw ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`;
      }
      if (!detail) return;
      recordFailure(report, name, detail, iteration, input);
    },
  };

  const meter = runMeter(report, iterations, options);
  for (iteration = 0; iteration < iterations; iteration++) {
    const base = pick(rng);
    mutated = rng() >= randomShare;
    if (mutated) {
      input = maker.mutate(rng, base.bytes, pick(rng).bytes);
      report.mutatedInputs++;
    } else {
      input = maker.random(rng, randomInt(rng, 2 * base.bytes.length + 1));
      report.randomInputs++;
    }
    target.prepare?.(input, rng);
    try {
      target.run(input, base.context, iteration, recorder);
    } catch (error) {
      const crash = error instanceof ReaderCrash ? error : new ReaderCrash('(target harness)', error);
      report.crash = {
        target: target.name,
        reader: crash.reader,
        seed,
        iteration,
        mutated,
        inputHex: hex(input),
        error: crash.message,
      };
      iteration++;
      break;
    }
    if ((iteration & 2047) === 2047) meter.update(iteration + 1);
  }
  report.iterations = iteration;
  meter.finish();
  return report;
}
