import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  compressedSpecArb,
  diffExact,
  diffRoundTrip,
  hex,
  int64BoundsArb,
  intBoundsArb,
  show,
  valueArb,
} from '../../scripts/fuzz-core.js';
import { compile } from '../../src/schema/codec.js';
import { type SchemaNode, t } from '../../src/schema/schema.js';
import { minBits } from '../../src/schema/size.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

/**
 * Random schema trees (depth <= 4, every kind) with random values: the compiled codec and the
 * interpreter must write the same bytes, read back what was written, measure alike and reject
 * every truncation. fast-check prints the seed and a shrunk counterexample; GW_SEED replays.
 */
const SEED = testSeed('schema property tests');
const RUNS = 500;
const MAX_DEPTH = 4;

/**
 * Field names, including ones that are not identifiers or look numeric without being array
 * indices. t.object refuses Object.prototype members and array indices (see test/schema/schema.test.ts).
 */
const fieldNameArb = fc.oneof(
  fc.constantFrom('a', 'b', 'id', 'length', 'with space', '01', '-1', 'ünï', '$x', '"q"'),
  fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/).filter((name) => !(name in Object.prototype)),
);

const leafArb: fc.Arbitrary<SchemaNode> = fc.oneof(
  fc.constant(t.bool()),
  intBoundsArb.map(([min, max]) => t.int(min, max)),
  int64BoundsArb.map(([min, max]) => t.int64(min, max)),
  fc.constant(t.uint64()),
  fc.constant(t.float32()),
  fc.constant(t.float64()),
  compressedSpecArb.map((spec) => t.float(spec.min, spec.max, spec.resolution, { clamp: spec.clamp })),
  fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(100, 1000, 65535)).map((n) => t.string(n)),
  fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(300)).map((n) => t.bytes(n)),
  fc
    .uniqueArray(fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 1000 })), {
      minLength: 1,
      maxLength: 9,
    })
    .map((values) => t.enum(values)),
  fc.constant(t.quaternion()),
  fc.integer({ min: 2, max: 16 }).map((bits) => t.smallestThree(bits)),
);

function schemaArb(depth: number): fc.Arbitrary<SchemaNode> {
  if (depth === 0) return leafArb;
  const child = schemaArb(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leafArb },
    {
      weight: 3,
      arbitrary: fc
        .uniqueArray(fc.tuple(fieldNameArb, child), { maxLength: 4, selector: ([name]) => name })
        .map((fields) => t.object(Object.fromEntries(fields))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(child, fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(7, 255, 1000)))
        .filter(([item]) => minBits(item) > 0) // t.array refuses items that can take no bits
        .map(([item, maxLength]) => t.array(item, maxLength)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(child, fc.integer({ min: 0, max: 6 }))
        .map(([item, length]) => t.tuple(item, length)),
    },
    { weight: 2, arbitrary: child.map((inner) => t.optional(inner)) },
  );
}

/** A schema and two values of it. */
const caseArb = schemaArb(MAX_DEPTH).chain((schema) =>
  fc.tuple(fc.constant(schema), valueArb(schema, 4), valueArb(schema, 4)),
);

/** Whether any node aligns (strings and bytes), making measure an upper bound rather than exact. */
function aligns(n: SchemaNode): boolean {
  switch (n.kind) {
    case 'string':
    case 'bytes':
      return true;
    case 'object':
      return Object.values(n.fields).some(aligns);
    case 'array':
    case 'tuple':
      return aligns(n.item);
    case 'optional':
      return aligns(n.inner);
    default:
      return false;
  }
}

