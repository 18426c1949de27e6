/**
 * The server side of the WebSocket transport, on the `ws` package. Node-only: exported from
 * `ghostwire/websocket`, never from the browser-safe entry point.
 */
import { createServer, type Server as HttpServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { type Address, formatAddress, parseAddress, toAddress } from './address.js';
import { importOptional } from './optional-dependency.js';
import { PEER_SPACE, PeerAddresses } from './peer-addresses.js';
import { PeersPerAddress } from './peers-per-address.js';
import {
  checkDatagram,
  checkInteger,
  type DatagramHandler,
  DatagramQueue,
  type DatagramTransport,
  DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
  DEFAULT_MAX_QUEUED_DATAGRAMS,
  receiveLimit,
} from './transport.js';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_WEBSOCKET_MAX_DATAGRAM } from './websocket-client.js';
import { WebSocketPeer as Peer } from './websocket-peer.js';
import {
  CLOSE_CODES,
  type PeerCloseReason,
  WebSocketServerCounters,
  type WebSocketServerStats,
  type WebSocketServerTransportOptions,
} from './websocket-server-options.js';

// ws is an optional package: loaded here so that only this entry needs it.
const { WebSocketServer } = await importOptional('ws', 'ghostwire/websocket', () => import('ws'));

export type { PeerCloseReason, WebSocketServerStats, WebSocketServerTransportOptions };

const OPEN = 1;
/** Seconds between timeout sweeps: peers are closed at most this late. */
const SWEEP_INTERVAL = 0.1;
/** Milliseconds a closing peer has to answer our close frame before its socket is destroyed. */
const CLOSE_GRACE_MS = 1000;
/** Milliseconds the own-port HTTP server waits for request headers. */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * A `DatagramTransport` for a server whose clients come over WebSocket, one datagram per binary
 * frame. Each peer gets an address of its own from `PeerAddresses` (fd67:7771::/32 with this
 * transport's port, never reused); its frames are delivered `from` it and `send` to it reaches it.
 *
 * Refused: upgrades beyond `maxPeers`, or beyond `maxPeersPerAddress` from one client (HTTP 503);
 * a frame over `maxPayload`, a text frame or a malformed frame drops the peer, counted by reason.
 * The transport learns a peer's netcode progress from what the server sends it (see
 * netcode-progress.ts): a peer not sent a keep-alive or payload within `handshakeTimeout` of its
 * upgrade never completed the handshake and is closed; one the server has sent nothing to for
 * `peerTimeout` seconds has no netcode connection any more and is closed too.
 *
 * Each peer has a datagram rate (a lower one until its handshake completes); a frame over it is
 * dropped and the peer's socket paused, so TCP pushes back on the sender and its frames are not even
 * read: a connected peer until a second's allowance is back, a handshaking one for good (its
 * handshake deadline then closes it).
 * Handshaking peers' datagrams wait in a queue of their own, drained after connected peers', so
 * peers without a valid token cannot crowd out connected ones. Time is the server's: peers are
 * swept in `update(now)`.
 */
