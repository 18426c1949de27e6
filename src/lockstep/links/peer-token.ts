import { readNetcodeAddress, writeNetcodeAddress } from '../../connection/address-codec.js';
import type { Aead } from '../../connection/aead.js';
import { readU32, readU64, readU64Big, writeU32, writeU64 } from '../../connection/bytes.js';
import type { Address } from '../../transport/address.js';

/**
 * The token a backend gives each peer of a session, shaped like netcode's connect token: a private
 * part sealed (XChaCha20-Poly1305) under a key only the backend and the rendezvous hold, passed
 * through by the peer unread, and a public part handing the peer the same facts and keys.
 *
 * Layout (little-endian), PEER_TOKEN_BYTES in all:
 *   0 "GWPEER01" · 8 protocolId u64 · 16 create u64 · 24 expire u64 (unix s) · 32 nonce (24)
 *   56 private part (128, MAC included) · 184 sessionId u64 · 192 peer u8 · 193 maxPeers u8
 *   194 timeoutSeconds u32 · 198 rendezvous address (netcode encoding, 19 reserved)
 *   217 peerToRendezvousKey (32) · 249 rendezvousToPeerKey (32) · 281..288 zero
 * Private plaintext: 0 sessionId u64 · 8 peer u8 · 9 maxPeers u8 · 10 timeoutSeconds u32 ·
 *   14 peerToRendezvousKey · 46 rendezvousToPeerKey · 78 generation u32 · zero to 112; its AD is
 *   tag, protocolId, expire. The generation orders the tokens of one slot (see PeerTokenPrivate).
 */
export const PEER_TOKEN_BYTES = 288;
export const PEER_TOKEN_PRIVATE_BYTES = 128;
export const PEER_TOKEN_NONCE_BYTES = 24;
/** Peers in one session at most (a peer index is one byte on the wire; 64 keeps tables small). */
export const MAX_SESSION_PEERS = 64;
const PRIVATE_PLAINTEXT_BYTES = PEER_TOKEN_PRIVATE_BYTES - 16;
const TAG = Uint8Array.from('GWPEER01', (c) => c.charCodeAt(0));
const KEY = 32;

/**
 * A copy of bytes [start, end): never a view, even of a Node Buffer (whose `slice` shares memory),
 * so nothing taken from a received datagram changes when the transport reuses its storage.
 */
export function copyOf(data: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(data, start, end);
}

/** What the rendezvous learns from a token's private part once it opens. */
export interface PeerTokenPrivate {
  sessionId: bigint;
  peer: number;
  maxPeers: number;
  timeoutSeconds: number;
  peerToRendezvousKey: Uint8Array;
  rendezvousToPeerKey: Uint8Array;
  /**
   * Which holding of the slot the token was issued for, in [0, 2^32) (default 0): a backend that
   * hands a slot to another player, or again to its holder, issues a higher one, and the rendezvous
   * refuses a token of a slot older than one it has taken. Kept in the private part only.
   */
  generation?: number;
}

/** The whole token as a peer holds it. */
export interface PeerToken extends PeerTokenPrivate {
  protocolId: bigint;
  createTimestamp: number;
  expireTimestamp: number;
  nonce: Uint8Array;
  /** The sealed private part, sent to the rendezvous unread. */
  privateData: Uint8Array;
  rendezvousAddress: Address;
}

function checkPrivate(p: PeerTokenPrivate): void {
  if (typeof p.sessionId !== 'bigint' || p.sessionId < 0n || p.sessionId >= 1n << 64n)
    throw new RangeError('peer token: sessionId must be a bigint in [0, 2^64)');
  if (!Number.isInteger(p.maxPeers) || p.maxPeers < 2 || p.maxPeers > MAX_SESSION_PEERS)
    throw new RangeError(`peer token: maxPeers must be an integer in [2, ${MAX_SESSION_PEERS}]`);
  if (!Number.isInteger(p.peer) || p.peer < 0 || p.peer >= p.maxPeers)
    throw new RangeError(`peer token: peer must be an index below maxPeers, got ${p.peer}`);
  if (!Number.isInteger(p.timeoutSeconds) || p.timeoutSeconds < 1 || p.timeoutSeconds > 3600)
    throw new RangeError('peer token: timeoutSeconds must be an integer in [1, 3600]');
  const generation = p.generation ?? 0;
  if (!Number.isInteger(generation) || generation < 0 || generation > 0xffff_ffff)
    throw new RangeError('peer token: generation must be an integer in [0, 2^32)');
  for (const key of [p.peerToRendezvousKey, p.rendezvousToPeerKey])
    if (!(key instanceof Uint8Array) || key.length !== KEY)
      throw new RangeError('peer token: keys must be 32-byte Uint8Arrays');
}

/** The private part's associated data: tag, protocol id and expiry. */
function privateAd(protocolId: bigint, expireTimestamp: number): Uint8Array {
  const ad = new Uint8Array(24);
  ad.set(TAG, 0);
  writeU64(ad, 8, protocolId);
  writeU64(ad, 16, expireTimestamp);
  return ad;
}

