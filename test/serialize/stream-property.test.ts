import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  compressedSpecArb,
  describeOp,
  hex,
  int64BoundsArb,
  intArb,
  intBoundsArb,
  type Op,
  opAligns,
  opArb,
  opValue,
  opValueMismatch,
  programArb,
  runOp,
  textArb,
  utf8ByteLength,
  writeProgram,
} from '../../scripts/fuzz-core.js';
import { compressedFloat } from '../../src/serialize/compressed-float.js';
import { MeasureStream } from '../../src/serialize/measure-stream.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

/**
 * Properties of random sequences of every Stream primitive (scripts/fuzz-core.ts holds the op
 * model shared with the fuzzer). fast-check shrinks a failure to a short program and prints its
 * seed and path; GW_SEED replays a run.
 */
const SEED = testSeed('stream property tests');
const RUNS = 1000;
const run = (property: fc.IPropertyWithHooks<[Op[]]> | fc.IProperty<unknown>) =>
  fc.assert(property, { seed: SEED, numRuns: RUNS });

const describeProgram = (ops: readonly Op[]) => ops.map(describeOp).join(', ');

/** Reads a program back; returns the values and whether the stream stayed ok through its end. */
function readProgram(rs: ReadStream, bytes: Uint8Array, ops: readonly Op[]) {
  rs.reset(bytes);
  const values = ops.map((op) => runOp(rs, op));
  const bitsBeforeEnd = rs.bitsProcessed;
  const ok = rs.ok && rs.end();
  return { values, ok, bitsBeforeEnd };
}

/** Every strict prefix length for short buffers; for long ones the first and last 64 and a spread between. */
function prefixLengths(length: number): number[] {
  if (length <= 160) return Array.from({ length }, (_, i) => i);
  const out = new Set<number>();
  for (let i = 0; i < 64; i++) {
    out.add(i);
    out.add(length - 1 - i);
  }
  for (let i = 64; i < length - 64; i += Math.ceil((length - 128) / 64)) out.add(i);
  return [...out].sort((a, b) => a - b);
}

/** A call the writer must refuse with RangeError, and its description. */
interface BadCall {
  readonly what: string;
  readonly call: (s: WriteStream) => unknown;
}

const bad = (what: string, call: (s: WriteStream) => unknown): BadCall => ({ what, call });
const loneSurrogates = ['\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800'];

/** How far past a bound: often just past it, where an off-by-one would hide. */
const distanceArb = fc.oneof(fc.constant(1), fc.constant(2), fc.integer({ min: 1, max: 2 ** 20 }));

