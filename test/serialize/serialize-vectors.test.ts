import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile, t } from '../../src/schema/index.js';
import { bitsToFloat32, bitsToFloat64 } from '../../src/serialize/float-bits.js';
import {
  compressedFloat,
  MeasureStream,
  ReadStream,
  type Stream,
  WriteStream,
} from '../../src/serialize/index.js';
import { fromHex, hex, readSharedJson, sharedSkip } from '../support/shared.js';

// biome-ignore lint/suspicious/noExplicitAny: vector ops are heterogeneous JSON records
type Op = Record<string, any>;
interface Case {
  name: string;
  ops: Op[];
  bits_written: number;
  bytes_written: number;
  measure_bits: number;
  output_hex: string;
}

const f32Bits = (h: string) => bitsToFloat32(Number.parseInt(h, 16));
const f64Bits = (h: string) =>
  bitsToFloat64(Number.parseInt(h.slice(8), 16), Number.parseInt(h.slice(0, 8), 16));

/** Applies one vector op to any stream; returns what the stream returned, for read-back checks. */
function apply(s: Stream, op: Op): unknown {
  switch (op.op) {
    case 'bits':
      return op.bits > 32 || typeof op.value === 'string'
        ? s.bits64(BigInt(op.value), op.bits)
        : s.bits(op.value, op.bits);
    case 'bool':
      return s.bool(op.value);
    case 'int':
      return s.int(op.value, op.min, op.max);
    case 'uint8':
      return s.uint8(op.value);
    case 'uint16':
      return s.uint16(op.value);
    case 'uint32':
      return s.uint32(op.value);
    case 'uint64':
      return s.uint64(BigInt(op.value));
    case 'int64':
      return s.int64(BigInt(op.value), BigInt(op.min), BigInt(op.max));
    case 'float32':
      return s.float32(f32Bits(op.value_f32_bits));
    case 'float64':
      return s.float64(f64Bits(op.value_f64_bits));
    case 'compressed_float': {
      const value = f32Bits(op.value_f32_bits);
      const [min, max] = [f32Bits(op.min_f32_bits), f32Bits(op.max_f32_bits)];
      // The reference clamps out-of-range values; ghostwire does so only when declared.
      const clamp = !(value >= min && value <= max);
      return s.compressedFloat(value, compressedFloat(min, max, f32Bits(op.res_f32_bits), { clamp }));
    }
    case 'align':
      return s.align();
    case 'bytes':
      return s.bytes(fromHex(op.hex), op.count);
    case 'string':
      // The vectors give the C buffer_size; the length is sent in [0, buffer_size - 1].
      return s.string(op.text, op.buffer_size - 1);
    case 'int_relative':
      return s.intRelative(op.previous, op.current);
    case 'sequence_relative':
      return s.sequenceRelative(op.sequence1, op.sequence2);
    default:
      throw new Error(`unknown vector op ${op.op}`);
  }
}

/** What reading an op must give back. */
function expected(op: Op): unknown {
  switch (op.op) {
    case 'bits':
      return op.bits > 32 || typeof op.value === 'string' ? BigInt(op.value) : op.value;
    case 'uint64':
    case 'int64':
      return BigInt(op.value);
    case 'float32':
      return f32Bits(op.value_f32_bits);
    case 'float64':
      return f64Bits(op.value_f64_bits);
    case 'compressed_float':
      return f32Bits(op.decoded_f32_bits);
    case 'align':
      return undefined;
    case 'bytes':
      return fromHex(op.hex);
    case 'string':
      return op.text;
    case 'int_relative':
      return op.current;
    case 'sequence_relative':
      return op.sequence2;
    default:
      return op.value;
  }
}

const skip = sharedSkip();
const vectors = skip
  ? { cases: [] as Case[] }
  : readSharedJson<{ cases: Case[] }>('vectors/serialize_vectors.json');

