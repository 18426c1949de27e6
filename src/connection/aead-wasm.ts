/**
 * The WebAssembly AEAD backend: libsodium's ChaCha20-Poly1305 IETF compiled to WebAssembly (the
 * `libsodium` package, called through its raw exports). node:crypto builds a cipher object for every
 * nonce; this calls straight into one compiled function over a region of the module's memory that
 * is set aside once, so a netcode packet costs about a fifth of node:crypto's and a forged one is
 * rejected ~10x cheaper (`npm run bench -- --only aead`).
 *
 * Browser-safe (no `node:` imports). The module loads only when asked: {@link loadWasmAead} imports
 * and instantiates it (asynchronously, once); the backend it resolves to is synchronous like the
 * others, with the same argument checks and XChaCha from {@link aeadFromCore}.
 */
import { type Aead, type AeadCore, aeadFromCore, KEY_BYTES, MAC_BYTES } from './aead.js';

/** The raw libsodium exports used here (64-bit lengths are passed as low, high 32-bit halves). */
interface SodiumModule {
  readonly HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  _sodium_init(): number;
  _crypto_aead_chacha20poly1305_ietf_encrypt_detached(
    c: number,
    mac: number,
    macLengthOut: number,
    m: number,
    mLow: number,
    mHigh: number,
    ad: number,
    adLow: number,
    adHigh: number,
    nsec: number,
    nonce: number,
    key: number,
  ): number;
  _crypto_aead_chacha20poly1305_ietf_decrypt_detached(
    m: number,
    nsec: number,
    c: number,
    cLow: number,
    cHigh: number,
    mac: number,
    ad: number,
    adLow: number,
    adHigh: number,
    nonce: number,
    key: number,
  ): number;
}

/** Room for the AD and the message at first: a whole netcode packet (1300) or connect token (1024). */
const INITIAL_DATA_BYTES = 2048;
/** key 32 | nonce 12 (+4) | MAC 16 | AD, then the message: the fixed fields keep their places. */
const NONCE_AT = KEY_BYTES;
const MAC_AT = NONCE_AT + 16;
const AD_AT = MAC_AT + MAC_BYTES;

/** libsodium reseeds its generator in sodium_init; AEAD itself draws no randomness. */
function getRandomValue(): number {
  const word = new Uint32Array(1);
  globalThis.crypto.getRandomValues(word);
  return word[0];
}

/**
 * The core over one region of the module's memory. Everything is synchronous, so one region serves
 * every call: the key, nonce and AD are copied in, the message is sealed or opened in place there
 * and copied back. libsodium verifies the MAC before it decrypts, so a forged packet costs the MAC
 * only, and the caller's bytes are not touched unless it verified (libsodium zeroes its own output
 * on failure: that is the region, not `data`). The key is wiped from the region after each call.
 */
function sodiumCore(sodium: SodiumModule): AeadCore {
  const seal = sodium._crypto_aead_chacha20poly1305_ietf_encrypt_detached;
  const open = sodium._crypto_aead_chacha20poly1305_ietf_decrypt_detached;
  let capacity = 0;
  let base = 0;
  let heap = sodium.HEAPU8;

  /**
   * Makes room for `bytes` of AD + message. Only this malloc can grow the module's memory (the AEAD
   * functions allocate nothing), and growing replaces HEAPU8: the view is re-read here only.
   */
  function grow(bytes: number): void {
    if (base !== 0) sodium._free(base);
    capacity = Math.max(bytes, INITIAL_DATA_BYTES);
    base = sodium._malloc(AD_AT + capacity);
    if (base === 0) throw new RangeError(`libsodium: cannot allocate ${AD_AT + capacity} bytes`);
    heap = sodium.HEAPU8;
  }
  grow(INITIAL_DATA_BYTES);

  /** Copies key, nonce and AD in; returns where the message goes. */
  function load(ad: Uint8Array, nonce: Uint8Array, key: Uint8Array, messageBytes: number): number {
    if (ad.length + messageBytes > capacity) grow(ad.length + messageBytes);
    heap.set(key, base);
    heap.set(nonce, base + NONCE_AT);
    heap.set(ad, base + AD_AT);
    return base + AD_AT + ad.length;
  }

  return {
    seal(data, offset, length, ad, nonce, key) {
      const message = load(ad, nonce, key, length);
      const end = offset + length;
      copyIn(heap, message, data, offset, length);
      const status = seal(
        message,
        base + MAC_AT,
        0,
        message,
        length,
        0,
        base + AD_AT,
        ad.length,
        0,
        0,
        base + NONCE_AT,
        base,
      );
      heap.fill(0, base, base + KEY_BYTES);
      if (status !== 0) throw new Error(`libsodium: encryption failed (${status})`);
      copyOut(data, offset, heap, message, length);
      copyBytes(data, end, heap, base + MAC_AT, MAC_BYTES);
    },
    open(data, offset, length, ad, nonce, key) {
      const bodyBytes = length - MAC_BYTES;
      const message = load(ad, nonce, key, length);
      copyIn(heap, message, data, offset, length); // body, then its MAC
      const status = open(
        message,
        0,
        message,
        bodyBytes,
        0,
        message + bodyBytes,
        base + AD_AT,
        ad.length,
        0,
        base + NONCE_AT,
        base,
      );
      heap.fill(0, base, base + KEY_BYTES);
      if (status !== 0) return false;
      copyOut(data, offset, heap, message, bodyBytes);
      return true;
    },
  };
}

/*
 * Short copies byte by byte: below ~32 bytes a loop beats set(subarray()), whose view is an
 * allocation (~150 ns less per 16-byte packet, ~70 ns per MAC; longer bodies gain nothing).
 */
const SHORT_COPY_BYTES = 32;

function copyBytes(to: Uint8Array, toAt: number, from: Uint8Array, fromAt: number, length: number): void {
  for (let i = 0; i < length; i++) to[toAt + i] = from[fromAt + i];
}

function copyIn(heap: Uint8Array, at: number, data: Uint8Array, offset: number, length: number): void {
  if (length <= SHORT_COPY_BYTES) copyBytes(heap, at, data, offset, length);
  else heap.set(data.subarray(offset, offset + length), at);
}

function copyOut(data: Uint8Array, offset: number, heap: Uint8Array, at: number, length: number): void {
  if (length <= SHORT_COPY_BYTES) copyBytes(data, offset, heap, at, length);
  else data.set(heap.subarray(at, at + length), offset);
}

let loading: Promise<Aead> | undefined;

/**
 * Loads libsodium's WebAssembly ChaCha20-Poly1305 and resolves to a backend on it (the same one on
 * every call). Rejects where WebAssembly or `crypto.getRandomValues` is missing; `ghostwire/node`
 * then keeps node:crypto's. Register it with `registerDefaultAead` to make it the default.
 */
export function loadWasmAead(): Promise<Aead> {
  loading ??= (async () => {
    const { default: instantiate } = await import('libsodium');
    const sodium = (await instantiate({ getRandomValue })) as SodiumModule;
    if (sodium._sodium_init() < 0) throw new Error('libsodium: sodium_init failed');
    return aeadFromCore('libsodium (WebAssembly)', sodiumCore(sodium));
  })();
  return loading;
}
