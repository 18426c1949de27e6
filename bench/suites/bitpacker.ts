/**
 * The raw bitpacker: 10,000,000 values of 13 bits written with BitWriter, then read back with
 * BitReader (the W1.md reference: about 0.60 ns per value written, 0.55 ns read, native C++).
 * One batch is one pass over all values; the reader's reset (one copy of the input) is untimed.
 */
import { BitReader } from '../../src/bits/bit-reader.js';
import { BitWriter } from '../../src/bits/bit-writer.js';
import { check, fail, measure, type SuiteContext } from '../harness.js';

const COUNT = 10_000_000;
const BITS = 13;

export function runBitpacker(ctx: SuiteContext): void {
  // Values from xorshift32, fixed seed.
  const values = new Uint16Array(COUNT);
  let x = 0x9e3779b9;
  let expectedSum = 0;
  for (let i = 0; i < COUNT; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const v = (x >>> 0) & ((1 << BITS) - 1);
    values[i] = v;
    expectedSum += v;
  }
  const bytes = Math.ceil((COUNT * BITS) / 8);
  const writer = new BitWriter(bytes);
  const reader = new BitReader(bytes);

  // Checked once, value by value.
  for (let i = 0; i < COUNT; i++) writer.writeBits(values[i], BITS);
  const packed = writer.finish().slice();
  check(packed.length === bytes, `bitpacker: wrote ${packed.length} bytes, expected ${bytes}`);
  reader.reset(packed);
  for (let i = 0; i < COUNT; i++) {
    const v = reader.readBits(BITS);
    if (v !== values[i]) fail(`bitpacker: value ${i} read back as ${v}, wrote ${values[i]}`);
  }

  const results = measure(
    [
      {
        name: 'BitWriter.writeBits',
        units: COUNT,
        iterations: 1,
        run() {
          writer.reset();
          for (let i = 0; i < COUNT; i++) writer.writeBits(values[i], BITS);
          return writer.finish().length;
        },
        verify(_n, result) {
          if (result !== bytes) fail(`bitpacker: a write pass produced ${result} bytes, expected ${bytes}`);
        },
      },
      {
        name: 'BitReader.readBits',
        units: COUNT,
        iterations: 1,
        before() {
          reader.reset(packed);
        },
        run() {
          let sum = 0;
          for (let i = 0; i < COUNT; i++) sum += reader.readBits(BITS);
          return sum;
        },
        verify(_n, result) {
          if (result !== expectedSum)
            fail(`bitpacker: a read pass summed to ${result}, expected ${expectedSum}`);
        },
      },
    ],
    ctx.options,
  );
  ctx.table({
    title: `Raw bitpacker: ${COUNT.toLocaleString('en-US')} values of ${BITS} bits per pass`,
    unit: 'value',
    baseline: 'BitWriter.writeBits',
    results,
    notes: [
      'Values come from a Uint16Array; the read pass sums them (checked against the written sum each pass).',
      'Native C++ reference (W1.md, serialize 1.11.0): ~0.60 ns/value written, ~0.55 ns/value read.',
    ],
  });
}
