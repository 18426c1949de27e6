import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile, type Schema, SchemaValueError, t } from '../../src/schema/index.js';
import { compressedFloat, MeasureStream, ReadStream, WriteStream } from '../../src/serialize/index.js';

/** Issue 9, item A and C: values a writer must refuse loudly, in every write path. */

const modes = [
  { name: 'compiled', codegen: true },
  { name: 'interpreted', codegen: false },
] as const;

/** Asserts that writing `value` through `schema` throws a SchemaValueError at `path` matching `detail`. */
function assertRefused(schema: Schema<unknown>, value: unknown, path: string, detail: RegExp): void {
  for (const { name, codegen } of modes) {
    const codec = compile(schema, { codegen });
    for (const [how, write] of [
      ['encode', () => codec.encode(value)],
      ['write', () => codec.write(new WriteStream(4096), value)],
    ] as const) {
      assert.throws(write, (error: unknown) => {
        assert.ok(error instanceof SchemaValueError, `${name} ${how}: ${String(error)}`);
        assert.equal(error.path, path, `${name} ${how}: path`);
        assert.match(error.detail, detail, `${name} ${how}: detail`);
        return true;
      });
    }
  }
}

describe('compressed floats refuse what they cannot send', () => {
  const Body = t.object({ id: t.uint8(), position: t.vector3(t.float(-512, 512, 0.01)) });
  const Clamped = t.object({ id: t.uint8(), position: t.vector3(t.float(-512, 512, 0.01, { clamp: true })) });

  it('NaN and ±Infinity throw naming the path, with or without clamp', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      for (const schema of [Body, Clamped]) {
        assertRefused(
          schema,
          { id: 1, position: [0, bad, 0] },
          '.position[1]',
          /NaN and infinities are refused/,
        );
      }
    }
  });

  it('a finite value outside the range throws by default, naming the path', () => {
    for (const bad of [512.5, -1e9, 1e9, Number.MAX_VALUE]) {
      assertRefused(Body, { id: 1, position: [0, 0, bad] }, '.position[2]', /is outside \[-512, 512\]/);
    }
  });

  it('every value a read returns can be written back, where float32 rounding puts the top one above f(max)', () => {
    // f(min + delta) rounds to -173.44647216796875, above f(max) = -173.44648742675781: the top
    // step decodes a hair past the range, and the writer once refused to send it on again.
    const spec = compressedFloat(-761, -173.4464874267578, 0.00001);
    const ws = new WriteStream(64);
    ws.compressedFloat(spec.max, spec);
    const bytes = ws.finish().slice();
    const rs = new ReadStream();
    rs.reset(bytes);
    const top = rs.compressedFloat(0, spec);
    assert.ok(rs.ok && top > spec.max, `read ${top}, max ${spec.max}`);
    const again = new WriteStream(64);
    again.compressedFloat(top, spec);
    assert.deepEqual(again.finish(), bytes);
    const Top = t.object({ x: t.float(-761, -173.4464874267578, 0.00001) });
    for (const { name, codegen } of modes) {
      const codec = compile(Top, { codegen });
      const encoded = codec.encode({ x: spec.max }).slice();
      const decoded = codec.decode(encoded);
      assert.ok(decoded.ok, name);
      assert.deepEqual(codec.encode(decoded.value), encoded, `${name}: re-encoded`);
    }
  });

  it('with { clamp: true } a finite value outside the range is sent as the nearer bound', () => {
    for (const { codegen } of modes) {
      const clamped = compile(Clamped, { codegen });
      const plain = compile(Body, { codegen });
      const atBounds = plain.encode({ id: 1, position: [-512, 512, 3] }).slice();
      assert.deepEqual(clamped.encode({ id: 1, position: [-1e9, 1e9, 3] }), atBounds);
      assert.deepEqual(clamped.encode({ id: 1, position: [-Number.MAX_VALUE, 512.25, 3] }), atBounds);
    }
  });

  it('in-range values write the same bytes whether or not the spec clamps', () => {
    for (const { codegen } of modes) {
      const value = { id: 9, position: [-512, 0.004, 511.995] as [number, number, number] };
      assert.deepEqual(
        compile(Clamped, { codegen }).encode(value).slice(),
        compile(Body, { codegen }).encode(value),
      );
    }
  });

  it('WriteStream.compressedFloat throws a RangeError on NaN, infinities and (without clamp) out-of-range values', () => {
    const spec = compressedFloat(-1, 1, 0.001);
    const clamping = compressedFloat(-1, 1, 0.001, { clamp: true });
    const ws = new WriteStream(64);
    for (const [value, s] of [
      [Number.NaN, spec],
      [Number.NaN, clamping],
      [Number.POSITIVE_INFINITY, clamping],
      [Number.NEGATIVE_INFINITY, spec],
      [1.5, spec],
      [-1e9, spec],
    ] as const) {
      assert.throws(() => ws.compressedFloat(value, s), /^RangeError: compressedFloat: /);
    }
    assert.equal(ws.bitsProcessed, 0, 'nothing written by a refused call');
    ws.compressedFloat(1e9, clamping);
    ws.compressedFloat(1, spec);
    const r = new ReadStream();
    r.reset(ws.finish());
    assert.equal(r.compressedFloat(0, clamping), 1);
    assert.equal(r.compressedFloat(0, spec), 1);
  });
});

