import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utf8Decode, utf8Read, utf8ReadPortable, utf8Valid } from '../../src/serialize/utf8.js';
import { testSeed } from '../support/seed.js';

/** xorshift32: a small seeded generator, so a failure replays with GW_SEED. */
function random(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Text mixing ASCII, 2-, 3- and 4-byte characters, then encoded, sometimes with one byte changed. */
function sample(next: () => number): Uint8Array {
  const pool = ['a', 'Z', '_', '\u00e9', '\u0416', '\u7adc', '\u{1f600}', '\u00ff', '\u07ff', '\uffff'];
  let text = '';
  const length = Math.floor(next() * 20);
  for (let i = 0; i < length; i++) text += pool[Math.floor(next() * pool.length)];
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > 0 && next() < 0.4) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
  return bytes;
}

describe('utf8Read (validate and decode in one call)', () => {
  it('agrees with utf8Valid + utf8Decode, native and portable, on valid and mutated text', () => {
    const next = random(testSeed('utf8Read'));
    let valid = 0;
    let invalid = 0;
    for (let n = 0; n < 20000; n++) {
      const bytes = sample(next);
      const start = bytes.length > 0 ? Math.floor(next() * 2) : 0;
      const end = bytes.length;
      const expected = utf8Valid(bytes, start, end) ? utf8Decode(bytes, start, end) : null;
      if (expected === null) invalid++;
      else valid++;
      const context = `bytes ${[...bytes].join(',')} from ${start}`;
      assert.equal(utf8Read(bytes, start, end), expected, context);
      assert.equal(utf8ReadPortable(bytes, start, end), expected, context);
      if (expected !== null) {
        assert.equal(
          expected,
          new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(start, end)),
        );
      }
    }
    assert.ok(valid > 1000 && invalid > 1000, `${valid} valid, ${invalid} invalid samples`);
  });

  it('refuses a zero byte, overlongs, surrogates and truncation; reads only [start, end)', () => {
    const cases: [number[], string | null][] = [
      [[0x61, 0x00, 0x62], null],
      [[0xc0, 0xaf], null],
      [[0xed, 0xa0, 0x80], null],
      [[0x61, 0xe7, 0xab], null],
      [[0xf4, 0x90, 0x80, 0x80], null],
      [[0x61, 0x62, 0x63], 'abc'],
      [[0x61, 0xc3, 0xa9], 'a\u00e9'],
    ];
    for (const [bytes, expected] of cases) {
      const u = Uint8Array.from(bytes);
      assert.equal(utf8Read(u, 0, u.length), expected, `${bytes}`);
      assert.equal(utf8ReadPortable(u, 0, u.length), expected, `${bytes}`);
    }
    // A leading U+FEFF is text: kept on every path, long (TextDecoder) and short alike.
    for (const text of ['\ufeffab', `\ufeff${'x'.repeat(100)}`]) {
      const u = new TextEncoder().encode(text);
      assert.equal(utf8Decode(u, 0, u.length), text);
      assert.equal(utf8Read(u, 0, u.length), text);
      assert.equal(utf8ReadPortable(u, 0, u.length), text);
    }
    const padded = Uint8Array.from([0xff, 0x61, 0x62, 0xff]);
    assert.equal(utf8Read(padded, 1, 3), 'ab');
    assert.equal(utf8ReadPortable(padded, 1, 3), 'ab');
    assert.equal(utf8Read(padded, 2, 2), '');
  });
});
