/**
 * AEAD for netcode 1.02: ChaCha20-Poly1305 IETF (RFC 8439, 12-byte nonce) for packets and challenge
 * tokens, XChaCha20-Poly1305 IETF (24-byte nonce) for the private connect token — byte-compatible
 * with libsodium's `crypto_aead_chacha20poly1305_ietf` and `crypto_aead_xchacha20poly1305_ietf`.
 *
 * Browser-safe: no `node:` imports here. The pure-JS backend ({@link nobleAead}) runs on
 * @noble/ciphers; `aead-wasm.ts` has a ~5x faster one on libsodium's WebAssembly, which
 * `ghostwire/node` registers as the default, and `aead-node.ts` one on node:crypto (the fallback).
 *
 * Every backend shares the argument checks below ({@link aeadFromCore}):
 *  - Misuse by the caller throws: a key that is not 32 bytes or a nonce of the wrong size is a
 *    RangeError (in decrypt too: keys and nonces come from our own state, never off the wire);
 *    an encrypt range with no room for the MAC is a RangeError; an AD that is not bytes a TypeError.
 *  - Decryption reads hostile input and never throws for it: a wrong tag, a length below 16, a
 *    range outside the buffer, a non-integer offset or length all return false.
 *  - On failure, decrypt leaves `data` exactly as it was (the ciphertext and MAC untouched): no
 *    plaintext is written before the MAC has verified.
 */
import { poly1305 } from '@noble/ciphers/_poly1305.js';
import { chacha20, hchacha } from '@noble/ciphers/chacha.js';
import { KEY_BYTES, MAC_BYTES } from './constants.js';

export { KEY_BYTES, MAC_BYTES };

/** ChaCha20-Poly1305 IETF nonce length. */
export const NONCE_BYTES = 12;
/** XChaCha20-Poly1305 IETF nonce length. */
export const XNONCE_BYTES = 24;

export interface Aead {
  readonly name: string;
  /** ChaCha20-Poly1305 IETF: encrypts data[offset, offset + length) in place and writes the 16-byte MAC at data[offset + length, +16). */
  encrypt(
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array /* 12 */,
    key: Uint8Array /* 32 */,
  ): void;
  /**
   * Verifies and decrypts in place data[offset, offset + length), whose last 16 bytes are the MAC;
   * false (never throws) when it does not verify, and then `data` is left unchanged.
   */
  decrypt(
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): boolean;
  /** XChaCha20-Poly1305 IETF, same layout, 24-byte nonce. */
  encryptX(
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array /* 24 */,
    key: Uint8Array,
  ): void;
  decryptX(
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): boolean;
}

/**
 * The ChaCha20-Poly1305 IETF primitive a backend supplies; {@link aeadFromCore} adds the argument
 * checks, the never-throwing decrypt and XChaCha on top. Arguments arrive already checked: a 32-byte
 * key, a 12-byte nonce, an in-range region (for `open`, `length >= 16`).
 */
export interface AeadCore {
  /** Encrypts data[offset, offset + length) in place; writes the MAC at data[offset + length, +16). */
  seal(
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): void;
  /**
   * Verifies data[offset, offset + length) (MAC last) and decrypts it in place. Must write nothing
   * into `data` unless the MAC verifies. May throw on failure; the wrapper turns that into false.
   */
  open(
    data: Uint8Array,
    offset: number,
    length: number,
    ad: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): boolean;
}

// --- argument checks -----------------------------------------------------------------------------

function describe(value: unknown): string {
  return value instanceof Uint8Array ? `${value.length} bytes` : `a ${typeof value}`;
}

function checkKey(name: string, key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES)
    throw new RangeError(`${name}: the key must be a ${KEY_BYTES}-byte Uint8Array, got ${describe(key)}`);
}

function checkNonce(name: string, nonce: Uint8Array, bytes: number): void {
  if (!(nonce instanceof Uint8Array) || nonce.length !== bytes)
    throw new RangeError(`${name}: the nonce must be a ${bytes}-byte Uint8Array, got ${describe(nonce)}`);
}

function checkAd(name: string, ad: Uint8Array): void {
  if (!(ad instanceof Uint8Array))
    throw new TypeError(`${name}: the associated data must be a Uint8Array (empty for none)`);
}

function checkData(name: string, data: Uint8Array): void {
  if (!(data instanceof Uint8Array)) throw new TypeError(`${name}: data must be a Uint8Array`);
}

/** Encrypting: the plaintext and the MAC after it must fit in `data`. */
function checkSealRange(name: string, data: Uint8Array, offset: number, length: number): void {
  if (
    !Number.isInteger(offset) ||
    !Number.isInteger(length) ||
    offset < 0 ||
    length < 0 ||
    offset + length + MAC_BYTES > data.length
  ) {
    throw new RangeError(
      `${name}: cannot encrypt [${offset}, ${offset} + ${length}) and append a ${MAC_BYTES}-byte MAC in ${data.length} bytes`,
    );
  }
}