const badCallArb: fc.Arbitrary<BadCall> = fc.oneof(
  // int outside [min, max], by any distance, either side
  fc.tuple(intBoundsArb, distanceArb, fc.boolean()).map(([[min, max], k, above]) => {
    const value = above ? max + k : min - k;
    return bad(`int(${value}, ${min}, ${max})`, (s) => s.int(value, min, max));
  }),
  // int that is not an integer, and a range of 2^32 or more
  fc
    .tuple(
      intBoundsArb.filter(([min, max]) => max > min),
      fc.constantFrom(0.5, 1e-9, Number.NaN),
    )
    // 1e-9 is lost when added to a large min; only values that really are not integers count.
    .filter(([[min], fraction]) => !Number.isInteger(min + fraction))
    .map(([[min, max], fraction]) =>
      bad(`int(${min + fraction}, ${min}, ${max})`, (s) => s.int(min + fraction, min, max)),
    ),
  fc
    .tuple(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(2 ** 32, 2 ** 33, 2 ** 40))
    .map(([min, range]) => bad(`int(${min}, ${min}, ${min + range})`, (s) => s.int(min, min, min + range))),
  // bits: a value wider than the width, negative or fractional; a width outside 1..32
  fc
    .tuple(fc.integer({ min: 1, max: 31 }), fc.oneof(distanceArb, intArb(1, 2 ** 32)))
    .map(([bits, k]) => [bits, Math.min(2 ** bits - 1 + k, 2 ** 32 - 1)])
    .map(([bits, value]) => bad(`bits(${value}, ${bits})`, (s) => s.bits(value, bits))),
  fc
    .tuple(fc.constantFrom(-1, 1.5, 2 ** 32, Number.NaN), fc.integer({ min: 1, max: 32 }))
    .map(([value, bits]) => bad(`bits(${value}, ${bits})`, (s) => s.bits(value, bits))),
  fc.constantFrom(0, 33, 40, -1, 1.5, 31.5).map((bits) => bad(`bits(0, ${bits})`, (s) => s.bits(0, bits))),
  fc.constantFrom(256, -1, 0.5).map((value) => bad(`uint8(${value})`, (s) => s.uint8(value))),
  fc.constantFrom(65536, -1).map((value) => bad(`uint16(${value})`, (s) => s.uint16(value))),
  fc.constantFrom(2 ** 32, -1).map((value) => bad(`uint32(${value})`, (s) => s.uint32(value))),
  // bits64 / uint64 / int64
  fc
    .tuple(
      fc.integer({ min: 1, max: 63 }),
      fc.oneof(distanceArb.map(BigInt), fc.bigInt({ min: 1n, max: 1n << 70n })),
    )
    .map(([bits, k]) => {
      const value = (1n << BigInt(bits)) - 1n + k;
      return bad(`bits64(${value}, ${bits})`, (s) => s.bits64(value, bits));
    }),
  fc.constantFrom(0, 65, 100).map((bits) => bad(`bits64(0, ${bits})`, (s) => s.bits64(0n, bits))),
  fc.constantFrom(-1n, 1n << 64n).map((value) => bad(`uint64(${value})`, (s) => s.uint64(value))),
  fc
    .tuple(
      int64BoundsArb,
      fc.oneof(distanceArb.map(BigInt), fc.bigInt({ min: 1n, max: 1n << 70n })),
      fc.boolean(),
    )
    .map(([[min, max], k, above]) => {
      const value = above ? max + k : min - k;
      return bad(`int64(${value}, ${min}, ${max})`, (s) => s.int64(value, min, max));
    }),
  // compressed floats: NaN and infinities under any spec, finite values outside a non-clamping one
  fc
    .tuple(compressedSpecArb, fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY))
    .map(([spec, value]) => bad(`compressedFloat(${value})`, (s) => s.compressedFloat(value, spec))),
  fc
    .tuple(compressedSpecArb, fc.double({ min: 1e-3, max: 1e300, noNaN: true }), fc.boolean())
    .map(([spec, k, above]) => {
      const declared = compressedFloat(spec.min, spec.max, spec.resolution);
      // Far enough out that float32 rounding cannot bring it back to the bound.
      const value = above
        ? spec.max + Math.max(k, Math.abs(spec.max))
        : spec.min - Math.max(k, Math.abs(spec.min));
      return bad(`compressedFloat(${value}, [${spec.min}, ${spec.max}])`, (s) =>
        s.compressedFloat(value, declared),
      );
    }),
  // float32 of a finite value that would arrive as an infinity
  fc
    .double({ min: 3.5e38, max: Number.MAX_VALUE, noNaN: true })
    .chain((v) => fc.constantFrom(v, -v))
    .map((value) => bad(`float32(${value})`, (s) => s.float32(value))),
  // strings over maxBytes, and strings holding a lone surrogate
  fc
    .tuple(
      textArb(200, 40).filter((text) => text.length > 0),
      distanceArb,
    )
    .map(([text, k]) => {
      const maxBytes = Math.max(0, utf8ByteLength(text) - k);
      return bad(`string(${JSON.stringify(text)}, ${maxBytes})`, (s) => s.string(text, maxBytes));
    }),
  fc.tuple(textArb(20, 8), fc.constantFrom(...loneSurrogates), textArb(20, 8)).map(([a, lone, b]) => {
    const text = a + lone + b;
    return bad(`string(${JSON.stringify(text)}, 1000)`, (s) => s.string(text, 1000));
  }),
  // strings holding U+0000 anywhere (the STANDARD refuses an interior NUL)
  fc.tuple(textArb(20, 8), textArb(20, 8)).map(([a, b]) => {
    const text = `${a}\u0000${b}`;
    return bad(`string(${JSON.stringify(text)}, 1000)`, (s) => s.string(text, 1000));
  }),
  // intRelative with current <= previous or outside uint32; sequenceRelative outside 16 bits or equal
  fc
    .oneof(
      intArb(0, 0xffffffff).map((x) => [x, x]),
      fc
        .tuple(intArb(0, 0xffffffff), intArb(0, 0xffffffff))
        .map(([a, b]) => [Math.max(a, b), Math.min(a, b)]),
    )
    .map(([previous, current]) =>
      bad(`intRelative(${previous}, ${current})`, (s) => s.intRelative(previous, current)),
    ),
  fc
    .constantFrom([-1, 5], [5, 2 ** 32], [1.5, 3], [0, 0.5])
    .map(([previous, current]) =>
      bad(`intRelative(${previous}, ${current})`, (s) => s.intRelative(previous, current)),
    ),
  fc
    .oneof(
      fc.integer({ min: 0, max: 0xffff }).map((x) => [x, x]),
      fc.constantFrom([0, 65536], [65536, 1], [-1, 3], [3, 1.5]),
    )
    .map(([a, b]) => bad(`sequenceRelative(${a}, ${b})`, (s) => s.sequenceRelative(a, b))),
  // bytes whose length is not the declared one
  fc
    .tuple(fc.uint8Array({ maxLength: 20 }), fc.integer({ min: 1, max: 5 }), fc.boolean())
    .map(([bytes, k, longer]) => {
      const length = longer ? bytes.length + k : Math.max(0, bytes.length - k);
      return bytes.length === length
        ? bad(`bytes(${bytes.length} bytes, ${length + 1})`, (s) => s.bytes(bytes, length + 1))
        : bad(`bytes(${bytes.length} bytes, ${length})`, (s) => s.bytes(bytes, length));
    }),
);

