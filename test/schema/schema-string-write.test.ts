import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

/** What a write did: the bytes and bit count, or the error's class, message and path. */
function outcome(write: () => WriteStream): string {
  try {
    const ws = write();
    return `ok ${ws.bitsProcessed} ${[...ws.finish()].join(',')}`;
  } catch (error) {
    const e = error as Error & { path?: string };
    return `${e.constructor.name}: ${e.message} @${e.path ?? ''}`;
  }
}

/** The generated string write (length, align, bytes, inline) against the interpreter's WriteStream.string. */
describe('compiled string write', () => {
  const pieces = ['a', 'Z', '~', '\u00e9', '\u20ac', '\u{1f600}', '\ud800', '\udc00', '\u0000'];

  it('writes the interpreter bytes and throws its errors, at every alignment and buffer size', () => {
    let x = testSeed('compiled string write') || 1;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    const text = () => {
      let s = '';
      const n = Math.floor(next() * 12);
      for (let i = 0; i < n; i++) s += next() < 0.7 ? 'x' : pieces[Math.floor(next() * pieces.length)];
      return s;
    };
    let mismatches = 0;
    for (const maxBytes of [0, 1, 5, 16, 300]) {
      for (const lead of [1, 3, 8, 13, 31, 32]) {
        const schema = t.object({
          lead: t.bits(lead),
          name: t.string(maxBytes),
          mid: t.bits(5),
          tag: t.optional(t.string(maxBytes)),
        });
        const compiled = compile(schema);
        const interpreted = compile(schema, { codegen: false });
        for (let k = 0; k < 100; k++) {
          const value = {
            lead: 1,
            name: next() < 0.03 ? (7 as unknown as string) : text(),
            mid: 9,
            tag: next() < 0.5 ? undefined : text(),
          };
          for (const capacity of [1, 3, 6, 64]) {
            const write = (codec: typeof compiled) => () => {
              const ws = new WriteStream(capacity);
              codec.write(ws, value);
              return ws;
            };
            const c = outcome(write(compiled));
            const i = outcome(write(interpreted));
            if (c !== i) {
              mismatches++;
              assert.equal(
                c,
                i,
                `${JSON.stringify(value)} maxBytes ${maxBytes} lead ${lead} capacity ${capacity}`,
              );
            }
          }
        }
      }
    }
    assert.equal(mismatches, 0);
  });

  it('leaves no stale bytes of an earlier, longer stream in a reused buffer', () => {
    const codec = compile(t.object({ flag: t.bool(), name: t.string(40) }));
    const long = [...codec.encode({ flag: true, name: '\u00ff'.repeat(20) })];
    assert.equal(long.length, 41);
    const short = [...codec.encode({ flag: true, name: 'ab' })];
    // flag, a 6-bit length of 2 (byte 0 = 1 | 2 << 1), the align, then 'ab'.
    assert.deepEqual(short, [5, 0x61, 0x62]);
  });

  it('encode grows its buffer and reports a bad value as the interpreter does', () => {
    const schema = t.object({ names: t.array(t.string(8), 50), score: t.int(0, 9) });
    const compiled = compile(schema);
    const interpreted = compile(schema, { codegen: false });
    const values = [
      { names: ['a'], score: 1 },
      { names: new Array(50).fill('\u20ac\u20ac'), score: 2 },
      // Two faults: measuring reports the string before the write reaches the int.
      { names: ['ok', 'x'.repeat(9)], score: 12 },
      { names: ['a', 'b'], score: 3 },
      { names: ['\ud800'], score: 3 },
    ];
    for (const value of values) {
      const c = outcome(() => {
        compiled.encode(value);
        return interpretedStream(compiled.encode(value));
      });
      const i = outcome(() => interpretedStream(interpreted.encode(value)));
      assert.equal(c, i, JSON.stringify(value));
    }
    assert.match(
      outcome(() => interpretedStream(compiled.encode(values[2]))),
      /names\[1\]: string: 9 UTF-16 code units exceed/,
    );
  });
});

/** A stream holding `bytes`, so {@link outcome} can print an encode's result. */
function interpretedStream(bytes: Uint8Array): WriteStream {
  const ws = new WriteStream(bytes.length);
  ws.writer.writeBytes(bytes);
  return ws;
}