/** Decrypting (hostile lengths): true when the region is in range and holds at least a MAC. */
function openRangeOk(data: Uint8Array, offset: number, length: number): boolean {
  return (
    Number.isInteger(offset) &&
    Number.isInteger(length) &&
    offset >= 0 &&
    length >= MAC_BYTES &&
    offset + length <= data.length
  );
}

// --- XChaCha: HChaCha20 subkey + ChaCha20-Poly1305 IETF ------------------------------------------

/*
 * Scratch for the subkey derivation, reused by every call (everything here is synchronous). The
 * Uint32Array views over byte buffers are what @noble's hchacha expects on any host endianness.
 */
const SIGMA = new Uint32Array(Uint8Array.from('expand 32-byte k', (c) => c.charCodeAt(0)).buffer);
const xKeyBytes = new Uint8Array(KEY_BYTES);
const xKeyWords = new Uint32Array(xKeyBytes.buffer);
const xPrefixBytes = new Uint8Array(16);
const xPrefixWords = new Uint32Array(xPrefixBytes.buffer);
const xSubkeyBytes = new Uint8Array(KEY_BYTES);
const xSubkeyWords = new Uint32Array(xSubkeyBytes.buffer);
/** 4 zero bytes || nonce[16..24): the IETF nonce for the subkey. */
const xNonce = new Uint8Array(NONCE_BYTES);

/**
 * XChaCha20-Poly1305 IETF = ChaCha20-Poly1305 IETF under subkey HChaCha20(key, nonce[0..16)) with
 * nonce 0x00000000 || nonce[16..24). Fills the scratch `xSubkeyBytes` and `xNonce`; the caller
 * wipes them with {@link wipeX}.
 */
function deriveX(nonce: Uint8Array, key: Uint8Array): void {
  xKeyBytes.set(key);
  xPrefixBytes.set(nonce.subarray(0, 16));
  hchacha(SIGMA, xKeyWords, xPrefixWords, xSubkeyWords);
  xNonce.set(nonce.subarray(16, XNONCE_BYTES), 4);
}

function wipeX(): void {
  xKeyBytes.fill(0);
  xSubkeyBytes.fill(0);
}

/**
 * Builds a full {@link Aead} from a ChaCha20-Poly1305 IETF core: argument checks, a decrypt that
 * never throws for hostile input, and XChaCha20-Poly1305 via an HChaCha20 subkey.
 */
export function aeadFromCore(name: string, core: AeadCore): Aead {
  return {
    name,
    encrypt(data, offset, length, ad, nonce, key) {
      checkKey(name, key);
      checkNonce(name, nonce, NONCE_BYTES);
      checkAd(name, ad);
      checkData(name, data);
      checkSealRange(name, data, offset, length);
      core.seal(data, offset, length, ad, nonce, key);
    },
    decrypt(data, offset, length, ad, nonce, key) {
      checkKey(name, key);
      checkNonce(name, nonce, NONCE_BYTES);
      checkAd(name, ad);
      if (!(data instanceof Uint8Array) || !openRangeOk(data, offset, length)) return false;
      try {
        return core.open(data, offset, length, ad, nonce, key) === true;
      } catch {
        return false;
      }
    },
    encryptX(data, offset, length, ad, nonce, key) {
      checkKey(name, key);
      checkNonce(name, nonce, XNONCE_BYTES);
      checkAd(name, ad);
      checkData(name, data);
      checkSealRange(name, data, offset, length);
      try {
        deriveX(nonce, key);
        core.seal(data, offset, length, ad, xNonce, xSubkeyBytes);
      } finally {
        wipeX();
      }
    },
    decryptX(data, offset, length, ad, nonce, key) {
      checkKey(name, key);
      checkNonce(name, nonce, XNONCE_BYTES);
      checkAd(name, ad);
      if (!(data instanceof Uint8Array) || !openRangeOk(data, offset, length)) return false;
      try {
        deriveX(nonce, key);
        return core.open(data, offset, length, ad, xNonce, xSubkeyBytes) === true;
      } catch {
        return false;
      } finally {
        wipeX();
      }
    },
  };
}

// --- the pure-JS backend -------------------------------------------------------------------------

/*
 * RFC 8439 §2.8 composed from @noble/ciphers' ChaCha20 and Poly1305 primitives rather than through
 * its `chacha20poly1305` wrapper, which for every packet builds a cipher object, allocates the tag
 * and a BigInt length block, and reports a wrong tag by constructing and throwing an Error (the
 * stack capture made rejecting a forged packet cost ~1.5x a valid decrypt). Here the one-time key,
 * the length block and the tag live in reused scratch, the MAC is written straight into the
 * caller's buffer, and a wrong tag is a plain `false` found before any payload keystream is made.
 * Decryption works in place on the caller's bytes; encryption goes through an aligned scratch (see
 * `sealScratch`). Noble itself still copies the key and the Poly1305 input internally.
 */