function schemaText(n: SchemaNode): string {
  return JSON.stringify(n, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Every strict prefix length for short encodings; for long ones the ends and a spread between. */
function prefixLengths(length: number): number[] {
  if (length <= 200) return Array.from({ length }, (_, i) => i);
  const out = new Set<number>();
  for (let i = 0; i < 64; i++) {
    out.add(i);
    out.add(length - 1 - i);
  }
  for (let i = 64; i < length - 64; i += Math.ceil((length - 128) / 64)) out.add(i);
  return [...out];
}

function bitsWritten(write: (ws: WriteStream) => void, capacity: number): number {
  const ws = new WriteStream(capacity);
  write(ws);
  return ws.bitsProcessed;
}

describe('schema properties over random schema trees', () => {
  it('compiled and interpreted codecs agree, round-trip, measure alike and reject truncations', () => {
    let prefixes = 0;
    let exactMeasures = 0;
    fc.assert(
      fc.property(caseArb, ([schema, value, other]) => {
        const context = () => `schema ${schemaText(schema)}\nvalue ${show(value, 400)}`;
        const compiled = compile(schema);
        const interpreted = compile(schema, { codegen: false });
        assert.equal(compiled.compiled, true, 'codegen is available under Node');
        assert.equal(interpreted.compiled, false);

        const bytes = compiled.encode(value).slice();
        assert.equal(hex(interpreted.encode(value)), hex(bytes), `encodings differ\n${context()}`);

        const bits = bitsWritten((ws) => compiled.write(ws, value), bytes.length + 8);
        assert.equal(
          bitsWritten((ws) => interpreted.write(ws, value), bytes.length + 8),
          bits,
        );
        assert.equal(bytes.length, Math.ceil(bits / 8), 'encode is the written bits, rounded up to bytes');
        const measured = compiled.measure(value);
        assert.equal(interpreted.measure(value), measured, `measures differ\n${context()}`);
        assert.ok(measured >= bits, `measure ${measured} < ${bits} bits written\n${context()}`);
        assert.ok(measured <= compiled.maxBits, `measure ${measured} > maxBits ${compiled.maxBits}`);
        if (!aligns(schema)) {
          assert.equal(measured, bits, `measure is not exact without aligns\n${context()}`);
          exactMeasures++;
        }

        const decoded = compiled.decode(bytes);
        const twin = interpreted.decode(bytes);
        assert.ok(
          decoded.ok,
          `compiled decode rejected its own encoding: ${decoded.ok || decoded.error}\n${context()}`,
        );
        assert.ok(
          twin.ok,
          `interpreted decode rejected the encoding: ${twin.ok || twin.error}\n${context()}`,
        );
        assert.equal(diffRoundTrip(schema, value, decoded.value), null, context());
        assert.equal(diffExact(schema, decoded.value, twin.value), null, context());

        // Decoding into a reused target (the first value's decoding) gives what a fresh decode gives.
        const otherBytes = compiled.encode(other).slice();
        const fresh = compiled.decode(otherBytes);
        assert.ok(fresh.ok, `second value rejected: ${fresh.ok || fresh.error}`);
        assert.equal(diffRoundTrip(schema, other, fresh.value), null, `second value ${show(other, 400)}`);
        const into = compiled.decode(otherBytes, decoded.value);
        const intoTwin = interpreted.decode(otherBytes, twin.value);
        assert.ok(into.ok && intoTwin.ok, 'decoding into a target rejected a valid encoding');
        assert.equal(
          diffExact(schema, into.value, fresh.value),
          null,
          `compiled, into a target\n${context()}`,
        );
        assert.equal(
          diffExact(schema, intoTwin.value, fresh.value),
          null,
          `interpreted, into a target\n${context()}`,
        );

        // Every strict prefix is rejected (decode wants the exact length), and so is one more byte.
        for (const length of prefixLengths(bytes.length)) {
          prefixes++;
          const prefix = bytes.subarray(0, length);
          for (const codec of [compiled, interpreted]) {
            const result = codec.decode(prefix);
            assert.equal(result.ok, false, `prefix ${length} of ${hex(bytes)} accepted\n${context()}`);
            assert.ok(!result.ok && result.error.length > 0);
          }
        }
        const longer = new Uint8Array(bytes.length + 1);
        longer.set(bytes);
        assert.equal(compiled.decode(longer).ok, false, 'a trailing zero byte was accepted');
        assert.equal(interpreted.decode(longer).ok, false, 'a trailing zero byte was accepted');
      }),
      { seed: SEED, numRuns: RUNS },
    );
    assert.ok(prefixes > RUNS, `only ${prefixes} prefixes tried`);
    assert.ok(exactMeasures > RUNS / 10, `only ${exactMeasures} schemas without aligns`);
  });

  it('a compressed float with maxInteger >= 2^23 encodes its maximum alike in both codecs, without touching the next field', () => {
    const schema = t.object({ a: t.float(0, 16777215, 1), b: t.uint8() });
    const value = { a: 16777215, b: 0x54 };
    const compiled = compile(schema);
    const interpreted = compile(schema, { codegen: false });
    assert.equal(hex(compiled.encode(value)), hex(interpreted.encode(value)));
    const decoded = compiled.decode(compiled.encode(value));
    assert.deepEqual(decoded, { ok: true, value });
  });
});
