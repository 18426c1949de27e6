/**
 * A float32 NaN read from a peer and written again keeps its 32 bits (serialize's STANDARD: a
 * float is its raw IEEE-754 bits), signalling NaNs included: converting through the hardware
 * quiets them (`01 00 80 7f` came back as `01 00 c0 7f`). docs/serialization.md says what is kept.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import { bitsToFloat32, float32ToBits } from '../../src/serialize/float-bits.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replaceAll(' ', ''), 'hex'));

/** NaN patterns: signalling and quiet, both signs, payloads at both ends. */
const NANS = [
  0x7f800001, 0xff800001, 0x7fbfffff, 0xffbfffff, 0x7f812345, 0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fffffff,
  0xffffffff, 0x7f800004, 0x7f800008,
];

describe('float32 NaN bits survive a read and a write', () => {
  it('stream: 01 00 80 7f read and written again is 01 00 80 7f', () => {
    const rs = new ReadStream();
    rs.reset(bytesOf('01 00 80 7f'));
    const value = rs.float32(0);
    assert.ok(Number.isNaN(value) && rs.error === null);
    const ws = new WriteStream(8);
    ws.float32(value);
    assert.equal(hex(ws.finish()), '0100807f');
  });

  it('stream: every NaN pattern of the list, read into a variable', () => {
    for (const bits of NANS) {
      const ws = new WriteStream(16);
      ws.uint32(bits);
      ws.uint32((bits ^ 0x80000000) >>> 0);
      ws.uint32(bits);
      const bytes = ws.finish().slice();
      const rs = new ReadStream();
      rs.reset(bytes);
      const x = rs.float32(0);
      const y = rs.float32(0);
      const z = rs.float32(0);
      const out = new WriteStream(16);
      out.float32(x);
      out.float32(y);
      out.float32(z);
      assert.equal(hex(out.finish()), hex(bytes), bits.toString(16));
    }
  });

  it('compiled and interpreted schemas give back the bytes of object fields, fresh or reused, cold or optimised', () => {
    const schema = t.object({
      a: t.float32(),
      inner: t.object({ b: t.float32(), n: t.uint8() }),
      c: t.float32(),
    });
    for (const codec of [compile(schema), compile(schema, { codegen: false })]) {
      const reused = { a: 0, inner: { b: 0, n: 0 }, c: 0 };
      // Enough rounds for V8 to optimise the codec's functions: the bits must survive that code too.
      for (let round = 0; round < 300; round++) {
        for (const bits of NANS) {
          // Written word by word, as a C peer's serialize_float sends the bits.
          const ws = new WriteStream(64);
          ws.uint32(bits);
          ws.uint32((bits ^ 0x80000000) >>> 0);
          ws.uint8(7);
          ws.uint32(0x7f800001);
          const bytes = ws.finish().slice();
          const what = `${codec.compiled ? 'compiled' : 'interpreted'} ${bits.toString(16)} round ${round}`;
          for (const target of [undefined, reused]) {
            const decoded = codec.decode(bytes, target);
            assert.ok(decoded.ok, what);
            assert.equal(hex(codec.encode(decoded.value)), hex(bytes), what);
          }
        }
      }
    }
  });

  it('in an array of numbers (vectors, t.array) a NaN stays a NaN, its payload kept only while V8 keeps it', () => {
    // V8's optimised code canonicalises a NaN stored in an array of doubles: the documented limit.
    const codec = compile(t.object({ v: t.vector3(), list: t.array(t.float32(), 4) }));
    for (const bits of NANS) {
      const ws = new WriteStream(64);
      for (let i = 0; i < 3; i++) ws.uint32(bits);
      ws.int(2, 0, 4);
      for (let i = 0; i < 2; i++) ws.uint32(bits);
      const decoded = codec.decode(ws.finish().slice());
      assert.ok(decoded.ok);
      const { v, list } = decoded.value;
      assert.ok([...v, ...list].every(Number.isNaN));
      const rs = new ReadStream();
      rs.reset(codec.encode(decoded.value).slice());
      for (let i = 0; i < 3; i++) assert.ok(Number.isNaN(rs.float32(0)));
    }
  });

  it('the number read is a NaN, and plain NaNs write as before', () => {
    for (const bits of NANS) assert.ok(Number.isNaN(bitsToFloat32(bits)));
    assert.equal(float32ToBits(Number.NaN).toString(16), '7fc00000');
    assert.equal(float32ToBits(-Number.NaN).toString(16), 'ffc00000');
    // A NaN quieted on the way by the hardware conversion writes as the quiet NaN it now is.
    const f32 = new Float32Array(1);
    new Uint32Array(f32.buffer)[0] = 0x7f800001;
    assert.equal(float32ToBits(f32[0]).toString(16), '7fc00001');
  });

  it('every NaN payload round-trips, both signs (a stride through all 2^23)', () => {
    for (let payload = 1; payload < 2 ** 23; payload += 61) {
      for (const sign of [0, 0x80000000]) {
        const bits = (sign | 0x7f800000 | payload) >>> 0;
        assert.equal(float32ToBits(bitsToFloat32(bits)), bits, bits.toString(16));
      }
    }
  });

  it('non-NaN patterns still convert exactly', () => {
    for (const bits of [
      0, 0x80000000, 0x3f800000, 0x000116c2, 0x7f7fffff, 0x7f800000, 0xff800000, 0x00000001,
    ]) {
      assert.equal(float32ToBits(bitsToFloat32(bits)), bits);
    }
    assert.equal(bitsToFloat32(0x3f800000), 1);
  });
});
