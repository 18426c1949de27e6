/**
 * The browser end of the WebRTC transport: one unordered, no-retransmit data channel to the
 * server, on the standard RTCPeerConnection API. Browser-safe (no Node modules); in Node pass
 * node-datachannel's polyfill as `RTCPeerConnection`.
 */
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { type Address, formatAddress, isAddress } from './address.js';
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

/** The RTCPeerConnection constructor the transport uses (the browser's, or a polyfill). */
export type RtcPeerConnectionConstructor = new (configuration?: RTCConfiguration) => RTCPeerConnection;
/** The fetch the signalling request uses. */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export interface WebRtcClientTransportOptions {
  /** The server's signalling URL (POST offer → answer). */
  signalingUrl: string;
  /** The server's address as the connect token lists it: datagrams come from it and go only to it. */
  serverAddress: Address;
  /** Default: globalThis.RTCPeerConnection. */
  RTCPeerConnection?: RtcPeerConnectionConstructor;
  /** Default: globalThis.fetch. */
  fetch?: FetchFunction;
  /** ICE servers (default none: the server is reached directly on its one UDP port). */
  iceServers?: RTCIceServer[];
  /** Seconds from the start until the channel is open; then the transport fails (default 10). */
  connectTimeout?: number;
  /** Seconds to wait for ICE gathering before the offer goes with the candidates it has (default 1). */
  gatheringTimeout?: number;
  /** Incoming datagrams held until received (default 1024). */
  maxQueuedDatagrams?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
  /** The largest datagram send accepts (default 1400). */
  maxDatagramSize?: number;
  /** Bytes the channel may hold unsent before sends count undeliverable (default 262144). */
  maxBufferedBytes?: number;
}

export type WebRtcClientState = 'connecting' | 'open' | 'failed' | 'closed';

/** The client does not know its own address as the server sees it: it reports this one. */
const UNKNOWN_ADDRESS = formatAddress('0.0.0.0', 0);

/**
 * A `DatagramTransport` with one peer, the server: it connects at construction (one HTTP round
 * trip of signalling, then ICE and DTLS) and `opened` settles when the channel opens or the
 * connection fails. Sends before the channel is open count undeliverable (the netcode client
 * resends its requests), so start the netcode client after `await transport.opened`.
 */
export class WebRtcClientTransport implements DatagramTransport {
  readonly localAddress: Address = UNKNOWN_ADDRESS;
  readonly serverAddress: Address;
  readonly maxDatagramSize: number;
  private readonly counters = new TransportCounters();
  /** Resolves when the data channel opens; rejects (an Error with the reason) if it never does. */
  readonly opened: Promise<void>;
  /** Why the connection failed or closed, once it has. */
  failure: string | null = null;
  /** Seconds from construction to the channel opening (NaN until then). */
  connectSeconds = Number.NaN;
  private currentState: WebRtcClientState = 'connecting';
  private readonly queue: DatagramQueue;
  private readonly maxDatagramsPerReceive: number;
  private readonly maxBufferedBytes: number;
  private readonly connection: RTCPeerConnection;
  private readonly channel: RTCDataChannel;
  private lastUpdate = NO_TIME_YET;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private settle: { resolve: () => void; reject: (error: Error) => void } | null = null;

