import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chacha20poly1305, xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import {
  type Aead,
  defaultAead,
  KEY_BYTES,
  MAC_BYTES,
  nobleAead,
  registerDefaultAead,
} from '../../src/connection/aead.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { loadWasmAead } from '../../src/connection/aead-wasm.js';
import { prng, randomBytes, randomInt } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';
import { fromHex, hex, readSharedJson, sharedSkip } from '../support/shared.js';

interface EncryptedPacketCase {
  name: string;
  header: string;
  plaintext_body: string;
  associated_data: string;
  nonce: string;
  key: string;
  ciphertext: string;
  mac: string;
  packet: string;
}
interface Vectors {
  connect_token_private: {
    plaintext: string;
    associated_data: string;
    nonce: string;
    key: string;
    encrypted: string;
    mac: string;
  };
  challenge_token: { plaintext: string; nonce: string; key: string; encrypted: string };
  encrypted_packets: EncryptedPacketCase[];
}

const skip = sharedSkip();
const v: Vectors | null = skip ? null : readSharedJson<Vectors>('vectors/netcode_vectors.json');

/** Private connect token: XChaCha over the first 1008 bytes, MAC in the last 16 of 1024. */
const PRIVATE_TOKEN_ENCRYPTED_BYTES = 1024 - MAC_BYTES;
/** Challenge token: ChaCha over the first 284 bytes, no AD, MAC in the last 16 of 300. */
const CHALLENGE_TOKEN_ENCRYPTED_BYTES = 300 - MAC_BYTES;

const wasmAead = await loadWasmAead();
const BACKENDS: readonly Aead[] = [nobleAead, nodeAead, wasmAead];
const EMPTY = new Uint8Array(0);

const seed = testSeed('aead');

/** Which cipher: ChaCha20-Poly1305 (12-byte nonce) or XChaCha20-Poly1305 (24-byte nonce). */
interface Variant {
  readonly name: string;
  readonly nonceBytes: number;
  encrypt(
    aead: Aead,
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): void;
  decrypt(
    aead: Aead,
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): boolean;
}
const VARIANTS: readonly Variant[] = [
  {
    name: 'ChaCha20-Poly1305',
    nonceBytes: 12,
    encrypt: (a, d, o, l, ad, n, k) => a.encrypt(d, o, l, ad, n, k),
    decrypt: (a, d, o, l, ad, n, k) => a.decrypt(d, o, l, ad, n, k),
  },
  {
    name: 'XChaCha20-Poly1305',
    nonceBytes: 24,
    encrypt: (a, d, o, l, ad, n, k) => a.encryptX(d, o, l, ad, n, k),
    decrypt: (a, d, o, l, ad, n, k) => a.decryptX(d, o, l, ad, n, k),
  },
];

/** A sealed message at a random offset inside a larger buffer (random bytes before and after). */
interface Sealed {
  buffer: Uint8Array;
  offset: number;
  /** Plaintext length; the sealed region is length + 16. */
  length: number;
  plaintext: Uint8Array;
  ad: Uint8Array;
  nonce: Uint8Array;
  key: Uint8Array;
}

function seal(next: () => number, aead: Aead, variant: Variant, length: number): Sealed {
  const offset = randomInt(next, 40);
  const buffer = randomBytes(next, offset + length + MAC_BYTES + randomInt(next, 40));
  const plaintext = buffer.slice(offset, offset + length);
  const ad = randomBytes(next, randomInt(next, 3) === 0 ? 0 : 1 + randomInt(next, 40));
  const nonce = randomBytes(next, variant.nonceBytes);
  const key = randomBytes(next, KEY_BYTES);
  variant.encrypt(aead, buffer, offset, length, ad, nonce, key);
  return { buffer, offset, length, plaintext, ad, nonce, key };
}

/** decrypt must return false, throw nothing, and leave the buffer exactly as it was. */
function assertRejected(
  aead: Aead,
  variant: Variant,
  s: Sealed,
  what: string,
  overrides: { ad?: Uint8Array; nonce?: Uint8Array; key?: Uint8Array; offset?: number; length?: number } = {},
): void {
  const before = s.buffer.slice();
  const ok = variant.decrypt(
    aead,
    s.buffer,
    overrides.offset ?? s.offset,
    overrides.length ?? s.length + MAC_BYTES,
    overrides.ad ?? s.ad,
    overrides.nonce ?? s.nonce,
    overrides.key ?? s.key,
  );
  assert.equal(ok, false, `${aead.name} ${variant.name}: ${what} was accepted`);
  assert.deepEqual(s.buffer, before, `${aead.name} ${variant.name}: ${what} changed the buffer`);
}

