/**
 * The native AEAD backend: ChaCha20-Poly1305 IETF from node:crypto (OpenSSL). Node only — never
 * import this from browser-safe code. `ghostwire/node` registers it as the default only where
 * libsodium's WebAssembly backend (~5x cheaper per packet: a cipher object per nonce is most of this
 * one's cost) cannot load (aead-node-default.ts). XChaCha20-Poly1305 and all argument checks come
 * from {@link aeadFromCore}, shared with the other backends, so all behave identically on misuse
 * and on hostile input.
 */
import { createCipheriv, createDecipheriv, type DecipherChaCha20Poly1305 } from 'node:crypto';
import { type Aead, type AeadCore, aeadFromCore, MAC_BYTES } from './aead.js';

const ALGORITHM = 'chacha20-poly1305';
const OPTIONS = { authTagLength: MAC_BYTES } as const;

/*
 * decipher.final() reports a wrong tag only by throwing, and capturing the Error's stack trace was
 * about half the cost of rejecting a forged packet. The stack is never looked at (the error is
 * swallowed), so it is switched off for that one native call, where no other code can run, and put
 * back at once. Left alone where the runtime has made Error.stackTraceLimit read-only.
 */
const canSilenceStacks = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable === true;

/** decipher.final(): true when the tag verified, false (never throws) when it did not. */
function finalQuietly(decipher: DecipherChaCha20Poly1305): boolean {
  const limit = Error.stackTraceLimit;
  if (canSilenceStacks) Error.stackTraceLimit = 0;
  try {
    decipher.final();
    return true;
  } catch {
    return false;
  } finally {
    if (canSilenceStacks) Error.stackTraceLimit = limit;
  }
}

const nodeCore: AeadCore = {
  seal(data, offset, length, ad, nonce, key) {
    const cipher = createCipheriv(ALGORITHM, key, nonce, OPTIONS);
    cipher.setAAD(ad, { plaintextLength: length }); // the length is for CCM; ChaCha ignores it
    const end = offset + length;
    const ciphertext = cipher.update(data.subarray(offset, end));
    const rest = cipher.final();
    // A stream cipher: update() returns exactly as many bytes as it was given, final() none.
    if (ciphertext.length + rest.length !== length) throw new Error(`${ALGORITHM}: unexpected output length`);
    data.set(ciphertext, offset);
    if (rest.length > 0) data.set(rest, offset + ciphertext.length);
    data.set(cipher.getAuthTag(), end);
  },
  open(data, offset, length, ad, nonce, key) {
    const end = offset + length - MAC_BYTES;
    const decipher = createDecipheriv(ALGORITHM, key, nonce, OPTIONS);
    decipher.setAuthTag(data.subarray(end, end + MAC_BYTES));
    decipher.setAAD(ad, { plaintextLength: end - offset });
    // Unauthenticated until final() returns: held in Node's buffer, copied into `data` only after.
    const plaintext = decipher.update(data.subarray(offset, end));
    if (!finalQuietly(decipher)) {
      plaintext.fill(0);
      return false;
    }
    if (plaintext.length !== end - offset) return false;
    data.set(plaintext, offset);
    return true;
  },
};

/** node:crypto (OpenSSL) ChaCha20-Poly1305: faster than the pure-JS backend, slower than the WebAssembly one (see `npm run bench -- --only aead`). */
export const nodeAead: Aead = aeadFromCore('node:crypto', nodeCore);
