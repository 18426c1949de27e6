/** The options and counters of `WebRtcServerTransport` (webrtc-server-transport.ts). */
import type { Address } from './address.js';
import { TransportCounters } from './transport.js';

export interface WebRtcServerTransportOptions {
  /** The one UDP port every peer shares (ICE UDP mux), 1..65535. Required. */
  port: number;
  /** The interface to bind (default "0.0.0.0": all IPv4 interfaces). */
  bindAddress?: string;
  /**
   * The IP clients reach the server at, when its interfaces do not carry it (NAT, cloud public
   * IP): answers then carry exactly one candidate, `publicIp`:`port`. Default: the candidates
   * libdatachannel gathers on `bindAddress`.
   */
  publicIp?: string;
  /** The address connect tokens list (default `publicIp` or `bindAddress` with `port`). */
  localAddress?: Address;
  /** Peers open at once; more offers are refused with 503 (default 256). */
  maxPeers?: number;
  /**
   * Peers one client may hold at once: one IPv4 address (mapped `::ffff:a.b.c.d` counted with
   * `a.b.c.d`) or one IPv6 /64; more offers are refused with 429 (default 4).
   */
  maxPeersPerAddress?: number;
  /** Offers accepted per client (as for maxPeersPerAddress) per second; more are refused with 429 (default 5). */
  offersPerSecond?: number;
  /** The longest offer SDP accepted, in bytes; longer are refused with 413 (default 16384). */
  maxSdpBytes?: number;
  /**
   * Seconds from the offer until the netcode handshake completes (the server sends the peer its
   * first keep-alive or payload); a peer that has not got there is closed and freed (default 10).
   */
  handshakeTimeout?: number;
  /** Seconds without a message from an established peer before it is closed (default 10). */
  idleTimeout?: number;
  /**
   * Incoming datagrams held until received, in each of two queues: established peers' and
   * handshaking peers', drained in that order (default 1024).
   */
  maxQueuedDatagrams?: number;
  /**
   * Messages a peer may send per second before its netcode handshake completes (a netcode client
   * sends 10), with a second's worth as burst; more are dropped (default 30).
   */
  handshakeDatagramsPerSecond?: number;
  /** Messages an established peer may send per second, a second's worth as burst (default 1000). */
  peerDatagramsPerSecond?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
  /** The largest datagram sent or accepted; larger messages are dropped and counted (default 1400). */
  maxDatagramSize?: number;
  /** Bytes a peer's channel may hold unsent before sends to it count undeliverable (default 262144). */
  maxBufferedBytes?: number;
}

/** What the transport counts beyond the datagram counters every transport keeps. */
export class WebRtcServerCounters extends TransportCounters {
  /** Peers open now (each holds one PeerConnection). */
  peers = 0;
  /** Offers answered (a peer was created for each). */
  offersAccepted = 0;
  /** Offers refused, any reason (the response says which). */
  offersRefused = 0;
  /** Of offersRefused: the client (address or IPv6 /64) already held maxPeersPerAddress. */
  offersRefusedPerAddress = 0;
  /** Peers whose netcode handshake had not completed within handshakeTimeout. */
  handshakeTimeouts = 0;
  /** Established peers closed after idleTimeout without a message. */
  idleTimeouts = 0;
  /** Peers freed for any reason (timeouts, the remote closing, a failed connection, close()). */
  peersClosed = 0;
  /** Messages over maxDatagramSize, dropped. */
  oversized = 0;
  /** Text messages (the protocol is binary), dropped. */
  textMessages = 0;
  /** Messages over their peer's rate, dropped. */
  overRate = 0;
}