/** Seals a private part under the backend–rendezvous key. */
export function sealPeerTokenPrivate(
  p: PeerTokenPrivate,
  protocolId: bigint,
  expireTimestamp: number,
  nonce: Uint8Array,
  key: Uint8Array,
  aead: Aead,
): Uint8Array {
  checkPrivate(p);
  const out = new Uint8Array(PEER_TOKEN_PRIVATE_BYTES);
  writeU64(out, 0, p.sessionId);
  out[8] = p.peer;
  out[9] = p.maxPeers;
  writeU32(out, 10, p.timeoutSeconds);
  out.set(p.peerToRendezvousKey, 14);
  out.set(p.rendezvousToPeerKey, 14 + KEY);
  writeU32(out, 14 + 2 * KEY, p.generation ?? 0);
  aead.encryptX(out, 0, PRIVATE_PLAINTEXT_BYTES, privateAd(protocolId, expireTimestamp), nonce, key);
  return out;
}

/**
 * Opens a private part (a copy: `sealed` is left as it was); null when it was not sealed under
 * this key, protocol and expiry, or its fields are out of range. Never throws for hostile bytes.
 */
export function openPeerTokenPrivate(
  sealed: Uint8Array,
  protocolId: bigint,
  expireTimestamp: number,
  nonce: Uint8Array,
  key: Uint8Array,
  aead: Aead,
): PeerTokenPrivate | null {
  if (sealed.length !== PEER_TOKEN_PRIVATE_BYTES || nonce.length !== PEER_TOKEN_NONCE_BYTES) return null;
  const data = copyOf(sealed, 0, sealed.length);
  const ad = privateAd(protocolId, expireTimestamp);
  if (!aead.decryptX(data, 0, PEER_TOKEN_PRIVATE_BYTES, ad, nonce, key)) return null;
  const peer = data[8];
  const maxPeers = data[9];
  const timeoutSeconds = readU32(data, 10);
  if (maxPeers < 2 || maxPeers > MAX_SESSION_PEERS || peer >= maxPeers) return null;
  if (timeoutSeconds < 1 || timeoutSeconds > 3600) return null;
  return {
    sessionId: readU64Big(data, 0),
    peer,
    maxPeers,
    timeoutSeconds,
    peerToRendezvousKey: copyOf(data, 14, 14 + KEY),
    rendezvousToPeerKey: copyOf(data, 14 + KEY, 14 + 2 * KEY),
    generation: readU32(data, 14 + 2 * KEY),
  };
}

/** The PEER_TOKEN_BYTES a peer is given. Throws on fields out of range. */
export function writePeerToken(t: PeerToken): Uint8Array {
  checkPrivate(t);
  if (!(t.nonce instanceof Uint8Array) || t.nonce.length !== PEER_TOKEN_NONCE_BYTES)
    throw new RangeError('peer token: nonce must be 24 bytes');
  if (!(t.privateData instanceof Uint8Array) || t.privateData.length !== PEER_TOKEN_PRIVATE_BYTES)
    throw new RangeError(`peer token: privateData must be ${PEER_TOKEN_PRIVATE_BYTES} bytes`);
  const out = new Uint8Array(PEER_TOKEN_BYTES);
  out.set(TAG, 0);
  writeU64(out, 8, t.protocolId);
  writeU64(out, 16, t.createTimestamp);
  writeU64(out, 24, t.expireTimestamp);
  out.set(t.nonce, 32);
  out.set(t.privateData, 56);
  writeU64(out, 184, t.sessionId);
  out[192] = t.peer;
  out[193] = t.maxPeers;
  writeU32(out, 194, t.timeoutSeconds);
  writeNetcodeAddress(out, 198, t.rendezvousAddress);
  out.set(t.peerToRendezvousKey, 217);
  out.set(t.rendezvousToPeerKey, 249);
  return out;
}

export type PeerTokenResult = { ok: true; token: PeerToken } | { ok: false; reason: string };

/** Reads a token as a peer does (the private part stays sealed). Never throws. */
export function readPeerToken(data: Uint8Array): PeerTokenResult {
  if (!(data instanceof Uint8Array) || data.length !== PEER_TOKEN_BYTES)
    return { ok: false, reason: `a peer token is exactly ${PEER_TOKEN_BYTES} bytes` };
  for (let i = 0; i < TAG.length; i++)
    if (data[i] !== TAG[i]) return { ok: false, reason: 'not a ghostwire peer token' };
  const createTimestamp = readU64(data, 16);
  const expireTimestamp = readU64(data, 24);
  if (createTimestamp > expireTimestamp)
    return { ok: false, reason: 'peer token expires before it was created' };
  const peer = data[192];
  const maxPeers = data[193];
  const timeoutSeconds = readU32(data, 194);
  if (maxPeers < 2 || maxPeers > MAX_SESSION_PEERS || peer >= maxPeers)
    return { ok: false, reason: 'peer token has an invalid peer index or count' };
  if (timeoutSeconds < 1 || timeoutSeconds > 3600)
    return { ok: false, reason: 'peer token has an invalid timeout' };
  const address = readNetcodeAddress(data, 198, 217);
  if (address === null) return { ok: false, reason: 'peer token has an invalid rendezvous address' };
  return {
    ok: true,
    token: {
      protocolId: readU64Big(data, 8),
      createTimestamp,
      expireTimestamp,
      nonce: copyOf(data, 32, 56),
      privateData: copyOf(data, 56, 56 + PEER_TOKEN_PRIVATE_BYTES),
      sessionId: readU64Big(data, 184),
      peer,
      maxPeers,
      timeoutSeconds,
      rendezvousAddress: address.address,
      peerToRendezvousKey: copyOf(data, 217, 249),
      rendezvousToPeerKey: copyOf(data, 249, 281),
    },
  };
}