const ZERO_BLOCK = new Uint8Array(32);
const PAD16 = new Uint8Array(16);
const polyKey = new Uint8Array(32);
const lengthBlock = new Uint8Array(16);
const expectedTag = new Uint8Array(MAC_BYTES);

function writeU64LE(out: Uint8Array, at: number, value: number): void {
  const low = value >>> 0;
  const high = Math.floor(value / 0x1_0000_0000) >>> 0;
  out[at] = low;
  out[at + 1] = low >>> 8;
  out[at + 2] = low >>> 16;
  out[at + 3] = low >>> 24;
  out[at + 4] = high;
  out[at + 5] = high >>> 8;
  out[at + 6] = high >>> 16;
  out[at + 7] = high >>> 24;
}

/** Poly1305 under `oneTimeKey` of ad || pad16 || ciphertext || pad16 || len(ad) u64 || len(ciphertext) u64, into `out`. */
function computeTag(ciphertext: Uint8Array, ad: Uint8Array, oneTimeKey: Uint8Array, out: Uint8Array): void {
  const mac = poly1305.create(oneTimeKey);
  if (ad.length > 0) {
    mac.update(ad);
    if (ad.length % 16 !== 0) mac.update(PAD16.subarray(ad.length % 16));
  }
  if (ciphertext.length > 0) {
    mac.update(ciphertext);
    if (ciphertext.length % 16 !== 0) mac.update(PAD16.subarray(ciphertext.length % 16));
  }
  writeU64LE(lengthBlock, 0, ad.length);
  writeU64LE(lengthBlock, 8, ciphertext.length);
  mac.update(lengthBlock);
  mac.digestInto(out);
  mac.destroy();
}

/**
 * Encryption scratch: 64 zero bytes (keystream block 0) then the body, 4-byte aligned. One ChaCha20
 * call from counter 0 yields the Poly1305 key and the ciphertext together, and noble XORs aligned
 * buffers a word at a time: ~20% cheaper than a call for the key plus one on the (usually
 * unaligned) body in place. Grows to the largest body encrypted (1300 bytes for netcode packets).
 */
let sealScratch = new Uint8Array(64 + 1300);

const nobleCore: AeadCore = {
  seal(data, offset, length, ad, nonce, key) {
    if (sealScratch.length < 64 + length) sealScratch = new Uint8Array(64 + length);
    const stream = sealScratch.subarray(0, 64 + length);
    stream.fill(0, 0, 64);
    stream.set(data.subarray(offset, offset + length), 64);
    chacha20(key, nonce, stream, stream, 0);
    const end = offset + length;
    data.set(stream.subarray(64), offset);
    computeTag(data.subarray(offset, end), ad, stream.subarray(0, 32), data.subarray(end, end + MAC_BYTES));
    stream.fill(0, 0, 64);
  },
  open(data, offset, length, ad, nonce, key) {
    const end = offset + length - MAC_BYTES;
    const body = data.subarray(offset, end);
    // Verify before generating any more keystream: a forged packet costs one block and the MAC.
    // One-time key: the first 32 bytes of keystream block 0 (RFC 8439 §2.6).
    chacha20(key, nonce, ZERO_BLOCK, polyKey, 0);
    computeTag(body, ad, polyKey, expectedTag);
    polyKey.fill(0);
    // Constant time in the tag's contents.
    let diff = 0;
    for (let i = 0; i < MAC_BYTES; i++) diff |= expectedTag[i] ^ data[end + i];
    expectedTag.fill(0);
    if (diff !== 0) return false;
    if (end > offset) chacha20(key, nonce, body, body, 1); // the payload starts at block 1
    return true;
  },
};

/** Pure JavaScript (@noble/ciphers): runs anywhere, including browsers. */
export const nobleAead: Aead = aeadFromCore('@noble/ciphers', nobleCore);

// --- the default backend -------------------------------------------------------------------------

let current: Aead = nobleAead;

/**
 * The backend Client and Server use unless given one: the fastest registered. That is the last one
 * passed to {@link registerDefaultAead} (`ghostwire/node` registers libsodium's WebAssembly one, or
 * node:crypto's where that cannot load), else {@link nobleAead}.
 */
export function defaultAead(): Aead {
  return current;
}

/** Makes `aead` the default. Register only a faster backend than the current one. */
export function registerDefaultAead(aead: Aead): void {
  if (
    aead === null ||
    typeof aead !== 'object' ||
    typeof aead.encrypt !== 'function' ||
    typeof aead.decrypt !== 'function' ||
    typeof aead.encryptX !== 'function' ||
    typeof aead.decryptX !== 'function'
  ) {
    throw new TypeError('registerDefaultAead: not an Aead (encrypt, decrypt, encryptX, decryptX)');
  }
  current = aead;
}
