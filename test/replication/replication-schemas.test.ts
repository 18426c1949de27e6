import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compressedSpecArb, int64BoundsArb, intBoundsArb, valueArb } from '../../scripts/fuzz-core.js';
import { measureDelta, readDelta, writeDelta } from '../../src/replication/entity-delta.js';
import type { LaneState } from '../../src/replication/lane-state.js';
import { compileLayout } from '../../src/replication/layout.js';
import { pastRange } from '../../src/replication/plan.js';
import { compile } from '../../src/schema/codec.js';
import { type SchemaNode, t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

/**
 * Random entity schemas (random ranges, widths and nesting, fixed and variable fields): lanes
 * dequantize to what the schema codec decodes, and any state round trips through the delta codec
 * against any other state of the type and against nothing, with an exact measure.
 */
const SEED = testSeed('replication schemas');

const leafArb: fc.Arbitrary<SchemaNode> = fc.oneof(
  { weight: 3, arbitrary: intBoundsArb.map(([min, max]) => t.int(min, max)) },
  { weight: 3, arbitrary: compressedSpecArb.map((s) => t.float(s.min, s.max, s.resolution)) },
  int64BoundsArb.map(([min, max]) => t.int64(min, max)),
  fc.constant(t.bool()),
  fc.constant(t.float32()),
  fc.constant(t.float64()),
  fc.integer({ min: 1, max: 40 }).map((n) => t.enum(Array.from({ length: n }, (_, i) => `v${i}`))),
  fc.integer({ min: 2, max: 16 }).map((bits) => t.smallestThree(bits)),
  fc.constant(t.quaternion()),
  fc.integer({ min: 0, max: 12 }).map((n) => t.string(n)),
  fc.integer({ min: 1, max: 4 }).map((n) => t.array(t.uint8(), n)),
);

const fieldsArb = (child: fc.Arbitrary<SchemaNode>) =>
  fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,4}$/), child), {
    maxLength: 6,
    selector: ([name]) => name,
  });

const nodeArb: fc.Arbitrary<SchemaNode> = fc.oneof(
  { weight: 4, arbitrary: leafArb },
  fc.tuple(leafArb, fc.integer({ min: 1, max: 4 })).map(([item, n]) => t.tuple(item, n)),
  leafArb.map((inner) => t.optional(inner)),
  fieldsArb(leafArb).map((fields) => t.object(Object.fromEntries(fields))),
);

const entityArb = fieldsArb(nodeArb)
  .map((fields) => t.object(Object.fromEntries(fields)) as SchemaNode)
  .chain((schema) =>
    fc.tuple(fc.constant(schema), valueArb(schema), valueArb(schema), fc.array(fc.nat(), { maxLength: 8 })),
  );

const ws = new WriteStream(1 << 14);
const rs = new ReadStream();

function sameState(a: LaneState, b: LaneState): void {
  assert.deepEqual(a.lanes, b.lanes);
  for (let i = 0; i < a.blobs.length; i++) assert.deepEqual(a.blobs[i], b.blobs[i]);
}

describe('replication: random entity schemas', () => {
  it('quantize matches the codec, states round trip through deltas, bad bits are refused (property)', () => {
    fc.assert(
      fc.property(entityArb, ([schema, v1, v2, picks]) => {
        const layout = compileLayout(schema);
        const codec = compile(schema);
        const a = layout.createState();
        const b = layout.createState();
        layout.quantize(v1, a);
        layout.quantize(v2, b);
        const decoded = codec.decode(codec.encode(v1));
        assert.ok(decoded.ok);
        assert.deepEqual(layout.dequantize(a), decoded.value);
        // A mix of the two: some lanes from b, the rest from a.
        const mixed = layout.createState();
        layout.copyState(a, mixed);
        for (const pick of picks) {
          if (layout.lanes.length > 0)
            mixed.lanes[pick % layout.lanes.length] = b.lanes[pick % layout.lanes.length];
          if (layout.blobs.length > 0)
            mixed.blobs[pick % layout.blobs.length] = b.blobs[pick % layout.blobs.length];
        }
        // Lanes taken one by one can take a split int64 past its range: keep such a pair from a.
        for (const range of layout.wordRanges) {
          if (pastRange(range, mixed.lanes)) {
            mixed.lanes[range.low] = a.lanes[range.low];
            mixed.lanes[range.low + 1] = a.lanes[range.low + 1];
          }
        }
        for (const [state, base] of [
          [b, a],
          [a, b],
          [mixed, a],
          [a, null],
          [mixed, null],
        ] as [LaneState, LaneState | null][]) {
          ws.reset();
          writeDelta(ws, layout, state, base);
          assert.equal(measureDelta(layout, state, base), ws.bitsProcessed);
          rs.reset(ws.finish());
          const out = layout.createState();
          assert.ok(readDelta(rs, layout, base, out) && rs.end(), rs.error ?? '');
          sameState(out, state);
        }
        // A flipped bit is refused, or read as a state a writer could hold.
        ws.reset();
        writeDelta(ws, layout, b, a);
        const bytes = ws.finish().slice();
        for (const pick of picks) {
          if (bytes.length === 0) break;
          bytes[(pick >>> 3) % bytes.length] ^= 1 << (pick & 7);
          rs.reset(bytes);
          const out = layout.createState();
          if (readDelta(rs, layout, a, out)) layout.dequantize(out);
          else assert.match(rs.error ?? '', / at bit \d+$/);
        }
      }),
      { seed: SEED, numRuns: 250 },
    );
  });
});
