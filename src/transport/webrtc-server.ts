/**
 * The server end of the WebRTC transport, on node-datachannel (libdatachannel). Node-only: exported
 * from `ghostwire/webrtc`, never from the browser-safe entry point.
 */
import type { DataChannel, IceUdpMuxListener, PeerConnection } from 'node-datachannel';
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { type Address, formatAddress, parseHost } from './address.js';
import { DatagramRate } from './datagram-rate.js';
import { outgoingProgress } from './netcode-progress.js';
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
import { OfferRateLimit, readOffer, refusal, type SignalingResponse, withCandidate } from './webrtc-offer.js';
import { WebRtcServerCounters, type WebRtcServerTransportOptions } from './webrtc-server-options.js';

// node-datachannel (a native addon) is an optional package: loaded here so that only this entry needs it.
const { default: nodeDataChannel } = await importOptional(
  'node-datachannel',
  'ghostwire/webrtc',
  () => import('node-datachannel'),
);

export { WebRtcServerCounters, type WebRtcServerTransportOptions };

type NdPeerConnection = PeerConnection;
type NdDataChannel = DataChannel;

/** Seconds a peer stays open after the server sent it a netcode disconnect, so the packets leave. */
const DISCONNECT_LINGER = 0.5;
/** Seconds between sweeps for timed-out peers. */
const SWEEP_INTERVAL = 0.1;
/** Seconds the answer waits for its candidates; host candidates on the mux come at once. */
const GATHER_TIMEOUT = 2;

class Peer {
  channel: NdDataChannel | null = null;
  established = false;
  closeAt = Number.POSITIVE_INFINITY;
  lastReceive: number;
  freed = false;
  readonly rate: DatagramRate;
  constructor(
    readonly address: Address,
    readonly connection: NdPeerConnection,
    /** Its client's key in PeersPerAddress. */
    readonly client: string,
    readonly created: number,
    handshakeRate: number,
  ) {
    this.lastReceive = created;
    this.rate = new DatagramRate(handshakeRate, created);
  }
}

const seconds = (): number => performance.now() / 1000;

/**
 * WebRTC data channels as one `DatagramTransport` for a netcode Server. Every peer shares one UDP
 * port (libdatachannel's ICE UDP mux, held open for the transport's life by a mux listener), gets
 * an address of its own from `PeerAddresses`, and its channel's binary messages arrive as datagrams
 * from that address. Peers come from `handleOffer` (one HTTP round trip; see webrtc-signaling.ts).
 *
 * Timeouts run on the wall clock (`performance.now()`), checked on `update` and on each offer.
 */
export class WebRtcServerTransport implements DatagramTransport {
  readonly localAddress: Address;
  readonly port: number;
  readonly maxDatagramSize: number;
  readonly stats: WebRtcServerCounters = new WebRtcServerCounters();
  /** Datagrams from established peers, delivered first. */
  private readonly queue: DatagramQueue;
  /** Datagrams from peers still in their handshake. */
  private readonly handshakeQueue: DatagramQueue;
  private readonly addresses: PeerAddresses;
  private readonly peers = new Map<Address, Peer>();
  private readonly rate: OfferRateLimit;
  private readonly perAddress: PeersPerAddress;
  private readonly listener: IceUdpMuxListener;
  private readonly o: Required<Omit<WebRtcServerTransportOptions, 'publicIp' | 'localAddress'>> & {
    publicIp: string | undefined;
  };
  private lastUpdate = NO_TIME_YET;
  private nextSweep = 0;
  private isClosed = false;
  private peerNames = 0;

