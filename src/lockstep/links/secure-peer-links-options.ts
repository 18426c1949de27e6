import type { Aead } from '../../connection/aead.js';
import { type Address, parseAddress } from '../../transport/address.js';
import type { DatagramTransport } from '../../transport/transport.js';

export interface SecurePeerLinksOptions {
  transport: DatagramTransport;
  /** The peer token the backend issued this peer (PEER_TOKEN_BYTES). */
  token: Uint8Array;
  /**
   * This peer's own addresses worth punching from a LAN (up to 4), reported to the rendezvous
   * besides the address it sees. Default: the transport's address unless bound to 0.0.0.0 / [::].
   */
  localCandidates?: readonly Address[];
  /** Seconds of silence after which a peer is reported timed out (default: the token's timeout). */
  timeout?: number;
  /** Seconds between keep-alives to a peer nothing else was sent to (default 0.25). */
  keepAliveInterval?: number;
  /** Seconds between punch rounds (default 0.1). */
  punchInterval?: number;
  /** Seconds without a direct path after an introduction before a pair uses the relay (default 3). */
  punchTimeout?: number;
  /**
   * Time-to-live of the first punch rounds (default 2: past this peer's NAT, not as far as the
   * other's), where the transport can set it; 0 sends every round with the usual TTL.
   */
  openerTtl?: number;
  /** Default: the registered default backend. */
  aead?: Aead;
  /** Random bytes for the first sequence towards the rendezvous (default crypto.getRandomValues). */
  randomBytes?: (length: number) => Uint8Array;
}

/** Datagrams refused, by reason, and sends that found no path. */
export interface SecurePeerLinksCounters {
  /** Shorter than a header and MAC, or longer than any valid datagram. */
  size: number;
  /** Addressed to another peer, or from a peer this one holds no pair key for. */
  unknownPair: number;
  /** A sequence already received, or too old to tell. */
  replay: number;
  /** Did not authenticate under the pair's key. */
  mac: number;
  /** A kind this end never takes from that source. */
  kind: number;
  /** From the rendezvous' address, refused: size, MAC, replay, malformed notice. */
  rendezvous: number;
  /** Datagrams sent to a peer with no path yet (still punching): dropped. */
  unreachable: number;
  /** Peer packets sent through the relay. */
  relayed: number;
  /** Sends the transport refused (threw), e.g. to an address it cannot reach: dropped. */
  sendFailed: number;
  /** Events dropped, oldest first, because nobody polled them. */
  eventsDropped: number;
}

/** The transport's own address when it is a specific one (not 0.0.0.0 / [::]). */
export function defaultCandidates(local: Address): Address[] {
  const parsed = parseAddress(local);
  if (parsed === null || parsed.host === '0.0.0.0' || parsed.host === '::') return [];
  return [local];
}
