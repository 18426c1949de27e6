import { randomBytes } from 'node:crypto';
import { type Aead, defaultAead } from '../connection/aead.js';
import {
  MAX_SESSION_PEERS,
  PEER_TOKEN_NONCE_BYTES,
  sealPeerTokenPrivate,
  writePeerToken,
} from '../lockstep/links/peer-token.js';
import type { Address } from '../transport/address.js';

export interface IssuePeerTokenOptions {
  protocolId: bigint;
  /** The 32-byte key shared by the backend and the rendezvous. */
  privateKey: Uint8Array;
  /** The session's id: peers with the same id (and rendezvous) are introduced to each other. */
  sessionId: bigint;
  /** This peer's slot, in [0, maxPeers). */
  peer: number;
  /** Slots in the session, 2 to 64. */
  maxPeers: number;
  /** The rendezvous (and relay) the peer registers with. */
  rendezvousAddress: Address;
  /** Unix time, seconds. */
  now: number;
  /**
   * Which holding of the slot this is (default 0): issue a higher one whenever the slot is handed
   * out again (to another player or its holder), so the rendezvous refuses the earlier tokens.
   */
  generation?: number;
  /** Seconds until the token can no longer register (default 30). */
  expireSeconds?: number;
  /** Seconds of silence after which the rendezvous and the peers drop the peer (default 10). */
  timeoutSeconds?: number;
  aead?: Aead;
}

/**
 * What a backend calls to let one peer into a peer-to-peer session: a token with fresh keys for
 * talking to the rendezvous, the private part sealed under the key the rendezvous shares. Hand
 * it to the peer (over the backend's authenticated HTTPS, as a connect token is).
 */
export function issuePeerToken(options: IssuePeerTokenOptions): Uint8Array {
  const { protocolId, privateKey, sessionId, peer, maxPeers, rendezvousAddress, now } = options;
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32)
    throw new RangeError('issuePeerToken: privateKey must be 32 bytes');
  if (typeof protocolId !== 'bigint' || protocolId < 0n || protocolId >= 1n << 64n)
    throw new RangeError('issuePeerToken: protocolId must be a bigint in [0, 2^64)');
  if (!Number.isInteger(now) || now < 0) throw new RangeError('issuePeerToken: now must be unix seconds');
  const expireSeconds = options.expireSeconds ?? 30;
  if (!Number.isInteger(expireSeconds) || expireSeconds < 0)
    throw new RangeError('issuePeerToken: expireSeconds must be an integer >= 0');
  if (!Number.isInteger(maxPeers) || maxPeers < 2 || maxPeers > MAX_SESSION_PEERS)
    throw new RangeError(`issuePeerToken: maxPeers must be an integer in [2, ${MAX_SESSION_PEERS}]`);
  const aead = options.aead ?? defaultAead();
  const keys = {
    sessionId,
    peer,
    maxPeers,
    timeoutSeconds: options.timeoutSeconds ?? 10,
    generation: options.generation ?? 0,
    peerToRendezvousKey: new Uint8Array(randomBytes(32)),
    rendezvousToPeerKey: new Uint8Array(randomBytes(32)),
  };
  const nonce = new Uint8Array(randomBytes(PEER_TOKEN_NONCE_BYTES));
  const expireTimestamp = now + expireSeconds;
  const privateData = sealPeerTokenPrivate(keys, protocolId, expireTimestamp, nonce, privateKey, aead);
  return writePeerToken({
    ...keys,
    protocolId,
    createTimestamp: now,
    expireTimestamp,
    nonce,
    privateData,
    rendezvousAddress,
  });
}