export class WebSocketServerTransport implements DatagramTransport {
  readonly localAddress: Address;
  readonly maxDatagramSize: number;
  readonly maxDatagramsPerReceive: number;
  readonly stats: WebSocketServerStats;
  private readonly counters = new WebSocketServerCounters();
  /** Datagrams from connected peers, delivered first. */
  private readonly queue: DatagramQueue;
  /** Datagrams from peers still in their handshake. */
  private readonly handshakeQueue: DatagramQueue;
  private readonly perAddress: PeersPerAddress;
  private readonly peers = new Map<Address, Peer>();
  private readonly addresses: PeerAddresses;
  private readonly wss: InstanceType<typeof WebSocketServer>;
  private readonly maxPeers: number;
  private readonly peerTimeout: number;
  private readonly handshakeTimeout: number;
  private readonly handshakeRate: number;
  private readonly peerRate: number;
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
      maxPeersPerAddress = 16,
      handshakeTimeout = 5,
      peerTimeout = 10,
      handshakeDatagramsPerSecond = 30,
      peerDatagramsPerSecond = 1000,
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
      checkInteger(where, 'maxPeersPerAddress', maxPeersPerAddress, 1, 1 << 20);
      for (const [name, value] of [
        ['peerTimeout', peerTimeout],
        ['handshakeTimeout', handshakeTimeout],
      ] as const) {
        if (!(value > 0 && value <= 3600))
          throw new RangeError(`${where}: ${name} must be in (0, 3600] seconds, got ${value}`);
      }
      checkInteger(where, 'handshakeDatagramsPerSecond', handshakeDatagramsPerSecond, 1, 1 << 20);
      checkInteger(where, 'peerDatagramsPerSecond', peerDatagramsPerSecond, 1, 1 << 20);
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
    this.handshakeTimeout = handshakeTimeout;
    this.handshakeRate = handshakeDatagramsPerSecond;
    this.peerRate = peerDatagramsPerSecond;
    this.stats = this.counters;
    this.queue = new DatagramQueue(maxQueuedDatagrams, this.counters);
    this.handshakeQueue = new DatagramQueue(maxQueuedDatagrams, this.counters);
    this.perAddress = new PeersPerAddress(maxPeersPerAddress);
    this.addresses = new PeerAddresses(parseAddress(localAddress)?.port ?? 0, PEER_SPACE.websocket);
    this.path = path;
    this.remoteIp = options.remoteIp ?? ((request) => request.socket.remoteAddress ?? 'unknown');
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
  private readonly remoteIp: (request: IncomingMessage) => string;
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
    let ip: string;
    try {
      ip = String(this.remoteIp(request));
    } catch {
      // A throw here would escape the 'upgrade' listener and end the process (a proxy-header
      // reader meeting a direct request without the header): that request alone is refused.
      this.counters.peersRefusedRemoteIp++;
      this.refuse(socket, 400, 'Bad Request');
      return;
    }
    // Counted from the upgrade on, so upgrades still finishing count against their client too.
    const client = this.perAddress.take(ip);
    if (client === null) {
      this.counters.peersRefusedPerAddress++;
      this.refuse(socket, 503, 'Service Unavailable');
      return;
    }
    let accepted = false;
    socket.once('close', () => {
      if (!accepted) this.perAddress.release(client);
    });
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      accepted = true;
      this.accept(ws, client);
    });
  };

  private refuse(socket: Duplex, status: number, text: string): void {
    this.counters.peersRefused++;
    socket.on('error', () => {});
    if (socket.writable)
      socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.destroy();
  }

  private accept(socket: WebSocket, client: string): void {
    // Upgrades finish asynchronously: the bound is checked again for those that raced.
    if (this.isClosed || this.peers.size >= this.maxPeers) {
      this.counters.peersRefused++;
      this.perAddress.release(client);
      socket.terminate();
      return;
    }
    const peer = new Peer(this.addresses.allocate(), socket, client, this.now, this.handshakeRate);
    this.peers.set(peer.address, peer);
    const c = this.counters;
    c.peersAccepted++;
    c.peersOpen = this.peers.size;
    c.sockets++;
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (peer.gone) return;
      if (!isBinary) this.drop(peer, 'text frame');
      else if (!peer.admit(this.now)) c.overRate++;
      else (peer.connected ? this.queue : this.handshakeQueue).push(peer.address, data);
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
  }

  /** Forgets a peer (sends to it become undeliverable), closes its socket and counts why. */
  private drop(peer: Peer, reason: PeerCloseReason): void {
    if (peer.gone) return;
    peer.gone = true;
    this.peers.delete(peer.address);
    this.perAddress.release(peer.client);
    const c = this.counters;
    c.peersOpen = this.peers.size;
    if (reason === 'oversized frame') c.peersOversized++;
    else if (reason === 'text frame') c.peersText++;
    else if (reason === 'bad frame') c.peersBadFrame++;
    else if (reason === 'timed out') c.peersTimedOut++;
    else if (reason === 'handshake timeout') c.peersHandshakeTimedOut++;
    // A paused peer's answer to a close frame would never be read: its socket goes at once.
    if (peer.paused) peer.socket.terminate();
    else if (peer.socket.readyState === OPEN) peer.socket.close(CLOSE_CODES[reason], reason);
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
    peer.noteSend(data, this.peerRate);
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
    const where = 'WebSocketServerTransport.receive';
    const delivered = this.queue.drain(handler, limit, where);
    return delivered + this.handshakeQueue.drain(handler, limit - delivered, where);
  }

  /**
   * Keeps the server's time; closes peers past handshakeTimeout or peerTimeout and resumes paused
   * ones whose allowance is back (checked 10 times a second).
   */
  update(now: number): void {
    this.now = checkTime('WebSocketServerTransport.update', now, this.now);
    if (this.isClosed || now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL;
    for (const peer of this.peers.values()) {
      // Accepted before the first update: its time starts now.
      if (peer.lastSend === NO_TIME_YET) peer.lastSend = now;
      if (peer.opened === NO_TIME_YET) peer.opened = now;
      if (!peer.connected && now - peer.opened > this.handshakeTimeout) this.drop(peer, 'handshake timeout');
      else if (now - peer.lastSend > this.peerTimeout) this.drop(peer, 'timed out');
      else peer.resumeIfDue(now);
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
    this.handshakeQueue.clear();
    this.http.off('upgrade', this.upgrade);
    for (const peer of this.peers.values()) this.drop(peer, 'transport closed');
    this.wss.close();
    if (this.ownServer) {
      this.http.close();
      this.http.closeAllConnections();
    }
  }
}