describe('stream properties over random op sequences', () => {
  it('(a) read(write(ops)) returns every value: exact, float32-rounded, or within half a step', () => {
    const rs = new ReadStream();
    run(
      fc.property(programArb, (ops) => {
        const { bytes, bits } = writeProgram(ops);
        assert.equal(bytes.length, Math.ceil(bits / 8));
        const { values, ok, bitsBeforeEnd } = readProgram(rs, bytes, ops);
        assert.ok(ok, `rejected: ${rs.error}\nprogram: ${describeProgram(ops)}\nbytes: ${hex(bytes)}`);
        assert.equal(bitsBeforeEnd, bits, 'the reader consumes exactly the bits written');
        ops.forEach((op, i) => {
          assert.equal(opValueMismatch(op, opValue(op), values[i]), null, `op ${i}: ${describeOp(op)}`);
        });
      }),
    );
  });

  it('(b) MeasureStream counts at least the bits written, exactly when nothing aligns', () => {
    const measure = (ops: readonly Op[]) => {
      const m = new MeasureStream();
      for (const op of ops) runOp(m, op);
      return m.bitsProcessed;
    };
    run(
      fc.property(programArb, (ops) => {
        const { bits } = writeProgram(ops);
        const measured = measure(ops);
        const aligning = ops.filter(opAligns).length;
        assert.ok(measured >= bits, `measured ${measured} < written ${bits}: ${describeProgram(ops)}`);
        // Each aligning op is charged its worst case, 7 bits of padding, and no more.
        assert.ok(
          measured - bits <= 7 * aligning,
          `measured ${measured}, written ${bits}, ${aligning} aligns`,
        );
        if (aligning === 0) assert.equal(measured, bits, describeProgram(ops));
      }),
    );
    // Programs without aligning ops, so the exact case is not left to chance.
    run(
      fc.property(
        fc.array(
          opArb.filter((op) => !opAligns(op)),
          { maxLength: 30 },
        ),
        (ops) => {
          assert.equal(measure(ops), writeProgram(ops).bits, describeProgram(ops));
        },
      ),
    );
  });

  it('(c) a strict prefix of a valid buffer fails cleanly, or (padding only) reads the same values', () => {
    const rs = new ReadStream();
    let prefixes = 0;
    run(
      fc.property(programArb, (ops) => {
        const { bytes } = writeProgram(ops);
        for (const length of prefixLengths(bytes.length)) {
          prefixes++;
          const { values, ok } = readProgram(rs, bytes.subarray(0, length), ops);
          const context = `prefix ${length} of ${hex(bytes)}; program: ${describeProgram(ops)}`;
          if (!ok) {
            assert.equal(rs.ok, false);
            assert.equal(typeof rs.error, 'string', context);
            continue;
          }
          assert.ok(
            bytes.subarray(length).every((b) => b === 0),
            `a prefix that dropped non-zero bytes was accepted: ${context}`,
          );
          ops.forEach((op, i) => {
            assert.equal(opValueMismatch(op, opValue(op), values[i]), null, `op ${i}: ${context}`);
          });
        }
      }),
    );
    assert.ok(prefixes > RUNS, `only ${prefixes} prefixes tried`);
  });

  it('(d) an out-of-range value throws RangeError at the call, writes nothing, and leaves the stream usable', () => {
    const rs = new ReadStream();
    run(
      fc.property(programArb, badCallArb, programArb, (before, refused, after) => {
        const capacity = writeProgram(before).bytes.length + writeProgram(after).bytes.length + 64;
        const ws = new WriteStream(capacity);
        for (const op of before) runOp(ws, op);
        const bits = ws.bitsProcessed;
        assert.throws(() => refused.call(ws), RangeError, `${refused.what} was not refused`);
        assert.equal(ws.bitsProcessed, bits, `${refused.what} wrote bits before throwing`);
        for (const op of after) runOp(ws, op);
        const ops = [...before, ...after];
        const { values, ok } = readProgram(rs, ws.finish().slice(), ops);
        assert.ok(ok, `rejected after a refused ${refused.what}: ${rs.error}`);
        ops.forEach((op, i) => {
          assert.equal(opValueMismatch(op, opValue(op), values[i]), null, `op ${i}: ${describeOp(op)}`);
        });
      }),
    );
  });

  it('(e) a non-zero padding bit anywhere (align, bytes, string, check, the last byte) is rejected', () => {
    const rs = new ReadStream();
    let flips = 0;
    run(
      fc.property(programArb, (ops) => {
        // Padding positions from the documented layout: align, bytes and check pad where they start;
        // a string pads after its length field (bitsRequired(0, maxBytes) bits); the last byte pads.
        const ws = new WriteStream(writeProgram(ops).bytes.length + 16);
        const padding: number[] = [];
        for (const op of ops) {
          const before = ws.bitsProcessed;
          runOp(ws, op);
          const start = op.op === 'string' ? before + (32 - Math.clz32(op.maxBytes)) : before;
          if (opAligns(op)) for (let bit = start; bit % 8 !== 0; bit++) padding.push(bit);
        }
        const bytes = ws.finish().slice();
        for (let bit = ws.bitsProcessed; bit < bytes.length * 8; bit++) padding.push(bit);
        for (const bit of padding.slice(0, 48)) {
          flips++;
          assert.equal((bytes[bit >>> 3] >>> (bit & 7)) & 1, 0, `padding bit ${bit} was written as 1`);
          const flipped = bytes.slice();
          flipped[bit >>> 3] ^= 1 << (bit & 7);
          const { ok } = readProgram(rs, flipped, ops);
          assert.equal(
            ok,
            false,
            `padding bit ${bit} set was accepted: ${hex(flipped)}; ${describeProgram(ops)}`,
          );
        }
      }),
    );
    assert.ok(flips > RUNS, `only ${flips} padding bits tried`);
  });

  it('(d) bits() refuses a fractional width', () => {
    for (const [value, bits] of [
      [0, 1.5],
      [1, 1.5],
      [5, 31.5],
    ]) {
      const ws = new WriteStream(16);
      assert.throws(() => ws.bits(value, bits), RangeError, `bits(${value}, ${bits})`);
      assert.equal(ws.bitsProcessed, 0);
    }
  });

  it('(a) a compressed float with maxInteger >= 2^23 reads back its maximum', () => {
    const rs = new ReadStream();
    // 9000001 steps (24 bits): max is written as 9000002 and rejected. 2^24 - 1 steps: max is
    // written as 2^24, masked to 0 in 24 bits, and read back as min.
    for (const [min, max, resolution] of [
      [-1, 1, 2 / 9000001],
      [0, 16777215, 1],
    ]) {
      const spec = compressedFloat(min, max, resolution);
      const ws = new WriteStream(16);
      ws.compressedFloat(max, spec);
      rs.reset(ws.finish().slice());
      const read = rs.compressedFloat(0, spec);
      assert.ok(rs.ok, `[${min}, ${max}] @ ${resolution}: ${rs.error}`);
      assert.equal(read, spec.max, `[${min}, ${max}] @ ${resolution}: max read back as ${read}`);
    }
  });

  it('(c) the sequenceRelative reader rejects what no writer sends: a difference of 65536', () => {
    // Not +1, not in the tiers up to 4377, then 65536 in tier [4378, 69914].
    const ws = new WriteStream(16);
    for (let i = 0; i < 5; i++) ws.bool(false);
    ws.bool(true);
    ws.int(65536, 4378, 69914);
    const rs = new ReadStream();
    rs.reset(ws.finish().slice());
    // It would wrap to sequence2 == sequence1, which no writer can send:
    assert.throws(() => new WriteStream(16).sequenceRelative(23545, 23545), RangeError);
    const read = rs.sequenceRelative(23545, 0);
    assert.equal(rs.ok, false, `read ${read} from sequence1 23545 and accepted it`);
    assert.match(rs.error ?? '', /wraps past sequence1/);
  });

  it('(d) MeasureStream refuses a lone surrogate too', () => {
    run(
      fc.property(fc.constantFrom(...loneSurrogates), textArb(20, 8), (lone, text) => {
        assert.throws(() => new MeasureStream().string(text + lone, 1000), RangeError);
      }),
    );
  });

  it('reset(data, offset, length) reads exactly that range, small (byte copy) or large; a range outside fails', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), fc.nat(), fc.nat(), (data, a, b) => {
        const offset = a % data.length;
        const length = b % (data.length - offset + 1);
        const rs = new ReadStream(8);
        rs.reset(data, offset, length);
        const got = rs.bytes(new Uint8Array(0), length);
        assert.ok(rs.ok && rs.end(), String(rs.error));
        assert.deepEqual(got, data.subarray(offset, offset + length));
      }),
      { seed: SEED, numRuns: RUNS },
    );
    const data = new Uint8Array(10);
    for (const [offset, length] of [
      [-1, 2],
      [0, 11],
      [8, 3],
      [1.5, 2],
      [0, Number.NaN],
    ]) {
      const rs = new ReadStream();
      rs.reset(data, offset, length);
      assert.equal(rs.ok, false, `offset ${offset}, length ${length}`);
      assert.match(String(rs.error), /range outside the input/);
    }
  });
});
