import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateLobby } from '../../bench/lobby/data.js';
import { lobbyCodec, lobbyInterpreted } from '../../bench/lobby/schema.js';
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

/** The generated string read (length, align, bytes, inline) against the interpreter's ReadStream.string. */
describe('compiled string read', () => {
  const schema = t.object({ flag: t.bool(), name: t.string(20), after: t.uint8() });
  const compiled = compile(schema);
  const interpreted = compile(schema, { codegen: false });
  const both = (bytes: number[]) => {
    const input = Uint8Array.from(bytes);
    return [compiled.decode(input), interpreted.decode(input)];
  };

  it('reads what the stream wrote, from any bit offset, and continues after the bytes', () => {
    for (const name of ['', 'a', 'abcd', 'h\u00e9llo', '\u7adc\u{1f600}', 'x'.repeat(20)]) {
      for (const flag of [false, true]) {
        const value = { flag, name, after: 0xa5 };
        const bytes = interpreted.encode(value).slice();
        assert.deepEqual([...compiled.encode(value)], [...bytes]);
        const [c, i] = both([...bytes]);
        assert.deepEqual(c, { ok: true, value });
        assert.deepEqual(i, { ok: true, value });
      }
    }
  });

  it('refuses bad strings with the interpreter reason at the same bit', () => {
    // flag (1 bit) then a 5-bit length: byte 0 = flag | length << 1, then 2 padding bits, then bytes.
    const cases: [string, number[], RegExp][] = [
      ['length over the maximum', [21 << 1, ...new Array(21).fill(0x61), 0], /int out of range \[0, 20\]/],
      ['non-zero align padding', [(2 << 1) | 0x80, 0x61, 0x62, 0], /non-zero align padding/],
      ['bytes past the end', [3 << 1, 0x61, 0x62], /string past the end/],
      ['a zero byte', [3 << 1, 0x61, 0x00, 0x62, 0], /NUL byte in string/],
      ['invalid UTF-8', [2 << 1, 0xc3, 0x28, 0], /invalid UTF-8 in string/],
      ['an overlong', [2 << 1, 0xc0, 0xaf, 0], /invalid UTF-8 in string/],
    ];
    for (const [what, bytes, reason] of cases) {
      const [c, i] = both(bytes);
      assert.ok(!c.ok && !i.ok, what);
      assert.match(c.error, reason, what);
      // The compiled codec names the field; the interpreter gives the bare reason, at the same bit.
      assert.equal(c.error, `.name: ${i.error}`, what);
    }
  });

  it('refuses a length field cut short, naming the string', () => {
    const long = t.object({ flag: t.bool(), name: t.string(2000) });
    const input = Uint8Array.from([0xfe]);
    const c = compile(long).decode(input);
    const i = compile(long, { codegen: false }).decode(input);
    assert.ok(!c.ok && !i.ok);
    assert.equal(c.error, `.name: ${i.error}`);
    assert.match(c.error, /read past the end at bit 1$/);
  });

  it('agrees with the interpreter on mutated lobby encodings (accept or refuse, and the value)', () => {
    let x = testSeed('compiled string read') || 1;
    const next = (n: number) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    const bytes = lobbyCodec.encode(generateLobby(12)).slice();
    let refused = 0;
    for (let k = 0; k < 3000; k++) {
      const mutated = bytes.slice(0, bytes.length - (next(4) === 0 ? next(bytes.length) : 0));
      for (let m = 1 + next(3); m > 0 && mutated.length > 0; m--)
        mutated[next(mutated.length)] ^= 1 << next(8);
      const c = lobbyCodec.decode(mutated);
      const i = lobbyInterpreted.decode(mutated);
      assert.equal(c.ok, i.ok, `bytes ${[...mutated].join(',')}: ${c.ok || c.error} / ${i.ok || i.error}`);
      if (c.ok && i.ok) assert.deepEqual(c.value, i.value);
      else refused++;
    }
    assert.ok(refused > 100, `only ${refused} mutations refused`);
  });
});
