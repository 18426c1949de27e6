/**
 * Raw float32 through the streams and a compiled schema: 100,000 values per pass, written with
 * WriteStream.float32 and read with ReadStream.float32, then as a t.array(t.float32()). The
 * values are finite, as in a game; a NaN takes a slower path that keeps its bits (float-bits.ts).
 */
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { check, fail, measure, type SuiteContext } from '../harness.js';

const COUNT = 100_000;
/** Array items for the schema case: 1,000 arrays of 100 per pass. */
const PER_ARRAY = 100;

export function runFloat32(ctx: SuiteContext): void {
  const values = new Float32Array(COUNT);
  let x = 0x9e3779b9;
  for (let i = 0; i < COUNT; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    values[i] = ((x >>> 0) / 2 ** 32 - 0.5) * 1024;
  }
  const expectedSum = values.reduce((a, b) => a + b, 0);
  const ws = new WriteStream(COUNT * 4);
  const rs = new ReadStream(COUNT * 4);
  for (let i = 0; i < COUNT; i++) ws.float32(values[i]);
  const packed = ws.finish().slice();
  check(packed.length === COUNT * 4, `float32: wrote ${packed.length} bytes`);

  const codec = compile(t.array(t.float32(), PER_ARRAY));
  const arrays = Array.from({ length: COUNT / PER_ARRAY }, (_, k) =>
    Array.from(values.subarray(k * PER_ARRAY, (k + 1) * PER_ARRAY)),
  );
  const arrayBytes = arrays.map((a) => codec.encode(a).slice());
  const target: number[] = [];

  const results = measure(
    [
      {
        name: 'WriteStream.float32',
        units: COUNT,
        iterations: 1,
        run() {
          ws.reset();
          for (let i = 0; i < COUNT; i++) ws.float32(values[i]);
          return ws.finish().length;
        },
        verify(_n, result) {
          if (result !== COUNT * 4) fail(`float32: a write pass produced ${result} bytes`);
        },
      },
      {
        name: 'ReadStream.float32',
        units: COUNT,
        iterations: 1,
        before() {
          rs.reset(packed);
        },
        run() {
          let sum = 0;
          for (let i = 0; i < COUNT; i++) sum += rs.float32(0);
          return sum;
        },
        verify(_n, result) {
          if (result !== expectedSum)
            fail(`float32: a read pass summed to ${result}, expected ${expectedSum}`);
        },
      },
      {
        name: 'compiled t.array(t.float32()) encode',
        units: COUNT,
        iterations: 1,
        run() {
          let bytes = 0;
          for (const a of arrays) bytes += codec.encode(a).length;
          return bytes;
        },
      },
      {
        name: 'compiled t.array(t.float32()) decode',
        units: COUNT,
        iterations: 1,
        run() {
          let sum = 0;
          for (const bytes of arrayBytes) {
            const decoded = codec.decode(bytes, target);
            if (decoded.ok) sum += decoded.value[0];
          }
          return sum;
        },
      },
    ],
    ctx.options,
  );
  ctx.table({
    title: `Raw float32: ${COUNT.toLocaleString('en-US')} finite values per pass`,
    unit: 'value',
    baseline: 'WriteStream.float32',
    results,
    notes: [
      'Values in [-512, 512) from xorshift32; the read pass sums them (checked against the written sum).',
    ],
  });
}
