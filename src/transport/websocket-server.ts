/**
 * The server side of the WebSocket transport, on the `ws` package. Node-only: exported from
 * `ghostwire/node`, never from the browser-safe entry point.
 */
import { createServer, type Server as HttpServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { type Address, formatAddress, parseAddress, toAddress } from './address.js';
import { PEER_SPACE, PeerAddresses } from './peer-addresses.js';
import {
  checkDatagram,
  checkInteger,
  type DatagramHandler,
  DatagramQueue,
  type DatagramTransport,
  DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
  DEFAULT_MAX_QUEUED_DATAGRAMS,
  receiveLimit,
  TransportCounters,
  type TransportStats,
} from './transport.js';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_WEBSOCKET_MAX_DATAGRAM } from './websocket-client.js';

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
  /** Seconds a peer may go without the server sending it a datagram before it is closed (default 10). */
  peerTimeout?: number;
  /** Bytes a peer's socket may hold unsent; a send beyond is undeliverable (default 65536). */
  maxBufferedBytes?: number;
  /** Incoming datagrams held until received, from all peers; arrivals beyond are dropped (default 1024). */
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
  | 'timed out'
  | 'closed by peer'
  | 'closed by server'
  | 'transport closed';

export interface WebSocketServerStats extends TransportStats {
  /** Peers connected now. */
  readonly peersOpen: number;
  /** Peers accepted since the transport opened. */
  readonly peersAccepted: number;
  /** Upgrade requests refused: too many peers, another path (own port only), or the transport closed. */
  readonly peersRefused: number;
  /** Peers dropped for a frame over maxPayload. */
  readonly peersOversized: number;
  /** Peers dropped for a text frame. */
  readonly peersText: number;
  /** Peers dropped for a malformed frame (bad opcode, unmasked, bad close…). */
  readonly peersBadFrame: number;
  /** Peers closed after peerTimeout seconds without a datagram from the server. */
  readonly peersTimedOut: number;
  /** WebSockets not yet fully closed: open peers plus those finishing their close handshake. */
  readonly sockets: number;
}

class WebSocketServerCounters extends TransportCounters implements WebSocketServerStats {
  peersOpen = 0;
  peersAccepted = 0;
  peersRefused = 0;
  peersOversized = 0;
  peersText = 0;
  peersBadFrame = 0;
  peersTimedOut = 0;
  sockets = 0;
}

class Peer {
  /** The server's clock when it last sent this peer a datagram (or accepted it). */
  lastSend: number;
  gone = false;
  constructor(
    readonly address: Address,
    readonly socket: WebSocket,
    now: number,
  ) {
    this.lastSend = now;
  }
}

const OPEN = 1;
/** Seconds between timeout sweeps: peers are closed at most this late. */
const SWEEP_INTERVAL = 0.1;
/** Milliseconds a closing peer has to answer our close frame before its socket is destroyed. */
const CLOSE_GRACE_MS = 1000;
/** How long the own-port HTTP server waits for request headers, in milliseconds. */
const HEADERS_TIMEOUT_MS = 10_000;
const CLOSE_CODES: Record<PeerCloseReason, number> = {
  'oversized frame': 1009,
  'text frame': 1003,
  'bad frame': 1002,
  'timed out': 1008,
  'closed by peer': 1000,
  'closed by server': 1000,
  'transport closed': 1001,
};

/**
 * A `DatagramTransport` for a server whose clients come over WebSocket, one datagram per binary
 * frame. Each peer gets an address of its own from `PeerAddresses` (fd67:7771::/32 with this
 * transport's port, never reused); its frames are delivered `from` it and `send` to it reaches it.
 *
 * Refused: upgrades beyond `maxPeers` (HTTP 503); a frame over `maxPayload`, a text frame or a
 * malformed frame drops the peer, counted by reason. A peer the server has sent nothing to for
 * `peerTimeout` seconds is closed: the netcode server answers only requests with a valid token
 * and sends every connected client 10 keep-alives a second, so this frees the socket of a peer
 * that never connects at the netcode level, or whose netcode connection ended, without the
 * transport knowing netcode. Time is the server's: peers are swept in `update(now)`.
 */
export class WebSocketServerTransport implements DatagramTransport {
  readonly localAddress: Address;
  readonly maxDatagramSize: number;
  readonly maxDatagramsPerReceive: number;
  readonly stats: WebSocketServerStats;
  private readonly counters = new WebSocketServerCounters();
  private readonly queue: DatagramQueue;
  private readonly peers = new Map<Address, Peer>();
  private readonly addresses: PeerAddresses;
  private readonly wss: WebSocketServer;
  private readonly maxPeers: number;
  private readonly peerTimeout: number;
  private readonly maxBufferedBytes: number;
  private now = NO_TIME_YET;
  private nextSweep = NO_TIME_YET;
  private isClosed = false;