function flipped(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = bytes.slice();
  copy[bit >>> 3] ^= 1 << (bit & 7);
  return copy;
}

describe('aead: netcode 1.02 vectors', { skip }, () => {
  for (const aead of BACKENDS) {
    describe(aead.name, () => {
      it('private connect token: XChaCha20-Poly1305 over the first 1008 bytes, MAC last', () => {
        const c = v!.connect_token_private;
        const buffer = fromHex(c.plaintext);
        aead.encryptX(
          buffer,
          0,
          PRIVATE_TOKEN_ENCRYPTED_BYTES,
          fromHex(c.associated_data),
          fromHex(c.nonce),
          fromHex(c.key),
        );
        assert.equal(hex(buffer), c.encrypted);
        assert.equal(hex(buffer.subarray(PRIVATE_TOKEN_ENCRYPTED_BYTES)), c.mac);

        const encrypted = fromHex(c.encrypted);
        assert.ok(
          aead.decryptX(encrypted, 0, 1024, fromHex(c.associated_data), fromHex(c.nonce), fromHex(c.key)),
        );
        assert.equal(
          hex(encrypted.subarray(0, PRIVATE_TOKEN_ENCRYPTED_BYTES)),
          c.plaintext.slice(0, 2 * PRIVATE_TOKEN_ENCRYPTED_BYTES),
        );
      });

      it('challenge token: ChaCha20-Poly1305 over the first 284 bytes, no AD', () => {
        const t = v!.challenge_token;
        const buffer = fromHex(t.plaintext);
        aead.encrypt(buffer, 0, CHALLENGE_TOKEN_ENCRYPTED_BYTES, EMPTY, fromHex(t.nonce), fromHex(t.key));
        assert.equal(hex(buffer), t.encrypted);

        const encrypted = fromHex(t.encrypted);
        assert.ok(aead.decrypt(encrypted, 0, 300, EMPTY, fromHex(t.nonce), fromHex(t.key)));
        assert.equal(
          hex(encrypted.subarray(0, CHALLENGE_TOKEN_ENCRYPTED_BYTES)),
          t.plaintext.slice(0, 2 * CHALLENGE_TOKEN_ENCRYPTED_BYTES),
        );
      });

      it('all 11 encrypted packets: body + MAC byte-exact after the header, and back', () => {
        assert.equal(v!.encrypted_packets.length, 11);
        for (const p of v!.encrypted_packets) {
          const header = fromHex(p.header);
          const body = fromHex(p.plaintext_body);
          const ad = fromHex(p.associated_data);
          const nonce = fromHex(p.nonce);
          const key = fromHex(p.key);
          const packet = new Uint8Array(header.length + body.length + MAC_BYTES);
          packet.set(header);
          packet.set(body, header.length);
          aead.encrypt(packet, header.length, body.length, ad, nonce, key);
          assert.equal(
            hex(packet.subarray(header.length, header.length + body.length)),
            p.ciphertext,
            p.name,
          );
          assert.equal(hex(packet.subarray(header.length + body.length)), p.mac, p.name);
          assert.equal(hex(packet), p.packet, p.name);

          const received = fromHex(p.packet);
          assert.ok(
            aead.decrypt(received, header.length, received.length - header.length, ad, nonce, key),
            p.name,
          );
          assert.equal(
            hex(received.subarray(header.length, header.length + body.length)),
            p.plaintext_body,
            p.name,
          );
          assert.equal(hex(received.subarray(0, header.length)), p.header, p.name);
        }
      });

      it('a vector packet with its sequence byte (AD) or nonce changed is rejected, untouched', () => {
        const p = v!.encrypted_packets.find((c) => c.plaintext_body.length > 0)!;
        const header = fromHex(p.header);
        const s: Sealed = {
          buffer: fromHex(p.packet),
          offset: header.length,
          length: p.plaintext_body.length / 2,
          plaintext: fromHex(p.plaintext_body),
          ad: fromHex(p.associated_data),
          nonce: fromHex(p.nonce),
          key: fromHex(p.key),
        };
        assertRejected(aead, VARIANTS[0], s, 'another prefix byte', { ad: flipped(s.ad, 8 * 21 + 4) });
        assertRejected(aead, VARIANTS[0], s, 'another sequence', { nonce: flipped(s.nonce, 8 * 4) });
      });
    });
  }
});