describe('serialize_vectors.json (reference serialize 1.11.0)', { skip }, () => {
  it('has cases', () => assert.ok(vectors.cases.length >= 30));
  for (const c of vectors.cases) {
    it(c.name, () => {
      const w = new WriteStream(1024);
      for (const op of c.ops) apply(w, op);
      assert.equal(w.bitsProcessed, c.bits_written, 'bits written');
      const out = w.finish();
      assert.equal(out.length, c.bytes_written, 'bytes written');
      assert.equal(hex(out), c.output_hex, 'output bytes');

      const m = new MeasureStream();
      for (const op of c.ops) apply(m, op);
      assert.equal(m.bitsProcessed, c.measure_bits, 'measured bits');

      const r = new ReadStream();
      r.reset(fromHex(c.output_hex));
      for (const [i, op] of c.ops.entries()) {
        const got = apply(r, op);
        assert.ok(r.ok, `op ${i} (${op.op}) failed: ${r.error}`);
        const want = expected(op);
        if (typeof want === 'number' && Number.isNaN(want))
          assert.ok(Number.isNaN(got as number), `op ${i} NaN`);
        else assert.deepEqual(got, want, `op ${i} (${op.op}) read back`);
        if (op.op === 'compressed_float') {
          assert.equal(op.quantized <= op.max_integer_value, true);
        }
      }
      assert.equal(r.bitsProcessed, c.bits_written, 'bits read');
      assert.ok(r.end(), `end: ${r.error}`);
    });
  }
});

describe('relative encodings on hostile input', () => {
  it('a failed intRelative read still returns a value after previous, so loops advance', () => {
    const r = new ReadStream();
    r.reset(new Uint8Array(0));
    let previous = 0;
    for (let i = 0; i < 5; i++) {
      const next = r.intRelative(previous, 0);
      assert.ok(next > previous);
      previous = next;
    }
    assert.equal(r.ok, false);
  });

  it('intRelative rejects a +1 past uint32 and a difference past it', () => {
    const r = new ReadStream();
    r.reset(new Uint8Array([1])); // the +1 flag
    r.intRelative(0xffffffff, 0);
    assert.match(r.error ?? '', /past uint32/);
  });

  // docs/serialization.md, intRelative: what the reference accepts (its uint32 sum wraps) and no
  // writer sends, since it needs prev < cur <= 2^32 - 1.
  it('intRelative rejects a tier difference wrapping past 2^32 and an absolute value not after prev', () => {
    const w = new WriteStream(16);
    w.bool(false); // not +1
    w.bool(true); // tier [2, 6] in 3 bits
    w.int(6, 2, 6);
    const r = new ReadStream();
    r.reset(w.finish().slice());
    r.intRelative(0xfffffffd, 0);
    assert.match(r.error ?? '', /past uint32/);
    w.reset();
    for (let i = 0; i < 6; i++) w.bool(false); // past every tier: the absolute value follows
    w.uint32(1000);
    r.reset(w.finish().slice());
    r.intRelative(1000, 0);
    assert.match(r.error ?? '', /not after previous/);
  });
});

describe('refusals of the reference not covered by serialize_vectors.json', () => {
  // serialize STANDARD, string: "An interior NUL fails the read"; reference 1.11.0 refuses these bytes.
  it('the bytes 03 61 00 62 are refused as a string, as reference serialize 1.11.0 refuses them', () => {
    // Length 3 in 8 bits (buffer_size 256), aligned, then 'a', NUL, 'b'.
    const bytes = new Uint8Array([0x03, 0x61, 0x00, 0x62]);
    const rs = new ReadStream();
    rs.reset(bytes);
    assert.equal(rs.string('', 255), '');
    assert.equal(rs.ok, false);
    assert.match(rs.error ?? '', /NUL byte in string/);
    for (const codegen of [true, false]) {
      const result = compile(t.string(255), { codegen }).decode(bytes);
      assert.equal(result.ok, false, `${codegen}: read ${JSON.stringify(result.ok && result.value)}`);
      assert.match(result.ok ? '' : result.error, /NUL byte in string/);
    }
  });
});
