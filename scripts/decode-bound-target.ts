/**
 * The `schemas` fuzz target: random nested schemas rich in parts that take no bits (int(k, k),
 * enum of one value, object({}), string(0), empty tuples and arrays, tuples and optionals of
 * them), each fed mutated and random inputs. On every input, through the compiled codec and the
 * interpreter, the values a decode builds (containers included) stay within the schema's declared
 * bound, valuesPerBit × input bits + fixedValues, and the string and byte contents within the
 * input's length: a decode's work is paid for by its input (issue 9: 502 bytes once decoded into
 * 262 million values). Schemas that t.* refuses are counted; they are the amplifying ones.
 */
import fc from 'fast-check';
import { type Codec, compile } from '../src/schema/codec.js';
import { type SchemaNode, t } from '../src/schema/schema.js';
import { type DecodeBound, decodeBound, minBits } from '../src/schema/size.js';
import type { CorpusEntry, Target } from './fuzz-core.js';

export const DECODE_BOUND_TARGET = 'schemas';

/** Kept out of the corpus (still checked at construction): decoding them on every input is slow. */
const MAX_CORPUS_FIXED_VALUES = 500;
const MAX_CORPUS_BYTES = 256;
const CORPUS_SCHEMAS = 48;
const MAX_DEPTH = 4;

interface SchemaCase {
  readonly schema: SchemaNode;
  readonly codecs: readonly Codec<unknown>[];
  readonly bound: DecodeBound;
  readonly depth: number;
}

/** The most values a sample of valueArb(n, SAMPLE_ITEMS) can hold: big ones are slow to draw. */
const SAMPLE_ITEMS = 3;
const sampledValues = (n: SchemaNode): number =>
  n.kind === 'object'
    ? Object.values(n.fields).reduce((sum, f) => sum + sampledValues(f), 1)
    : n.kind === 'tuple' || n.kind === 'array'
      ? 1 + (n.kind === 'tuple' ? n.length : Math.min(n.maxLength, SAMPLE_ITEMS)) * sampledValues(n.item)
      : n.kind === 'optional'
        ? sampledValues(n.inner)
        : 1;

const depthOf = (n: SchemaNode): number =>
  n.kind === 'object'
    ? 1 + Math.max(0, ...Object.values(n.fields).map(depthOf))
    : n.kind === 'array' || n.kind === 'tuple'
      ? 1 + depthOf(n.item)
      : n.kind === 'optional'
        ? 1 + depthOf(n.inner)
        : 1;

/** A t.* call, or null when it refuses the schema (counted in `refusals`). */
function attempt(build: () => SchemaNode, refusals: { count: number }): SchemaNode | null {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    refusals.count++;
    return null;
  }
}