describe('aead: round trips', () => {
  for (const aead of BACKENDS) {
    for (const variant of VARIANTS) {
      it(`${aead.name} ${variant.name}: random lengths 0..1300 (and 5000) at random offsets, bytes around untouched`, () => {
        const next = prng(seed ^ 0x1234);
        for (let i = 0; i < 150; i++) {
          // 5000: beyond a netcode packet (the pure-JS backend's scratch grows).
          const length = i < 5 ? [0, 1, 1299, 1300, 5000][i] : randomInt(next, 1301);
          const offset = randomInt(next, 40);
          const buffer = randomBytes(next, offset + length + MAC_BYTES + randomInt(next, 40));
          const original = buffer.slice();
          const ad = randomBytes(next, randomInt(next, 64));
          const nonce = randomBytes(next, variant.nonceBytes);
          const key = randomBytes(next, KEY_BYTES);
          const end = offset + length + MAC_BYTES;
          variant.encrypt(aead, buffer, offset, length, ad, nonce, key);
          assert.deepEqual(buffer.subarray(0, offset), original.subarray(0, offset), 'bytes before changed');
          assert.deepEqual(buffer.subarray(end), original.subarray(end), 'bytes after changed');
          if (length >= 16)
            assert.notDeepEqual(
              buffer.subarray(offset, offset + length),
              original.subarray(offset, offset + length),
            );
          assert.ok(
            variant.decrypt(aead, buffer, offset, length + MAC_BYTES, ad, nonce, key),
            `length ${length}`,
          );
          // The plaintext is back; the MAC stays where it was written.
          assert.deepEqual(buffer.subarray(0, offset + length), original.subarray(0, offset + length));
          assert.deepEqual(buffer.subarray(end), original.subarray(end));
        }
      });
    }
  }
});

describe('aead: the backends agree', () => {
  for (const variant of VARIANTS) {
    it(`${variant.name}: same bytes as the pure-JS one, and each decrypts what it encrypted`, () => {
      const next = prng(seed ^ 0x5678);
      for (let i = 0; i < 100; i++) {
        const length = randomInt(next, 1301);
        const plaintext = randomBytes(next, length);
        const ad = randomBytes(next, randomInt(next, 64));
        const nonce = randomBytes(next, variant.nonceBytes);
        const key = randomBytes(next, KEY_BYTES);
        const reference = new Uint8Array(length + MAC_BYTES);
        reference.set(plaintext);
        variant.encrypt(nobleAead, reference, 0, length, ad, nonce, key);
        for (const aead of BACKENDS.filter((backend) => backend !== nobleAead)) {
          const b = new Uint8Array(length + MAC_BYTES + 1);
          b.set(plaintext, 1);
          variant.encrypt(aead, b, 1, length, ad, nonce, key);
          assert.deepEqual(b.subarray(1), reference, `${aead.name}, length ${length}`);
          const a = reference.slice();
          assert.ok(variant.decrypt(aead, a, 0, length + MAC_BYTES, ad, nonce, key), aead.name);
          assert.ok(variant.decrypt(nobleAead, b, 1, length + MAC_BYTES, ad, nonce, key), aead.name);
          assert.deepEqual(a.subarray(0, length), plaintext);
          assert.deepEqual(b.subarray(1, 1 + length), plaintext);
        }
      }
    });
  }
});

describe("aead: matches @noble/ciphers' own AEAD constructions", () => {
  for (const [variant, reference] of [
    [VARIANTS[0], chacha20poly1305],
    [VARIANTS[1], xchacha20poly1305],
  ] as const) {
    it(`${variant.name}: same ciphertext || MAC as the library's one-shot API`, () => {
      const next = prng(seed ^ 0x2468);
      for (let i = 0; i < 60; i++) {
        const length = randomInt(next, 1301);
        const plaintext = randomBytes(next, length);
        const ad = randomBytes(next, randomInt(next, 64));
        const nonce = randomBytes(next, variant.nonceBytes);
        const key = randomBytes(next, KEY_BYTES);
        const buffer = new Uint8Array(length + MAC_BYTES);
        buffer.set(plaintext);
        variant.encrypt(nobleAead, buffer, 0, length, ad, nonce, key);
        assert.deepEqual(buffer, reference(key, nonce, ad).encrypt(plaintext), `length ${length}`);
      }
    });
  }
});