  constructor(options: WebRtcClientTransportOptions) {
    const where = 'WebRtcClientTransport';
    const {
      signalingUrl,
      serverAddress,
      RTCPeerConnection: Connection = globalThis.RTCPeerConnection,
      fetch: fetchFunction = globalThis.fetch?.bind(globalThis),
      iceServers = [],
      connectTimeout = 10,
      gatheringTimeout = 1,
      maxQueuedDatagrams = DEFAULT_MAX_QUEUED_DATAGRAMS,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
      maxDatagramSize = 1400,
      maxBufferedBytes = 262144,
    } = options;
    if (typeof signalingUrl !== 'string') throw new TypeError(`${where}: signalingUrl must be a string`);
    if (!isAddress(serverAddress)) {
      throw new RangeError(
        `${where}: serverAddress ${JSON.stringify(serverAddress)} is not a canonical address`,
      );
    }
    if (typeof Connection !== 'function')
      throw new TypeError(`${where}: no RTCPeerConnection here; pass one`);
    if (typeof fetchFunction !== 'function') throw new TypeError(`${where}: no fetch here; pass one`);
    for (const [name, value] of [
      ['connectTimeout', connectTimeout],
      ['gatheringTimeout', gatheringTimeout],
    ] as const) {
      if (!(value > 0 && value <= 600))
        throw new RangeError(`${where}: ${name} must be in (0, 600] s, got ${value}`);
    }
    checkInteger(where, 'maxDatagramSize', maxDatagramSize, 1, 65536);
    checkInteger(where, 'maxBufferedBytes', maxBufferedBytes, 0, 1 << 30);
    checkInteger(where, 'maxDatagramsPerReceive', maxDatagramsPerReceive, 1, Number.MAX_SAFE_INTEGER);
    this.serverAddress = serverAddress;
    this.maxDatagramSize = maxDatagramSize;
    this.maxDatagramsPerReceive = maxDatagramsPerReceive;
    this.maxBufferedBytes = maxBufferedBytes;
    this.queue = new DatagramQueue(maxQueuedDatagrams, this.counters);
    this.opened = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Nobody may await `opened` (the state says it all); an unhandled rejection must not kill the page.
    this.opened.catch(() => {});

    const started = performance.now();
    this.connection = new Connection({ iceServers });
    this.channel = this.connection.createDataChannel('ghostwire', { ordered: false, maxRetransmits: 0 });
    this.channel.binaryType = 'arraybuffer';
    this.channel.onopen = () => {
      if (this.currentState !== 'connecting') return;
      clearTimeout(this.timer);
      this.connectSeconds = (performance.now() - started) / 1000;
      this.currentState = 'open';
      this.settle?.resolve();
      this.settle = null;
    };
    // Closed by the server (or the network): 'failed', not 'closed', so sends count undeliverable
    // instead of throwing at a caller who closed nothing.
    this.channel.onclose = () => this.fail('the data channel closed');
    this.channel.onmessage = (event: MessageEvent) => this.deliver(event.data);
    this.connection.onconnectionstatechange = () => {
      if (this.connection.connectionState === 'failed') this.fail('the peer connection failed');
    };
    this.timer = setTimeout(
      () => this.fail(`the data channel did not open within ${connectTimeout} s`),
      connectTimeout * 1000,
    );
    this.signal(signalingUrl, fetchFunction, gatheringTimeout).catch((error: unknown) => {
      this.fail(`signalling failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** One round trip: the offer with all its candidates (or those gathered in time), the answer back. */
  private async signal(url: string, fetchFunction: FetchFunction, gatheringTimeout: number): Promise<void> {
    const connection = this.connection;
    await connection.setLocalDescription(await connection.createOffer());
    await new Promise<void>((resolve) => {
      if (connection.iceGatheringState === 'complete') return resolve();
      const timer = setTimeout(resolve, gatheringTimeout * 1000);
      connection.addEventListener('icegatheringstatechange', () => {
        if (connection.iceGatheringState !== 'complete') return;
        clearTimeout(timer);
        resolve();
      });
    });
    if (this.currentState !== 'connecting') return;
    const offer = connection.localDescription;
    if (offer === null) throw new Error('no local description');
    const response = await fetchFunction(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'offer', sdp: offer.sdp }),
    });
    const body = (await response.json().catch(() => null)) as { sdp?: unknown; error?: unknown } | null;
    if (!response.ok) {
      const reason = typeof body?.error === 'string' ? body.error : 'no reason given';
      throw new Error(`the server answered ${response.status}: ${reason}`);
    }
    if (typeof body?.sdp !== 'string') throw new Error('the answer has no sdp');
    if (this.currentState !== 'connecting') return;
    await connection.setRemoteDescription({ type: 'answer', sdp: body.sdp });
  }

  private deliver(data: unknown): void {
    if (this.currentState !== 'open') return;
    if (!(data instanceof ArrayBuffer)) return; // text is not part of the protocol
    if (data.byteLength > this.maxDatagramSize) {
      this.counters.dropped++;
      return;
    }
    // Each message event carries an ArrayBuffer of its own: queued as it is.
    this.queue.pushAdopted(this.serverAddress, new Uint8Array(data));
  }

  private fail(reason: string): void {
    if (this.currentState === 'failed' || this.currentState === 'closed') return;
    this.currentState = 'failed';
    this.failure = reason;
    clearTimeout(this.timer);
    this.settle?.reject(new Error(`WebRtcClientTransport: ${reason}`));
    this.settle = null;
    this.release();
  }

  private release(): void {
    this.channel.onopen = this.channel.onclose = this.channel.onmessage = null;
    this.connection.onconnectionstatechange = null;
    try {
      this.channel.close();
      this.connection.close();
    } catch {
      // Already closed.
    }
  }

  /** 'connecting' until the channel opens, then 'open'; 'failed' or 'closed' at the end (see `failure`). */
  get state(): WebRtcClientState {
    return this.currentState;
  }

  get closed(): boolean {
    return this.currentState === 'closed';
  }

  /** The counters this transport keeps (live: read them, copy to keep a snapshot). */
  stats(): Readonly<TransportStats> {
    return this.counters;
  }

  send(to: Address, data: Uint8Array): void {
    if (this.currentState === 'closed') throw new Error('WebRtcClientTransport.send: transport is closed');
    checkDatagram('WebRtcClientTransport.send', data, this.maxDatagramSize);
    this.counters.sent++;
    this.counters.bytesSent += data.length;
    if (to !== this.serverAddress || this.currentState !== 'open') {
      this.counters.undeliverable++;
      return;
    }
    try {
      if (this.channel.bufferedAmount > this.maxBufferedBytes) this.counters.undeliverable++;
      // The channel copies the bytes before send returns; the view's own range is what goes.
      else this.channel.send(data as Uint8Array<ArrayBuffer>);
    } catch {
      this.counters.undeliverable++;
    }
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('WebRtcClientTransport.receive', handler, max, this.maxDatagramsPerReceive);
    if (this.currentState === 'closed') return 0;
    return this.queue.drain(handler, limit, 'WebRtcClientTransport.receive');
  }

  /** The channel is event driven; `now` is still checked by the stack's one rule (see checkTime). */
  update(now: number): void {
    this.lastUpdate = checkTime('WebRtcClientTransport.update', now, this.lastUpdate);
  }

  /** Closes the channel and the connection; idempotent. Queued datagrams are discarded. */
  close(): void {
    if (this.currentState === 'closed') return;
    const wasLive = this.currentState === 'connecting' || this.currentState === 'open';
    this.currentState = 'closed';
    this.failure ??= 'closed by the application';
    clearTimeout(this.timer);
    this.settle?.reject(new Error('WebRtcClientTransport: closed before the channel opened'));
    this.settle = null;
    this.queue.clear();
    if (wasLive) this.release();
  }
}