describe('float32 refuses a finite value it would turn into an infinity', () => {
  it('a finite value beyond the float32 range throws, in streams and both codecs', () => {
    for (const bad of [3.5e38, -1e39, Number.MAX_VALUE]) {
      assert.throws(
        () => new WriteStream(8).float32(bad),
        /^RangeError: float32: .* beyond the float32 range/,
      );
      assertRefused(t.object({ v: t.vector3() }), { v: [0, 0, bad] }, '.v[2]', /beyond the float32 range/);
      assertRefused(t.object({ q: t.quaternion() }), { q: [bad, 0, 0, 1] }, '.q', /beyond the float32 range/);
    }
  });

  it('NaN, ±Infinity and the largest float32 are sent as their IEEE-754 bits, as the reference does', () => {
    for (const { codegen } of modes) {
      const codec = compile(t.tuple(t.float32(), 4), { codegen });
      const values: [number, number, number, number] = [
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
        3.4028234663852886e38,
      ];
      const result = codec.decode(codec.encode(values));
      assert.ok(result.ok);
      assert.deepEqual(result.value, values);
    }
  });
});

describe('object fields are read as own properties only', () => {
  const Score = t.object({ id: t.uint8(), bonus: t.optional(t.uint8()) });

  it('a field present only on Object.prototype (prototype pollution) is not written', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.bonus = 200;
    try {
      for (const { codegen } of modes) {
        const codec = compile(Score, { codegen });
        // id 1 in 8 bits, then the presence bit of bonus: 0 (absent).
        assert.deepEqual(codec.encode({ id: 1 }).slice(), Uint8Array.of(1, 0), `${codegen}: bonus was sent`);
        assert.equal(codec.measure({ id: 1 }), 8 + 1, 'measured as absent too');
      }
    } finally {
      delete proto.bonus;
    }
  });

  it('a required field found only on the prototype is refused as missing', () => {
    const value = Object.create({ id: 5 }) as { id: number };
    assertRefused(Score, value, '.id', /outside \[0, 255\]|got undefined/);
  });

  it('reading into a target never fills an inherited object', () => {
    const Holder = t.object({ inner: t.object({ x: t.uint8() }) });
    const shared = { x: 0 };
    for (const { codegen } of modes) {
      const codec = compile(Holder, { codegen });
      const target = Object.create({ inner: shared }) as { inner: { x: number } };
      const result = codec.decode(codec.encode({ inner: { x: 7 } }), target);
      assert.ok(result.ok);
      assert.equal(shared.x, 0, `${codegen}: the prototype's object was written into`);
      assert.ok(Object.hasOwn(target, 'inner'));
      assert.equal(target.inner.x, 7);
    }
  });
});

describe('strings and bytes past their maximum are refused before their content is scanned', () => {
  // A lone surrogate at the end is only found by scanning the whole text: refusing on the length
  // instead proves the check ran first (a 10 MB text was scanned for 162 ms before).
  const long = `${'x'.repeat(40)}\ud800`;

  it('WriteStream and MeasureStream name the UTF-16 length, not the surrogate', () => {
    assert.throws(() => new WriteStream(64).string(long, 32), /41 UTF-16 code units exceed .* 32 bytes/);
    assert.throws(() => new MeasureStream().string(long, 32), /41 UTF-16 code units exceed .* 32 bytes/);
  });

  it('compiled and interpreted codecs (encode, write, measure) do the same', () => {
    assertRefused(t.object({ name: t.string(32) }), { name: long }, '.name', /41 UTF-16 code units exceed/);
    for (const { codegen } of modes) {
      const codec = compile(t.object({ name: t.string(32) }), { codegen });
      assert.throws(() => codec.measure({ name: long }), /UTF-16 code units exceed/);
    }
  });

  it('bytes longer than maxLength are refused by length alone', () => {
    assertRefused(
      t.object({ blob: t.bytes(4) }),
      { blob: new Uint8Array(5) },
      '.blob',
      /5 bytes exceed maxLength 4/,
    );
    assert.throws(() => new WriteStream(64).bytes(new Uint8Array(5), 4), RangeError);
  });
});

describe('strings refuse an interior NUL (serialize STANDARD, string)', () => {
  it('a NUL anywhere in a string is refused on write, in streams and both codecs', () => {
    for (const text of ['a\u0000b', '\u0000', 'ab\u0000']) {
      assert.throws(() => new WriteStream(64).string(text, 32), /^RangeError: string: text holds U\+0000/);
      assert.throws(() => new MeasureStream().string(text, 32), /U\+0000/);
      assertRefused(t.object({ chat: t.string(32) }), { chat: text }, '.chat', /U\+0000/);
    }
  });
});