describe('aead: tampering is rejected without throwing, the buffer left as it was', () => {
  for (const aead of BACKENDS) {
    for (const variant of VARIANTS) {
      it(`${aead.name} ${variant.name}: every single-bit flip of ciphertext, MAC, AD and nonce`, () => {
        const next = prng(seed ^ 0x9abc);
        for (const length of [0, 1, 37]) {
          const s = seal(next, aead, variant, length);
          if (s.ad.length === 0) s.ad = randomBytes(next, 22);
          // Reseal with the AD in place (seal may have drawn an empty one).
          s.buffer.set(s.plaintext, s.offset);
          variant.encrypt(aead, s.buffer, s.offset, length, s.ad, s.nonce, s.key);
          const region = s.length + MAC_BYTES;
          for (let bit = 0; bit < 8 * region; bit++) {
            const byte = s.offset + (bit >>> 3);
            s.buffer[byte] ^= 1 << (bit & 7);
            const tampered = s.buffer.slice();
            const ok = variant.decrypt(aead, s.buffer, s.offset, region, s.ad, s.nonce, s.key);
            assert.equal(ok, false, `bit ${bit} of ${length}-byte ciphertext||MAC accepted`);
            assert.deepEqual(s.buffer, tampered, `bit ${bit}: buffer changed`);
            s.buffer[byte] ^= 1 << (bit & 7);
          }
          for (let bit = 0; bit < 8 * s.ad.length; bit++)
            assertRejected(aead, variant, s, `AD bit ${bit}`, { ad: flipped(s.ad, bit) });
          for (let bit = 0; bit < 8 * s.nonce.length; bit++)
            assertRejected(aead, variant, s, `nonce bit ${bit}`, { nonce: flipped(s.nonce, bit) });
          // The untampered message still opens.
          assert.ok(variant.decrypt(aead, s.buffer, s.offset, region, s.ad, s.nonce, s.key));
          assert.deepEqual(s.buffer.subarray(s.offset, s.offset + length), s.plaintext);
        }
      });

      it(`${aead.name} ${variant.name}: wrong key, missing or extra AD, wrong region`, () => {
        const next = prng(seed ^ 0xdef0);
        const s = seal(next, aead, variant, 100);
        assertRejected(aead, variant, s, 'a wrong key', { key: randomBytes(next, KEY_BYTES) });
        assertRejected(aead, variant, s, 'a key with one bit flipped', { key: flipped(s.key, 255) });
        assertRejected(aead, variant, s, 'an extra AD byte', { ad: Uint8Array.of(...s.ad, 0) });
        if (s.ad.length > 0) assertRejected(aead, variant, s, 'no AD', { ad: EMPTY });
        assertRejected(aead, variant, s, 'one byte short', { length: s.length + MAC_BYTES - 1 });
        if (s.offset + s.length + MAC_BYTES < s.buffer.length)
          assertRejected(aead, variant, s, 'one byte long', { length: s.length + MAC_BYTES + 1 });
        if (s.offset > 0) assertRejected(aead, variant, s, 'shifted a byte', { offset: s.offset - 1 });
      });

      it(`${aead.name} ${variant.name}: truncated, out-of-range and garbage inputs return false`, () => {
        const next = prng(seed ^ 0x0f0f);
        const s = seal(next, aead, variant, 20);
        for (let length = 0; length < MAC_BYTES; length++)
          assertRejected(aead, variant, s, `length ${length} (< MAC)`, { length });
        const size = s.buffer.length;
        for (const [offset, length] of [
          [-1, 16],
          [0, size + 1],
          [size, 16],
          [size - 15, 16],
          [Number.NaN, 16],
          [0, Number.NaN],
          [0.5, 16],
          [0, 16.5],
          [Number.POSITIVE_INFINITY, 16],
          [0, Number.POSITIVE_INFINITY],
          [2 ** 53, 16],
        ] as const) {
          assertRejected(aead, variant, s, `offset ${offset} length ${length}`, { offset, length });
        }
        // A tiny buffer: nothing to decrypt.
        const tiny: Sealed = { ...s, buffer: new Uint8Array(8), offset: 0 };
        assertRejected(aead, variant, tiny, 'an 8-byte buffer', { length: 8 });
        // Garbage of every length up to 1300 under a fixed key.
        for (let i = 0; i < 200; i++) {
          const length = randomInt(next, 1301);
          const garbage: Sealed = { ...s, buffer: randomBytes(next, length), offset: 0 };
          assertRejected(aead, variant, garbage, `${length} bytes of garbage`, { length });
        }
      });
    }
  }
});

