import { prng, randomInt } from '../../src/random/prng.js';
import { MeasureStream } from '../../src/serialize/measure-stream.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import type { Stream } from '../../src/serialize/stream.js';
import {
  SUBSET_TAG_BITMASK,
  SUBSET_TAG_INDICES,
  SUBSET_TAG_RELATIVE,
  SUBSET_TAG_SENTINEL,
  serializeSubset,
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetRelative,
  serializeSubsetSentinel,
} from '../../src/serialize/subset.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { sameBytes } from '../bytes.js';
import { hex, show } from './helpers.js';
import { assertCorpusAccepted, type CorpusEntry, type Target } from './target.js';

/** (n, maxCount) pairs the subset input selects from with its first field. */
const SUBSET_CONFIGS: readonly { n: number; maxCount: number }[] = [
  { n: 1, maxCount: 1 },
  { n: 5, maxCount: 3 },
  { n: 32, maxCount: 32 },
  { n: 33, maxCount: 34 },
  { n: 100, maxCount: 10 },
  { n: 1000, maxCount: 1000 },
  { n: 65535, maxCount: 200 },
  { n: 300, maxCount: 0 },
];

type Encoding = (s: Stream, indices: number[], n: number, maxCount: number) => number[];
const SUBSET_ENCODINGS: Record<number, Encoding> = {
  [SUBSET_TAG_BITMASK]: serializeSubsetBitmask,
  [SUBSET_TAG_INDICES]: serializeSubsetIndices,
  [SUBSET_TAG_SENTINEL]: serializeSubsetSentinel,
  [SUBSET_TAG_RELATIVE]: serializeSubsetRelative,
};

/** config (3 bits), then serializeSubset; `tag` forces one encoding instead of the cheapest. */
function writeSubset(ws: WriteStream, config: number, indices: number[], tag?: number): Uint8Array {
  const { n, maxCount } = SUBSET_CONFIGS[config];
  ws.reset();
  ws.int(config, 0, SUBSET_CONFIGS.length - 1);
  if (tag === undefined) serializeSubset(ws, indices, n, maxCount);
  else {
    ws.bits(tag, 2);
    SUBSET_ENCODINGS[tag](ws, indices, n, maxCount);
  }
  return ws.finish();
}

export function subsetTarget(seed: number): Target<null> {
  const rng = prng(seed);
  const ws = new WriteStream(64 * 1024);
  const corpus: CorpusEntry<null>[] = [];
  for (let config = 0; config < SUBSET_CONFIGS.length; config++) {
    const { n, maxCount } = SUBSET_CONFIGS[config];
    const limit = Math.min(n, maxCount);
    const sizes = [
      0,
      Math.min(1, limit),
      limit,
      randomInt(rng, limit + 1),
      randomInt(rng, Math.min(limit, 12) + 1),
    ];
    for (const size of sizes) {
      // A random subset of `size` of [0, n): sparse or clustered.
      const chosen = new Set<number>();
      const clustered = rng() < 0.5;
      const start = randomInt(rng, n);
      while (chosen.size < size)
        chosen.add(clustered ? (start + randomInt(rng, size * 2 + 1)) % n : randomInt(rng, n));
      const indices = [...chosen].sort((a, b) => a - b);
      for (const tag of [
        undefined,
        SUBSET_TAG_BITMASK,
        SUBSET_TAG_INDICES,
        SUBSET_TAG_SENTINEL,
        SUBSET_TAG_RELATIVE,
      ]) {
        const bytes = writeSubset(ws, config, indices, tag).slice();
        corpus.push({ bytes, context: null, weight: 1 / (1 + bytes.length / 1024) });
      }
    }
  }
  const rs = new ReadStream();
  const measure = new MeasureStream();
  const target: Target<null> = {
    name: 'subset',
    description: 'serializeSubset over 8 (n, maxCount) shapes, all four encodings in the corpus',
    readers: ['subset'],
    corpus,
    run(input, _context, _iteration, r) {
      let config = 0;
      let payloadBits = 0;
      const indices = r.read(0, () => {
        rs.reset(input);
        config = rs.int(0, 0, SUBSET_CONFIGS.length - 1);
        const { n, maxCount } = SUBSET_CONFIGS[config];
        const start = rs.bitsProcessed;
        const out = serializeSubset(rs, [], n, maxCount);
        payloadBits = rs.bitsProcessed - start;
        rs.end();
        return out;
      });
      r.outcome(0, rs.ok, rs.error);
      if (!rs.ok) return;
      const { n, maxCount } = SUBSET_CONFIGS[config];
      r.check('an accepted subset is sorted, distinct, in range and within maxCount', () => {
        if (indices.length > Math.min(n, maxCount))
          return `${indices.length} indices for n ${n}, maxCount ${maxCount}`;
        for (let i = 0; i < indices.length; i++) {
          const x = indices[i];
          if (!Number.isInteger(x) || x < 0 || x >= n || (i > 0 && x <= indices[i - 1]))
            return `bad list ${show(indices)} for n ${n}`;
        }
        return null;
      });
      r.check('an accepted subset is the writer’s encoding under its tag', () => {
        rs.reset(input);
        rs.int(0, 0, SUBSET_CONFIGS.length - 1);
        const tag = rs.bits(0, 2);
        const again = writeSubset(ws, config, indices, tag);
        return sameBytes(again, input) ? null : `tag ${tag}: re-encoded ${hex(again)}`;
      });
      r.check('the cheapest encoding is no bigger and reads back the same list', () => {
        measure.reset();
        serializeSubset(measure, indices, n, maxCount);
        if (measure.bitsProcessed > payloadBits)
          return `cheapest encoding takes ${measure.bitsProcessed} bits, the input used ${payloadBits}`;
        const cheapest = writeSubset(ws, config, indices);
        const back = r.read(0, () => {
          rs.reset(cheapest);
          rs.int(0, 0, SUBSET_CONFIGS.length - 1);
          const out = serializeSubset(rs, [], n, maxCount);
          rs.end();
          return out;
        });
        if (!rs.ok) return `cheapest encoding rejected: ${rs.error}`;
        return back.length === indices.length && back.every((x, i) => x === indices[i])
          ? null
          : `read back ${show(back)}`;
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}