  /** Opens the UDP port; throws when it cannot be bound (in use, bad address). */
  constructor(options: WebRtcServerTransportOptions) {
    const where = 'WebRtcServerTransport';
    const {
      port,
      bindAddress = '0.0.0.0',
      publicIp,
      maxPeers = 256,
      maxPeersPerAddress = 4,
      offersPerSecond = 5,
      maxSdpBytes = 16384,
      handshakeTimeout = 10,
      idleTimeout = 10,
      maxQueuedDatagrams = DEFAULT_MAX_QUEUED_DATAGRAMS,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
      maxDatagramSize = 1400,
      maxBufferedBytes = 262144,
      handshakeDatagramsPerSecond = 30,
      peerDatagramsPerSecond = 1000,
    } = options;
    checkInteger(where, 'port', port, 1, 65535);
    if (parseHost(bindAddress) === null)
      throw new RangeError(`${where}: bindAddress ${bindAddress} is not an IP`);
    if (publicIp !== undefined && parseHost(publicIp) === null) {
      throw new RangeError(`${where}: publicIp ${publicIp} is not an IP`);
    }
    checkInteger(where, 'maxPeers', maxPeers, 1, 65536);
    checkInteger(where, 'maxPeersPerAddress', maxPeersPerAddress, 1, 65536);
    checkInteger(where, 'offersPerSecond', offersPerSecond, 1, 1 << 20);
    checkInteger(where, 'maxSdpBytes', maxSdpBytes, 256, 1 << 20);
    checkInteger(where, 'maxDatagramSize', maxDatagramSize, 1, 65536);
    checkInteger(where, 'maxBufferedBytes', maxBufferedBytes, 0, 1 << 30);
    checkInteger(where, 'handshakeDatagramsPerSecond', handshakeDatagramsPerSecond, 1, 1 << 20);
    checkInteger(where, 'peerDatagramsPerSecond', peerDatagramsPerSecond, 1, 1 << 20);
    checkInteger(where, 'maxDatagramsPerReceive', maxDatagramsPerReceive, 1, Number.MAX_SAFE_INTEGER);
    for (const [name, value] of [
      ['handshakeTimeout', handshakeTimeout],
      ['idleTimeout', idleTimeout],
    ] as const) {
      if (!(value > 0 && value <= 3600))
        throw new RangeError(`${where}: ${name} must be in (0, 3600] s, got ${value}`);
    }
    this.o = {
      port,
      bindAddress,
      publicIp,
      maxPeers,
      maxPeersPerAddress,
      offersPerSecond,
      maxSdpBytes,
      handshakeTimeout,
      idleTimeout,
      maxQueuedDatagrams,
      maxDatagramsPerReceive,
      maxDatagramSize,
      maxBufferedBytes,
      handshakeDatagramsPerSecond,
      peerDatagramsPerSecond,
    };
    this.port = port;
    this.maxDatagramSize = maxDatagramSize;
    this.localAddress = options.localAddress ?? formatAddress(publicIp ?? bindAddress, port);
    this.queue = new DatagramQueue(maxQueuedDatagrams, this.stats);
    this.handshakeQueue = new DatagramQueue(maxQueuedDatagrams, this.stats);
    this.addresses = new PeerAddresses(port, PEER_SPACE.webrtc);
    this.rate = new OfferRateLimit(offersPerSecond, 4096);
    this.perAddress = new PeersPerAddress(maxPeersPerAddress);
    // Holds the mux socket from now to close(): the port is taken (or the constructor throws) before
    // any offer, and the first peer does not wait for the socket to come up.
    this.listener = new nodeDataChannel.IceUdpMuxListener(port, bindAddress);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Peers open now. */
  get peerCount(): number {
    return this.peers.size;
  }

  /**
   * Answers one signalling request: `body` is the parsed JSON (`{ type: 'offer', sdp }`, the SDP
   * with its candidates), `remoteIp` the requester's, for the per-client bounds. Resolves to 200 with
   * `{ type: 'answer', sdp }`, or a 4xx / 503 with `{ error: reason }`. Never rejects.
   */
  async handleOffer(body: unknown, remoteIp: string): Promise<SignalingResponse> {
    const offer = this.checkOffer(body, remoteIp);
    if (typeof offer !== 'string') {
      this.stats.offersRefused++;
      return offer;
    }
    const client = this.perAddress.take(String(remoteIp));
    if (client === null) {
      this.stats.offersRefused++;
      this.stats.offersRefusedPerAddress++;
      return refusal(429, `this address holds its ${this.o.maxPeersPerAddress} peers`);
    }
    let connection: NdPeerConnection;
    try {
      connection = new nodeDataChannel.PeerConnection(`gw-${++this.peerNames}`, {
        iceServers: [],
        enableIceUdpMux: true,
        portRangeBegin: this.port,
        portRangeEnd: this.port,
        bindAddress: this.o.bindAddress,
      });
    } catch (error) {
      this.perAddress.release(client);
      this.stats.offersRefused++;
      return refusal(
        503,
        `no peer connection could be made: ${error instanceof Error ? error.message : error}`,
      );
    }
    const address = this.addresses.allocate();
    const peer = new Peer(address, connection, client, seconds(), this.o.handshakeDatagramsPerSecond);
    this.peers.set(address, peer);
    this.stats.peers = this.peers.size;
    connection.onStateChange((state) => {
      if (state === 'failed' || state === 'closed') this.free(peer);
    });
    connection.onDataChannel((channel) => this.attach(peer, channel));
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gathered = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, GATHER_TIMEOUT * 1000);
        connection.onGatheringStateChange((state) => {
          if (state === 'complete') resolve();
        });
      }).finally(() => clearTimeout(timer));
      // The client offers either DTLS role (actpass); taking it as active makes the server the
      // DTLS server, so the handshake starts from the client once it has the answer. Answering
      // active instead races the answer: the server's first flight can reach the client before it
      // knows the server's fingerprint, is dropped, and is resent only after DTLS's 1 s timer.
      try {
        connection.setRemoteDescription(offer.replace(/^a=setup:actpass/m, 'a=setup:active'), 'offer');
      } catch (error) {
        clearTimeout(timer);
        throw error;
      }
      await gathered;
      if (this.isClosed) {
        this.stats.offersRefused++;
        return refusal(503, 'the server is closed');
      }
      const answer = peer.freed ? null : connection.localDescription();
      if (answer === null) throw new Error('no answer was produced');
      const sdp =
        this.o.publicIp === undefined ? answer.sdp : withCandidate(answer.sdp, this.o.publicIp, this.port);
      this.stats.offersAccepted++;
      return { status: 200, body: { type: 'answer', sdp } };
    } catch (error) {
      this.free(peer);
      this.stats.offersRefused++;
      const message = error instanceof Error ? error.message : String(error);
      return refusal(400, `the offer was not accepted: ${message}`);
    }
  }

  /** The offer's SDP, or why it is refused before any peer is made. */
  private checkOffer(body: unknown, remoteIp: string): string | SignalingResponse {
    if (this.isClosed) return refusal(503, 'the server is closed');
    const sdp = readOffer(body, this.o.maxSdpBytes);
    if (typeof sdp !== 'string') return sdp;
    const now = seconds();
    if (!this.rate.allow(String(remoteIp), now)) {
      return refusal(429, `more than ${this.o.offersPerSecond} offers per second from this address`);
    }
    this.sweep(now);
    if (this.peers.size >= this.o.maxPeers)
      return refusal(503, `the server has its ${this.o.maxPeers} peers`);
    return sdp;
  }

  private attach(peer: Peer, channel: NdDataChannel): void {
    if (peer.freed || peer.channel !== null) {
      channel.close(); // one channel per peer: more are the client's mistake
      return;
    }
    peer.channel = channel;
    channel.onClosed(() => this.free(peer));
    channel.onMessage((message) => {
      if (peer.freed || this.isClosed) return;
      if (typeof message === 'string') {
        this.stats.textMessages++;
        return;
      }
      const data = message instanceof ArrayBuffer ? new Uint8Array(message) : message;
      if (data.length > this.maxDatagramSize) {
        this.stats.oversized++;
        return;
      }
      const now = seconds();
      if (!peer.rate.take(now)) {
        this.stats.overRate++;
        return;
      }
      peer.lastReceive = now;
      // node-datachannel hands each message a buffer of its own: queued as it is.
      (peer.established ? this.queue : this.handshakeQueue).pushAdopted(peer.address, data);
    });
  }

  send(to: Address, data: Uint8Array): void {
    if (this.isClosed)
      throw new Error(`WebRtcServerTransport.send: transport ${this.localAddress} is closed`);
    checkDatagram('WebRtcServerTransport.send', data, this.maxDatagramSize);
    this.stats.sent++;
    this.stats.bytesSent += data.length;
    const peer = this.peers.get(to);
    const channel = peer?.channel;
    if (peer === undefined || channel === undefined || channel === null || !channel.isOpen()) {
      this.stats.undeliverable++;
      return;
    }
    // The first keep-alive or payload marks the handshake complete; a disconnect ends the peer
    // once it has left.
    const progress = outgoingProgress(data);
    if (progress === 'connected' && !peer.established) {
      peer.established = true;
      peer.rate.setRate(this.o.peerDatagramsPerSecond);
    } else if (progress === 'disconnecting' && peer.closeAt === Number.POSITIVE_INFINITY) {
      peer.closeAt = seconds() + DISCONNECT_LINGER;
    }
    try {
      if (channel.bufferedAmount() > this.o.maxBufferedBytes) this.stats.undeliverable++;
      else channel.sendMessageBinary(data);
    } catch {
      this.stats.undeliverable++;
    }
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('WebRtcServerTransport.receive', handler, max, this.o.maxDatagramsPerReceive);
    if (this.isClosed) return 0;
    const where = 'WebRtcServerTransport.receive';
    const delivered = this.queue.drain(handler, limit, where);
    return delivered + this.handshakeQueue.drain(handler, limit - delivered, where);
  }

  /** Checks `now` by the stack's rule; closes timed-out peers (on the wall clock, every 0.1 s). */
  update(now: number): void {
    this.lastUpdate = checkTime('WebRtcServerTransport.update', now, this.lastUpdate);
    if (!this.isClosed) this.sweep(seconds());
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL;
    for (const peer of this.peers.values()) {
      if (!peer.established && now - peer.created > this.o.handshakeTimeout) {
        this.stats.handshakeTimeouts++;
        this.free(peer);
      } else if (peer.established && now - peer.lastReceive > this.o.idleTimeout) {
        this.stats.idleTimeouts++;
        this.free(peer);
      } else if (now >= peer.closeAt) {
        this.free(peer);
      }
    }
  }

  /** Closes a peer's channel and connection and forgets it; idempotent. */
  private free(peer: Peer): void {
    if (peer.freed) return;
    peer.freed = true;
    this.peers.delete(peer.address);
    this.perAddress.release(peer.client);
    this.stats.peers = this.peers.size;
    this.stats.peersClosed++;
    try {
      peer.channel?.close();
      peer.connection.close();
    } catch {
      // Already closed by the remote end.
    }
  }

  /** Closes every peer and the UDP port. Idempotent. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const peer of [...this.peers.values()]) this.free(peer);
    this.queue.clear();
    this.handshakeQueue.clear();
    this.listener.stop();
  }
}
