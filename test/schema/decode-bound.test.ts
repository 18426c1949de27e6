import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GameStateSchema } from '../../bench/w1/schema.js';
import { compile, decodeBound, type SchemaNode, t } from '../../src/schema/index.js';
import { MAX_FIXED_VALUES, MAX_VALUES_PER_BIT } from '../../src/schema/size.js';

/** Issue 9, item B: a decode's work must be paid for by its input, for every composition of kinds. */

describe('schemas whose decode could outgrow its input are refused', () => {
  it('an array of items that take no bits is refused (t.array(t.tuple(t.int(7, 7), 65535 as number), 65535 as number))', () => {
    assert.throws(
      () => t.array(t.tuple(t.int(7, 7), 65535 as number), 65535 as number),
      /an item must take at least one bit/,
    );
  });

  it('an array item with more zero-bit values than its bits allow is refused (1 bit paying for 65,537 values)', () => {
    // 502 bytes of this decoded into 262 million values before.
    const item = t.object({ b: t.bool(), z: t.tuple(t.object({}), 65535 as number) });
    assert.throws(() => t.array(item, 65535 as number), /values per input bit \(at most 64\)/);
  });

  it('nested tuples of zero-bit parts past the fixed cap are refused (t.tuple(t.tuple(t.object({}), 65535 as number), 65535 as number))', () => {
    assert.throws(
      () => t.tuple(t.tuple(t.object({}), 65535 as number), 65535 as number),
      /values from no input \(at most 1048576\)/,
    );
  });

  it('compile refuses the same schemas built by hand, without t.*', () => {
    const zero: SchemaNode = { kind: 'object', fields: {} };
    const item: SchemaNode = {
      kind: 'object',
      fields: { b: { kind: 'bool' }, z: { kind: 'tuple', item: zero, length: 65535 } },
    };
    for (const codegen of [true, false]) {
      assert.throws(
        () => compile({ kind: 'array', item, maxLength: 65535 }, { codegen }),
        /values per input bit/,
      );
      assert.throws(
        () => compile({ kind: 'array', item: { kind: 'int', min: 7, max: 7 }, maxLength: 9 }, { codegen }),
        /at least one bit/,
      );
    }
  });
});

describe('the decode bound of accepted schemas', () => {
  it('ordinary schemas are far inside the caps (W1: about one value per input bit)', () => {
    const w1 = decodeBound(GameStateSchema);
    assert.ok(w1.valuesPerBit < 1.1, `W1 ${w1.valuesPerBit}`);
    assert.equal(w1.fixedValues, 2);
    assert.deepEqual(decodeBound(t.tuple(t.int(0, 0), 65535 as number)), {
      valuesPerBit: 0,
      fixedValues: 65536,
    });
    assert.ok(
      decodeBound(t.array(t.object({ b: t.bool(), k: t.int(3, 3) }), 1000)).valuesPerBit <=
        MAX_VALUES_PER_BIT,
    );
  });

  it('a schema at the per-bit cap decodes a full input into no more values than its bound', () => {
    // Each 1-bit item is 64 values (object, bool, tuple, 61 zero-bit ints): exactly the cap.
    const schema = t.array(t.object({ b: t.bool(), z: t.tuple(t.int(5, 5), 61) }), 4095);
    const bound = decodeBound(schema);
    assert.equal(bound.valuesPerBit, MAX_VALUES_PER_BIT);
    // The count 4095 in 12 bits, then 4095 one-bit items: 4107 bits (the maxBits), 514 bytes.
    const input = new Uint8Array(514).fill(0xff);
    input[513] = 0x07; // bits 4104..4106 are items, the rest padding
    const result = compile(schema).decode(input);
    assert.ok(result.ok, result.ok ? '' : result.error);
    assert.equal(result.value.length, 4095);
    const values = 1 + result.value.length * (1 + 1 + 1 + 61);
    assert.ok(values <= bound.valuesPerBit * 4107 + bound.fixedValues, `${values} values`);
    assert.ok(bound.fixedValues <= MAX_FIXED_VALUES);
  });

  it('a truncated array item is refused before its zero-bit parts are built, in both codecs (fuzz seed 1688631491)', () => {
    // Its item costs 10 bits (f1's count, f2's length) and carries 300 constants in f0. One byte
    // holds the array count and 7 more bits: not enough for the item, so nothing of it is built.
    const schema = t.array(
      t.object({
        f0: t.tuple(t.int(7, 7), 300),
        f1: t.array(t.string(6), 255),
        f2: t.bytes(3),
      }),
      1,
    );
    for (const codegen of [true, false]) {
      const codec = compile(schema, { codegen });
      const target: NonNullable<Parameters<typeof codec.decode>[1]> = [];
      const result = codec.decode(Uint8Array.of(0x7d), target);
      assert.equal(result.ok, false, `codegen ${codegen}`);
      assert.equal(target.length, 0, `codegen ${codegen}: the refused decode left ${target.length} items`);
    }
  });
});
