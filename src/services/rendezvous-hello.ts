import type { Aead } from '../connection/aead.js';
import { openPeerTokenPrivate, type PeerTokenPrivate } from '../lockstep/links/peer-token.js';
import {
  type ChannelCrypto,
  HELLO_HEADER_BYTES,
  helloCandidates,
  helloToken,
} from '../lockstep/links/rendezvous-wire.js';
import type { Address } from '../transport/address.js';

/** A hello whose token and sealed part opened: the token's facts and the local candidates reported. */
export interface OpenedHello {
  key: PeerTokenPrivate;
  /** Unix second the token expires. */
  expires: number;
  local: Address[];
}

/**
 * Opens a hello (HELLO_BYTES, checked by the caller) at unix second `unix`: its token's private
 * part under the backend key, then its body under the token's key, in place. Otherwise the reason
 * it is refused, cheapest check first. Never throws for hostile bytes.
 */
export function openHello(
  data: Uint8Array,
  unix: number,
  protocolId: bigint,
  privateKey: Uint8Array,
  aead: Aead,
  crypto: ChannelCrypto,
): OpenedHello | 'expired' | 'forged' | 'mac' | 'malformed' {
  const token = helloToken(data);
  if (token.expireTimestamp < unix) return 'expired';
  const key = openPeerTokenPrivate(
    token.privateData,
    protocolId,
    token.expireTimestamp,
    token.nonce,
    privateKey,
    aead,
  );
  if (key === null) return 'forged';
  if (!crypto.open(data, HELLO_HEADER_BYTES - 8, HELLO_HEADER_BYTES, key.peerToRendezvousKey)) return 'mac';
  const local = helloCandidates(data);
  if (local === null) return 'malformed';
  return { key, expires: token.expireTimestamp, local };
}