function schemaArb(depth: number, refusals: { count: number }): fc.Arbitrary<SchemaNode | null> {
  const leaf: fc.Arbitrary<SchemaNode | null> = fc.constantFrom<SchemaNode>(
    t.int(7, 7),
    t.enum(['only']),
    t.string(0),
    t.bytes(0),
    t.object({}),
    t.bool(),
    t.uint8(),
    t.int(0, 2),
    t.string(6),
    t.bytes(3),
  );
  if (depth === 0) return leaf;
  const child = schemaArb(depth - 1, refusals);
  const length = fc.constantFrom(0, 1, 2, 3, 7, 64, 300, 65535);
  return fc.oneof(
    // The root is always composite: a leaf root has nothing to amplify.
    { weight: depth === MAX_DEPTH ? 0 : 3, arbitrary: leaf },
    {
      weight: 2,
      arbitrary: fc.array(child, { maxLength: 4 }).map((fields) => {
        if (fields.some((f) => f === null)) return null;
        const named = Object.fromEntries(fields.map((f, i) => [`f${i}`, f as SchemaNode]));
        return attempt(() => t.object(named), refusals);
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(child, length)
        .map(([item, n]) => (item === null ? null : attempt(() => t.tuple(item, n), refusals))),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(child, fc.constantFrom(0, 1, 5, 255, 65535))
        .map(([item, n]) => (item === null ? null : attempt(() => t.array(item, n), refusals))),
    },
    {
      weight: 1,
      arbitrary: child.map((inner) => (inner === null ? null : attempt(() => t.optional(inner), refusals))),
    },
  );
}

/**
 * Values in a decoded value of `n` (every node, containers and absent optionals included) and the
 * bytes its strings and byte arrays hold (an enum's values are the schema's, not allocated).
 */
function decodedSize(n: SchemaNode, value: unknown, size: { values: number; bytes: number }): void {
  size.values++;
  switch (n.kind) {
    case 'string':
      if (typeof value === 'string') size.bytes += value.length;
      return;
    case 'bytes':
      if (value instanceof Uint8Array) size.bytes += value.length;
      return;
    case 'object':
      if (typeof value !== 'object' || value === null) return;
      for (const key of Object.keys(value)) {
        const field = n.fields[key];
        if (field !== undefined) decodedSize(field, (value as Record<string, unknown>)[key], size);
        else size.values++;
      }
      return;
    case 'array':
    case 'tuple':
      if (Array.isArray(value)) for (const item of value) decodedSize(n.item, item, size);
      return;
    case 'optional':
      size.values--; // the presence bit's value is the inner one (or undefined)
      if (value === undefined) size.values++;
      else decodedSize(n.inner, value, size);
      return;
    default:
      // Leaves; quaternions and smallest-three are arrays of four numbers.
      if (Array.isArray(value)) size.values += value.length;
  }
}

/** A fresh container for a decode to fill in place, so a rejected input's partial work is seen too. */
const freshTarget = (schema: SchemaNode): unknown =>
  schema.kind === 'object' ? {} : schema.kind === 'array' || schema.kind === 'tuple' ? [] : undefined;

/**
 * Builds the target. `valueArb` (fuzz-core's writer-accepted values) is passed in rather than
 * imported, so this module and fuzz-core do not import each other at run time.
 */
export function decodeBoundTarget(
  seed: number,
  valueArb: (n: SchemaNode, maxItems?: number) => fc.Arbitrary<unknown>,
): Target<SchemaCase> {
  const refusals = { count: 0 };
  const schemas = fc
    .sample(schemaArb(MAX_DEPTH, refusals), { seed, numRuns: CORPUS_SCHEMAS * 20 })
    .filter(
      (s): s is SchemaNode =>
        s !== null &&
        decodeBound(s).fixedValues <= MAX_CORPUS_FIXED_VALUES &&
        minBits(s) <= MAX_CORPUS_BYTES * 8 &&
        sampledValues(s) <= MAX_CORPUS_FIXED_VALUES * 4,
    )
    .slice(0, CORPUS_SCHEMAS);
  const corpus: CorpusEntry<SchemaCase>[] = [];
  for (const [k, schema] of schemas.entries()) {
    const codecs = [compile(schema), compile(schema, { codegen: false })];
    const context: SchemaCase = { schema, codecs, bound: decodeBound(schema), depth: depthOf(schema) };
    for (const value of fc.sample(valueArb(schema, SAMPLE_ITEMS), { seed: seed + k, numRuns: 2 })) {
      const bytes = codecs[0].encode(value);
      if (bytes.length <= MAX_CORPUS_BYTES) corpus.push({ bytes: bytes.slice(), context });
    }
  }
  const sizes = [
    { values: 0, bytes: 0 },
    { values: 0, bytes: 0 },
  ];
  return {
    name: DECODE_BOUND_TARGET,
    description: `${schemas.length} random schemas with zero-bit parts (${refusals.count} refused by t.* while drawing them): decode work within the declared bound`,
    readers: ['schemas-compiled', 'schemas-interpreted'],
    corpus,
    run(input, { schema, codecs, bound, depth }, _iteration, r) {
      const verdicts: boolean[] = [];
      for (let k = 0; k < codecs.length; k++) {
        const target = freshTarget(schema);
        const result = r.read(k, () => codecs[k].decode(input, target));
        r.outcome(k, result.ok, result.ok ? null : result.error);
        verdicts.push(result.ok);
        const size = sizes[k];
        size.values = 0;
        size.bytes = 0;
        // A rejected decode leaves its partial work in the target (none to see for a leaf root).
        if (result.ok || target !== undefined) decodedSize(schema, result.ok ? result.value : target, size);
        r.check('decode work within the declared bound', () => {
          // A rejected read leaves at most one neutral value per level it had reached.
          const slack = result.ok ? 0 : depth;
          const limit = bound.valuesPerBit * 8 * input.length + bound.fixedValues + slack;
          if (size.values > limit) {
            return `${codecs[k].compiled ? 'compiled' : 'interpreted'}: ${size.values} values from ${input.length} bytes, bound ${limit}`;
          }
          return size.bytes > input.length
            ? `${size.bytes} content bytes from ${input.length} input bytes`
            : null;
        });
      }
      r.check('compiled and interpreted verdicts agree', () =>
        verdicts[0] === verdicts[1] ? null : `compiled ${verdicts[0]}, interpreted ${verdicts[1]}`,
      );
    },
  };
}
