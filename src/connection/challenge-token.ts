import type { Aead } from './aead.js';
import { readU64Big, writeU64 } from './bytes.js';
import { CHALLENGE_TOKEN_BYTES, MAC_BYTES, USER_DATA_BYTES } from './constants.js';

/**
 * The challenge token: client_id u64 | user_data 256 | zero padding to 284 | MAC 16, sealed with
 * ChaCha20-Poly1305 under a random per-server key, nonce u32 0 || challenge sequence u64 LE. The
 * server keeps no state for a challenge: the token it gets back proves it issued it. Only the
 * server that wrote a token reads it (the client echoes it unread), so the server may seal it with
 * associated data of its own: ours is the address it challenged (the reference uses none).
 */
const PLAINTEXT_BYTES = CHALLENGE_TOKEN_BYTES - MAC_BYTES;
const NO_AD = new Uint8Array(0);

export function challengeNonce(sequence: number | bigint, out: Uint8Array = new Uint8Array(12)): Uint8Array {
  out.fill(0, 0, 4);
  writeU64(out, 4, sequence);
  return out;
}

/** Writes and seals a challenge token into out[offset, offset + 300). */
export function writeChallengeToken(
  out: Uint8Array,
  offset: number,
  clientId: bigint,
  userData: Uint8Array,
  sequence: number | bigint,
  key: Uint8Array,
  aead: Aead,
  ad: Uint8Array = NO_AD,
): void {
  out.fill(0, offset, offset + CHALLENGE_TOKEN_BYTES);
  writeU64(out, offset, clientId);
  out.set(userData.subarray(0, USER_DATA_BYTES), offset + 8);
  aead.encrypt(out, offset, PLAINTEXT_BYTES, ad, challengeNonce(sequence), key);
}

/** Opens a challenge token in place; null when it does not verify. */
export function readChallengeToken(
  data: Uint8Array,
  offset: number,
  sequence: number | bigint,
  key: Uint8Array,
  aead: Aead,
  ad: Uint8Array = NO_AD,
): { clientId: bigint; userData: Uint8Array } | null {
  if (offset + CHALLENGE_TOKEN_BYTES > data.length) return null;
  if (!aead.decrypt(data, offset, CHALLENGE_TOKEN_BYTES, ad, challengeNonce(sequence), key)) return null;
  return {
    clientId: readU64Big(data, offset),
    userData: data.slice(offset + 8, offset + 8 + USER_DATA_BYTES),
  };
}