  /** Listens on its own port, or attaches to `options.server`; rejects with the listen error. */
  static async open(options: WebSocketServerTransportOptions = {}): Promise<WebSocketServerTransport> {
    const where = 'WebSocketServerTransport.open';
    let http = options.server;
    const own = http === undefined;
    if (!own && options.address !== undefined) {
      throw new RangeError(`${where}: give either address (a port of its own) or server, not both`);
    }
    if (http === undefined) {
      const text = options.address ?? '127.0.0.1:0';
      const local = parseAddress(text);
      if (local === null) throw new RangeError(`${where}: ${JSON.stringify(text)} is not an address`);
      const server = createServer((_request, response) => {
        response.writeHead(426, { Connection: 'close' }).end('WebSocket only\n');
      });
      server.headersTimeout = HEADERS_TIMEOUT_MS;
      server.requestTimeout = HEADERS_TIMEOUT_MS;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: local.host, port: local.port, ipv6Only: local.family === 6 }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      http = server;
    }
    const bound = http.address();
    let localAddress: Address;
    if (options.publicAddress !== undefined) localAddress = toAddress(options.publicAddress);
    else if (bound !== null && typeof bound === 'object')
      localAddress = formatAddress(bound.address, bound.port);
    else
      throw new RangeError(`${where}: the server is not listening yet; listen first or give publicAddress`);
    return new WebSocketServerTransport(http, own, localAddress, options);
  }

  private constructor(
    private readonly http: HttpServer,
    private readonly ownServer: boolean,
    localAddress: Address,
    options: WebSocketServerTransportOptions,
  ) {
    const where = 'WebSocketServerTransport.open';
    const {
      path,
      maxPayload = DEFAULT_WEBSOCKET_MAX_DATAGRAM,
      maxDatagramSize = DEFAULT_WEBSOCKET_MAX_DATAGRAM,
      maxPeers = 1024,
      peerTimeout = 10,
      maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES,
      maxQueuedDatagrams = DEFAULT_MAX_QUEUED_DATAGRAMS,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
    } = options;
    try {
      if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/'))) {
        throw new RangeError(`${where}: path must start with "/", got ${JSON.stringify(path)}`);
      }
      checkInteger(where, 'maxPayload', maxPayload, 1, 1 << 24);
      this.maxDatagramSize = checkInteger(where, 'maxDatagramSize', maxDatagramSize, 1, 1 << 24);
      this.maxPeers = checkInteger(where, 'maxPeers', maxPeers, 1, 1 << 20);
      if (!(peerTimeout > 0 && peerTimeout <= 3600)) {
        throw new RangeError(`${where}: peerTimeout must be in (0, 3600] seconds, got ${peerTimeout}`);
      }
      this.maxBufferedBytes = checkInteger(where, 'maxBufferedBytes', maxBufferedBytes, 0, 2 ** 31);
      checkInteger(where, 'maxQueuedDatagrams', maxQueuedDatagrams, 1, 1 << 24);
      this.maxDatagramsPerReceive = checkInteger(
        where,
        'maxDatagramsPerReceive',
        maxDatagramsPerReceive,
        1,
        Number.MAX_SAFE_INTEGER,
      );
    } catch (error) {
      if (ownServer) http.close();
      throw error;
    }
    this.localAddress = localAddress;
    this.peerTimeout = peerTimeout;
    this.stats = this.counters;
    this.queue = new DatagramQueue(maxQueuedDatagrams, this.counters);
    this.addresses = new PeerAddresses(parseAddress(localAddress)?.port ?? 0, PEER_SPACE.websocket);
    this.path = path;
    this.onPeerOpen = options.onPeerOpen;
    this.onPeerClose = options.onPeerClose;
    // Encrypted datagrams do not compress: no permessage-deflate, which would also hold sends.
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload,
      closeTimeout: CLOSE_GRACE_MS,
    } as ConstructorParameters<typeof WebSocketServer>[0]);
    http.on('upgrade', this.upgrade);
  }

  private readonly path: string | undefined;
  private readonly onPeerOpen: ((address: Address) => void) | undefined;
  private readonly onPeerClose: ((address: Address, reason: PeerCloseReason) => void) | undefined;

  get closed(): boolean {
    return this.isClosed;
  }

  /** The addresses of the peers connected now. */
  peerAddresses(): Address[] {
    return [...this.peers.keys()];
  }

  private readonly upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (this.path !== undefined && (request.url ?? '').split('?')[0] !== this.path) {
      // Another listener may serve that path on a shared server; alone, answer it.
      if (this.ownServer || this.http.listenerCount('upgrade') === 1) this.refuse(socket, 404, 'Not Found');
      return;
    }
    if (this.isClosed || this.peers.size >= this.maxPeers) {
      this.refuse(socket, 503, 'Service Unavailable');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, this.accept);
  };

  private refuse(socket: Duplex, status: number, text: string): void {
    this.counters.peersRefused++;
    socket.on('error', () => {});
    if (socket.writable)
      socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.destroy();
  }

  private readonly accept = (socket: WebSocket): void => {
    // Upgrades finish asynchronously: the bound is checked again for those that raced.
    if (this.isClosed || this.peers.size >= this.maxPeers) {
      this.counters.peersRefused++;
      socket.terminate();
      return;
    }
    const peer = new Peer(this.addresses.allocate(), socket, this.now);
    this.peers.set(peer.address, peer);
    const c = this.counters;
    c.peersAccepted++;
    c.peersOpen = this.peers.size;
    c.sockets++;
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (peer.gone) return;
      if (!isBinary) this.drop(peer, 'text frame');
      else this.queue.push(peer.address, data);
    });
    socket.on('error', (error: Error & { code?: string }) => {
      // ws reports a bad frame here and is already closing the socket.
      this.drop(peer, error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'oversized frame' : 'bad frame');
    });
    socket.on('close', () => {
      c.sockets--;
      this.drop(peer, 'closed by peer');
    });
    this.onPeerOpen?.(peer.address);
  };

  /** Forgets a peer (sends to it become undeliverable), closes its socket and counts why. */
  private drop(peer: Peer, reason: PeerCloseReason): void {
    if (peer.gone) return;
    peer.gone = true;
    this.peers.delete(peer.address);
    const c = this.counters;
    c.peersOpen = this.peers.size;
    if (reason === 'oversized frame') c.peersOversized++;
    else if (reason === 'text frame') c.peersText++;
    else if (reason === 'bad frame') c.peersBadFrame++;
    else if (reason === 'timed out') c.peersTimedOut++;
    if (peer.socket.readyState === OPEN) peer.socket.close(CLOSE_CODES[reason], reason);
    this.onPeerClose?.(peer.address, reason);
  }

  /** Closes the peer at `address` (code 1000); false when there is none. */
  closePeer(address: Address): boolean {
    const peer = this.peers.get(address);
    if (peer === undefined) return false;
    this.drop(peer, 'closed by server');
    return true;
  }

  send(to: Address, data: Uint8Array): void {
    if (this.isClosed)
      throw new Error(`WebSocketServerTransport.send: transport ${this.localAddress} is closed`);
    checkDatagram('WebSocketServerTransport.send', data, this.maxDatagramSize);
    const peer = this.peers.get(to);
    if (peer === undefined && parseAddress(to) === null) {
      throw new RangeError(`WebSocketServerTransport.send: ${JSON.stringify(to)} is not an address`);
    }
    this.counters.sent++;
    this.counters.bytesSent += data.length;
    if (peer === undefined) {
      this.counters.undeliverable++;
      return;
    }
    peer.lastSend = this.now;
    const socket = peer.socket;
    if (socket.readyState !== OPEN || socket.bufferedAmount > this.maxBufferedBytes) {
      this.counters.undeliverable++;
      return;
    }
    // A server's frames are not masked, so ws would write the caller's bytes by reference: copy.
    socket.send(Buffer.from(data));
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('WebSocketServerTransport.receive', handler, max, this.maxDatagramsPerReceive);
    if (this.isClosed) return 0;
    return this.queue.drain(handler, limit, 'WebSocketServerTransport.receive');
  }

  /** Keeps the server's time and closes peers silent past peerTimeout (checked 10 times a second). */
  update(now: number): void {
    this.now = checkTime('WebSocketServerTransport.update', now, this.now);
    if (this.isClosed || now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL;
    for (const peer of this.peers.values()) {
      // Accepted before the first update: its time starts now.
      if (peer.lastSend === NO_TIME_YET) peer.lastSend = now;
      else if (now - peer.lastSend > this.peerTimeout) this.drop(peer, 'timed out');
    }
  }

  /**
   * Closes every peer (code 1001), stops taking upgrades, and closes the port if it is its own;
   * idempotent. Peers that do not answer the close within a second are destroyed by ws.
   */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.queue.clear();
    this.http.off('upgrade', this.upgrade);
    for (const peer of this.peers.values()) this.drop(peer, 'transport closed');
    this.wss.close();
    if (this.ownServer) {
      this.http.close();
      this.http.closeAllConnections();
    }
  }
}
