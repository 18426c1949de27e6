import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { bindEntityRefs, entityRefRewriter, hasEntityRefs } from '../../src/schema/entity-refs.js';
import { compile, SchemaValueError, t } from '../../src/schema/index.js';
import { fixedBits } from '../../src/schema/size.js';
import { testSeed } from '../support/seed.js';

const Zap = t.object({
  by: t.entity(),
  hits: t.array(t.object({ target: t.entity(), damage: t.uint8() }), 4),
  pair: t.tuple(t.entity(), 2),
  maybe: t.optional(t.entity()),
  note: t.string(8),
});

describe('t.entity', () => {
  it('unbound, names 65536 ids in 17 bits; bound to 1024 ids, 11 bits; none (-1) takes the same', () => {
    assert.equal(fixedBits(t.entity()), 17);
    const bound = bindEntityRefs(t.entity(), 1024);
    assert.equal(fixedBits(bound), 11);
    for (const codegen of [true, false]) {
      const codec = compile(bound, { codegen });
      for (const id of [-1, 0, 1, 1023]) {
        const bytes = codec.encode(id);
        assert.equal(bytes.length, 2);
        assert.deepEqual(codec.decode(bytes), { ok: true, value: id });
      }
    }
  });

  it('refuses to write an id outside [-1, ids - 1] or not an integer, and to read one past the ids', () => {
    const ids = 1000; // not a power of two: bits exist for values past the last id
    const bound = bindEntityRefs(t.object({ e: t.entity() }), ids);
    for (const codegen of [true, false]) {
      const codec = compile(bound, { codegen });
      for (const bad of [-2, ids, 2.5, Number.NaN, '3'])
        assert.throws(() => codec.encode({ e: bad as number }), SchemaValueError, `${codegen} ${bad}`);
      // 10 bits hold -1..1022 as 0..1023 with min -1: 1001 values, so 1023 (id 1022) is past the ids.
      const past = new Uint8Array([0xff, 0x03]);
      const read = codec.decode(past);
      assert.equal(read.ok, false, `codegen ${codegen}`);
      if (!read.ok) assert.match(read.error, /out of range \[-1, 999\]/);
    }
  });

  it('round-trips random values in nested objects, arrays, tuples and optionals, compiled or interpreted', () => {
    const seed = testSeed('entity-ref round trip');
    const random = prng(seed);
    const ids = 1 + Math.floor(random() * 5000);
    const schema = bindEntityRefs(Zap, ids);
    const id = () => Math.floor(random() * (ids + 1)) - 1;
    const compiled = compile(schema);
    const interpreted = compile(schema, { codegen: false });
    for (let i = 0; i < 200; i++) {
      const value = {
        by: id(),
        hits: Array.from({ length: Math.floor(random() * 5) }, () => ({ target: id(), damage: 7 })),
        pair: [id(), id()] as [number, number],
        maybe: random() < 0.5 ? undefined : id(),
        note: 'x',
      };
      const bytes = compiled.encode(value).slice();
      assert.deepEqual(interpreted.encode(value), bytes);
      for (const codec of [compiled, interpreted]) {
        const read = codec.decode(bytes);
        assert.ok(read.ok);
        assert.deepEqual({ ...read.value, maybe: read.value.maybe }, value);
      }
    }
  });

  it('binding keeps a schema without references as it is, and rebinds every reference', () => {
    const plain = t.object({ a: t.uint8() });
    assert.equal(bindEntityRefs(plain, 10), plain);
    assert.equal(hasEntityRefs(plain), false);
    assert.equal(hasEntityRefs(Zap), true);
    const bound = bindEntityRefs(Zap, 10);
    assert.equal(bindEntityRefs(bound, 10), bound);
    // by 5 + 3 × hits(target 5 + damage 8, behind a 3-bit count) ... : check the leaf widths instead.
    const codec = compile(bound);
    assert.throws(() => codec.encode({ by: 10, hits: [], pair: [0, 0], note: '' }), SchemaValueError);
    assert.throws(
      () => codec.encode({ by: 0, hits: [{ target: 10, damage: 0 }], pair: [0, 0], note: '' }),
      SchemaValueError,
    );
    assert.throws(() => codec.encode({ by: 0, hits: [], pair: [0, 10], note: '' }), SchemaValueError);
    assert.throws(
      () => codec.encode({ by: 0, hits: [], pair: [0, 0], maybe: 10, note: '' }),
      SchemaValueError,
    );
    assert.throws(() => bindEntityRefs(Zap, 0), RangeError);
    assert.throws(() => bindEntityRefs(Zap, 2 ** 32), RangeError);
  });

  it('a rewriter maps every reference, copies only the way to them, and leaves bad shapes alone', () => {
    assert.equal(entityRefRewriter(t.object({ a: t.uint8(), b: t.array(t.uint8(), 3) })), null);
    const rewrite = entityRefRewriter(Zap)!;
    const note = { deep: true };
    const value = {
      by: 1,
      hits: [{ target: 2, damage: 9 }],
      pair: [3, -1],
      maybe: 4,
      note,
    };
    const mapped = rewrite(value, (id) => (id < 0 ? -1 : id * 10)) as typeof value;
    assert.deepEqual(mapped, {
      by: 10,
      hits: [{ target: 20, damage: 9 }],
      pair: [30, -1],
      maybe: 40,
      note,
    });
    assert.equal(mapped.note, note);
    assert.deepEqual(value.hits, [{ target: 2, damage: 9 }], 'the value given is not changed');
    const double = (id: number) => id * 2;
    assert.equal(rewrite(null, double), null);
    assert.equal(rewrite(7, double), 7);
    assert.deepEqual(rewrite({ by: 'x', hits: 5, pair: { 0: 1 } }, double), {
      by: 'x',
      hits: 5,
      pair: { 0: 1 },
    });
    assert.deepEqual(rewrite({ maybe: undefined }, double), { maybe: undefined });
    // Longer than the schema allows (a hostile sparse array): left as it is, for the codec to refuse.
    const huge = [5];
    huge.length = 2 ** 31;
    const long = rewrite({ hits: huge, pair: [1, 2, 3] }, double) as { hits: unknown; pair: unknown };
    assert.equal(long.hits, huge);
    assert.deepEqual(long.pair, [1, 2, 3]);
  });
});
