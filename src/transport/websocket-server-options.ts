/** The options, close reasons and counters of `WebSocketServerTransport` (websocket-server-transport.ts). */
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import type { Address } from './address.js';
import { TransportCounters, type TransportStats } from './transport.js';

export interface WebSocketServerTransportOptions {
  /** Listen on a port of its own: "127.0.0.1:0", "[::]:443"… (default "127.0.0.1:0" without `server`). */
  address?: string;
  /** Or attach to this listening HTTP(S) server: upgrade requests for `path` are taken. */
  server?: HttpServer;
  /** Only upgrades for this path ("/ghostwire") are taken (default: every path). */
  path?: string;
  /** The address connect tokens list for this server (default: the listening address). */
  publicAddress?: string;
  /** The largest frame a peer may send, in bytes; a larger one drops the peer (default 1400). */
  maxPayload?: number;
  /** The largest datagram send accepts, in bytes (default 1400). */
  maxDatagramSize?: number;
  /** Peers connected at once; more are refused with HTTP 503 (default 1024). */
  maxPeers?: number;
  /**
   * Peers one client may hold at once: one IPv4 address (mapped `::ffff:a.b.c.d` counted with
   * `a.b.c.d`) or one IPv6 /64; more are refused with HTTP 503 (default 16).
   */
  maxPeersPerAddress?: number;
  /**
   * The client's IP, for maxPeersPerAddress (default: the socket's remote address). Behind a
   * reverse proxy, read the proxy's header here, or every client is the proxy. A throw refuses that
   * upgrade with HTTP 400, counted in peersRefusedRemoteIp.
   */
  remoteIp?: (request: IncomingMessage) => string;
  /**
   * Seconds from the upgrade until the netcode handshake completes (the server sends the peer its
   * first keep-alive or payload); a peer that has not got there is closed (default 5).
   */
  handshakeTimeout?: number;
  /** Seconds a peer may go without the server sending it a datagram before it is closed (default 10). */
  peerTimeout?: number;
  /**
   * Datagrams a peer may send per second before its handshake completes (a netcode client sends
   * 10 requests or responses a second), with a second's worth as burst (default 30).
   */
  handshakeDatagramsPerSecond?: number;
  /** Datagrams a connected peer may send per second, with a second's worth as burst (default 1000). */
  peerDatagramsPerSecond?: number;
  /** Bytes a peer's socket may hold unsent; a send beyond is undeliverable (default 65536). */
  maxBufferedBytes?: number;
  /**
   * Incoming datagrams held until received, in each of two queues: connected peers' and
   * handshaking peers'; arrivals beyond are dropped (default 1024).
   */
  maxQueuedDatagrams?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
  /** Told when a peer is accepted. */
  onPeerOpen?: (address: Address) => void;
  /** Told when a peer is gone, and why. */
  onPeerClose?: (address: Address, reason: PeerCloseReason) => void;
}

export type PeerCloseReason =
  | 'oversized frame'
  | 'text frame'
  | 'bad frame'
  | 'handshake timeout'
  | 'timed out'
  | 'closed by peer'
  | 'closed by server'
  | 'transport closed';

export const CLOSE_CODES: Record<PeerCloseReason, number> = {
  'oversized frame': 1009,
  'text frame': 1003,
  'bad frame': 1002,
  'handshake timeout': 1008,
  'timed out': 1008,
  'closed by peer': 1000,
  'closed by server': 1000,
  'transport closed': 1001,
};

export interface WebSocketServerStats extends TransportStats {
  /** Peers connected now. */
  readonly peersOpen: number;
  /** Peers accepted since the transport opened. */
  readonly peersAccepted: number;
  /** Upgrade requests refused: too many peers, another path (own port only), or the transport closed. */
  readonly peersRefused: number;
  /** Of peersRefused: the client (address or IPv6 /64) already held maxPeersPerAddress. */
  readonly peersRefusedPerAddress: number;
  /** Of peersRefused: `remoteIp` threw for the upgrade request (HTTP 400). */
  readonly peersRefusedRemoteIp: number;
  /** Peers dropped for a frame over maxPayload. */
  readonly peersOversized: number;
  /** Peers dropped for a text frame. */
  readonly peersText: number;
  /** Peers dropped for a malformed frame (bad opcode, unmasked, bad close…). */
  readonly peersBadFrame: number;
  /** Peers closed for not completing the netcode handshake within handshakeTimeout. */
  readonly peersHandshakeTimedOut: number;
  /** Peers closed after peerTimeout seconds without a datagram from the server. */
  readonly peersTimedOut: number;
  /** Datagrams dropped because their peer was over its rate (its socket is paused meanwhile). */
  readonly overRate: number;
  /** WebSockets not yet fully closed: open peers plus those finishing their close handshake. */
  readonly sockets: number;
}

export class WebSocketServerCounters extends TransportCounters implements WebSocketServerStats {
  peersOpen = 0;
  peersAccepted = 0;
  peersRefused = 0;
  peersRefusedPerAddress = 0;
  peersRefusedRemoteIp = 0;
  peersOversized = 0;
  peersText = 0;
  peersBadFrame = 0;
  peersHandshakeTimedOut = 0;
  peersTimedOut = 0;
  overRate = 0;
  sockets = 0;
}