describe('aead: misuse throws a RangeError', () => {
  for (const aead of BACKENDS) {
    for (const variant of VARIANTS) {
      it(`${aead.name} ${variant.name}: bad keys, bad nonces, no room for the MAC`, () => {
        const data = new Uint8Array(64);
        const nonce = new Uint8Array(variant.nonceBytes);
        const key = new Uint8Array(KEY_BYTES);
        const wrongNonce = variant.nonceBytes === 12 ? [0, 8, 11, 13, 24] : [0, 12, 23, 25];
        for (const bytes of [0, 16, 31, 33, 64]) {
          const badKey = new Uint8Array(bytes);
          assert.throws(() => variant.encrypt(aead, data, 0, 10, EMPTY, nonce, badKey), RangeError);
          assert.throws(() => variant.decrypt(aead, data, 0, 30, EMPTY, nonce, badKey), RangeError);
        }
        for (const bytes of wrongNonce) {
          const badNonce = new Uint8Array(bytes);
          assert.throws(() => variant.encrypt(aead, data, 0, 10, EMPTY, badNonce, key), RangeError);
          assert.throws(() => variant.decrypt(aead, data, 0, 30, EMPTY, badNonce, key), RangeError);
        }
        const notBytes = 'not bytes' as unknown as Uint8Array;
        assert.throws(() => variant.encrypt(aead, data, 0, 10, EMPTY, nonce, notBytes), RangeError);
        assert.throws(() => variant.decrypt(aead, data, 0, 30, EMPTY, notBytes, key), RangeError);
        // Encrypting is trusted: a region with no room for its MAC is the caller's bug.
        for (const [offset, length] of [
          [0, 64 - MAC_BYTES + 1],
          [1, 64 - MAC_BYTES],
          [-1, 10],
          [0, -1],
          [0.5, 10],
          [0, Number.NaN],
        ] as const) {
          assert.throws(() => variant.encrypt(aead, data, offset, length, EMPTY, nonce, key), RangeError);
        }
        assert.deepEqual(data, new Uint8Array(64), 'a rejected call wrote into the buffer');
        // The largest region that fits is fine.
        variant.encrypt(aead, data, 0, 64 - MAC_BYTES, EMPTY, nonce, key);
      });
    }
  }

  it('the message names the problem', () => {
    assert.throws(
      () => nobleAead.encrypt(new Uint8Array(32), 0, 0, EMPTY, new Uint8Array(12), new Uint8Array(31)),
      /key must be a 32-byte Uint8Array, got 31 bytes/,
    );
    assert.throws(
      () => nodeAead.encryptX(new Uint8Array(32), 0, 0, EMPTY, new Uint8Array(12), new Uint8Array(32)),
      /nonce must be a 24-byte Uint8Array, got 12 bytes/,
    );
  });
});

describe('aead: the default backend', () => {
  it('is the pure-JS one until a faster one is registered', () => {
    assert.equal(defaultAead(), nobleAead);
    registerDefaultAead(nodeAead);
    try {
      assert.equal(defaultAead(), nodeAead);
    } finally {
      registerDefaultAead(nobleAead);
    }
    assert.equal(defaultAead(), nobleAead);
  });

  it('refuses something that is not an Aead', () => {
    assert.throws(() => registerDefaultAead({ name: 'x' } as unknown as Aead), TypeError);
    assert.equal(defaultAead(), nobleAead);
  });

  it('aead.ts and aead-wasm.ts stay browser-safe: no node: imports (only aead-node.ts has them)', () => {
    const source = (name: string) =>
      readFileSync(fileURLToPath(new URL(`../../../src/connection/${name}`, import.meta.url)), 'utf8');
    assert.doesNotMatch(source('aead.ts'), /from 'node:/);
    assert.doesNotMatch(source('aead-wasm.ts'), /from 'node:/);
    assert.match(source('aead-node.ts'), /from 'node:crypto'/);
  });

  it('loads the WebAssembly backend once', async () => {
    assert.equal(await loadWasmAead(), wasmAead);
    assert.equal(wasmAead.name, 'libsodium (WebAssembly)');
  });

  it('the Node entry points register the WebAssembly backend (node:crypto only if it cannot load)', async () => {
    try {
      const { nodeDefaultAead } = await import('../../src/connection/aead-node-default.js');
      assert.equal(nodeDefaultAead, wasmAead);
      assert.equal(defaultAead(), wasmAead);
    } finally {
      registerDefaultAead(nobleAead);
    }
  });
});
