/**
 * The client side of the WebSocket transport: one WebSocket to a server, one datagram per binary
 * frame. Browser-safe: it uses the standard WebSocket API only, taken from the options so Node can
 * pass the `ws` package's.
 */
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { type Address, formatAddress, parseAddress, toAddress } from './address.js';
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

/**
 * The part of the standard WebSocket this transport uses. The browser's and the `ws` package's
 * both fit; the handler properties are `unknown` here because their event types differ.
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: unknown;
  onmessage: unknown;
  onclose: unknown;
  onerror: unknown;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** What the handlers are actually given. */
interface WebSocketHandlers {
  onopen: (() => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: (() => void) | null;
}

export type WebSocketClientState = 'connecting' | 'open' | 'closed';

export interface WebSocketCloseInfo {
  /** The close code (1006 when the connection dropped without a close frame). */
  readonly code: number;
  readonly reason: string;
}

export interface WebSocketClientTransportOptions {
  /** The server's WebSocket URL: "wss://game.example.com/ghostwire". */
  url: string;
  /** The server address the connect token lists: datagrams come from it and go only to it. */
  serverAddress: string;
  /** The WebSocket class (default: globalThis.WebSocket; Node 20 has none, pass `ws`'s). */
  WebSocket?: WebSocketConstructor;
  /** Incoming datagrams held until received; arrivals beyond are dropped (default 1024). */
  maxQueuedDatagrams?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
  /** The largest datagram sent or accepted, in bytes (default 1400; larger frames are refused). */
  maxDatagramSize?: number;
  /** Datagrams sent before the socket opens, held and sent on open; more are undeliverable (default 8). */
  maxSendsBeforeOpen?: number;
  /** Bytes the socket may hold unsent; a send beyond is undeliverable rather than delayed (default 65536). */
  maxBufferedBytes?: number;
}

export interface WebSocketClientStats extends TransportStats {
  /** Frames from the server that were not datagrams: text, or over maxDatagramSize. */
  readonly refusedFrames: number;
}

class WebSocketClientCounters extends TransportCounters implements WebSocketClientStats {
  refusedFrames = 0;
}

/** Netcode packets are at most 1300 bytes; a little room above that, and nothing near a TCP window. */
export const DEFAULT_WEBSOCKET_MAX_DATAGRAM = 1400;
export const DEFAULT_MAX_BUFFERED_BYTES = 65536;
const OPEN = 1;
/** Nobody knows the browser's own address; this end names itself "unspecified". */
const UNSPECIFIED = formatAddress('::', 0);

/**
 * A `DatagramTransport` over one WebSocket: every datagram received is delivered from
 * `serverAddress`, and `send` sends only to it (other addresses are counted undeliverable), so the
 * netcode Client runs over it unchanged.
 *
 * Datagrams sent while connecting are held (copied, up to `maxSendsBeforeOpen`) and sent on open,
 * so the first connection request is not lost; the netcode client resends every 100 ms anyway.
 * A socket that stays congested (more than `maxBufferedBytes` unsent) drops new datagrams and
 * counts them undeliverable, as a full UDP buffer would, instead of delaying them all.
 *
 * When the server closes the socket, `state` becomes 'closed' but the transport stays usable
 * (`closed` is false): sends are counted undeliverable and the netcode client times out as over
 * UDP. Only `close()` makes `closed` true.
 */
export class WebSocketClientTransport implements DatagramTransport {
  readonly localAddress: Address = UNSPECIFIED;
  readonly serverAddress: Address;
  readonly url: string;
  readonly maxDatagramSize: number;
  readonly maxDatagramsPerReceive: number;
  /** Resolves true once the socket opens, false if it closed first. Never rejects. */
  readonly opened: Promise<boolean>;
  /** Resolves when the socket has closed, by either end. Never rejects. */
  readonly ended: Promise<WebSocketCloseInfo>;
  private stateValue: WebSocketClientState = 'connecting';
  private closeDetails: WebSocketCloseInfo | null = null;
  private readonly counters = new WebSocketClientCounters();
  private readonly queue: DatagramQueue;
  private readonly socket: WebSocketLike;
  private readonly maxSendsBeforeOpen: number;
  private readonly maxBufferedBytes: number;
  private beforeOpen: Uint8Array[] = [];
  private lastUpdate = NO_TIME_YET;
  private isClosed = false;

  /** Starts connecting at once; throws at the call on a malformed URL or address, or no WebSocket class. */
  constructor(options: WebSocketClientTransportOptions) {
    const where = 'WebSocketClientTransport';
    const {
      url,
      serverAddress,
      WebSocket: Socket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket,
      maxQueuedDatagrams = DEFAULT_MAX_QUEUED_DATAGRAMS,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
      maxDatagramSize = DEFAULT_WEBSOCKET_MAX_DATAGRAM,
      maxSendsBeforeOpen = 8,
      maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES,
    } = options;
    if (typeof url !== 'string') throw new TypeError(`${where}: url must be a string`);
    if (typeof Socket !== 'function') {
      throw new TypeError(
        `${where}: no WebSocket class here; pass one as options.WebSocket (e.g. the ws package's)`,
      );
    }
    this.serverAddress = toAddress(serverAddress);
    this.url = url;
    checkInteger(where, 'maxQueuedDatagrams', maxQueuedDatagrams, 1, 1 << 24);
    this.maxDatagramsPerReceive = checkInteger(
      where,
      'maxDatagramsPerReceive',
      maxDatagramsPerReceive,
      1,
      Number.MAX_SAFE_INTEGER,
    );
    this.maxDatagramSize = checkInteger(where, 'maxDatagramSize', maxDatagramSize, 1, 1 << 24);
    this.maxSendsBeforeOpen = checkInteger(where, 'maxSendsBeforeOpen', maxSendsBeforeOpen, 0, 1024);
    this.maxBufferedBytes = checkInteger(where, 'maxBufferedBytes', maxBufferedBytes, 0, 2 ** 31);
    this.queue = new DatagramQueue(maxQueuedDatagrams, this.counters);

    let settleOpened: (open: boolean) => void = () => {};
    let settleEnded: (info: WebSocketCloseInfo) => void = () => {};
    this.opened = new Promise((resolve) => {
      settleOpened = resolve;
    });
    this.ended = new Promise((resolve) => {
      settleEnded = resolve;
    });
    const socket = new Socket(url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    const handlers = socket as unknown as WebSocketHandlers;
    handlers.onopen = () => {
      if (this.stateValue !== 'connecting') return;
      this.stateValue = 'open';
      const held = this.beforeOpen;
      this.beforeOpen = [];
      for (const data of held) this.transmit(data);
      settleOpened(true);
    };
    handlers.onmessage = (event) => this.arrive(event.data);
    handlers.onclose = (event) => {
      this.markClosed({ code: event.code, reason: event.reason });
      settleOpened(false);
      settleEnded(this.closeDetails as WebSocketCloseInfo);
    };
    // An error is always followed by close, which carries what there is to know.
    handlers.onerror = () => {};
  }

  get state(): WebSocketClientState {
    return this.stateValue;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** How the socket closed, once it has. */
  get closeInfo(): WebSocketCloseInfo | null {
    return this.closeDetails;
  }

  private markClosed(info: WebSocketCloseInfo): void {
    if (this.closeDetails === null) this.closeDetails = info;
    this.stateValue = 'closed';
    this.counters.undeliverable += this.beforeOpen.length;
    this.beforeOpen = [];
  }

  private arrive(data: unknown): void {
    if (this.isClosed) return;
    if (!(data instanceof ArrayBuffer) || data.byteLength > this.maxDatagramSize) {
      this.counters.refusedFrames++;
      return;
    }
    // Each message has an ArrayBuffer of its own: queue it as it is.
    this.queue.pushAdopted(this.serverAddress, new Uint8Array(data));
  }

  /** The counters this transport keeps (live: read them, copy to keep a snapshot). */
  stats(): Readonly<WebSocketClientStats> {
    return this.counters;
  }

  send(to: Address, data: Uint8Array): void {
    if (this.isClosed) throw new Error(`WebSocketClientTransport.send: transport to ${this.url} is closed`);
    checkDatagram('WebSocketClientTransport.send', data, this.maxDatagramSize);
    if (to !== this.serverAddress && parseAddress(to) === null) {
      throw new RangeError(`WebSocketClientTransport.send: ${JSON.stringify(to)} is not an address`);
    }
    this.counters.sent++;
    this.counters.bytesSent += data.length;
    if (to !== this.serverAddress) {
      this.counters.undeliverable++;
    } else if (this.stateValue === 'open') {
      this.transmit(data);
    } else if (this.stateValue === 'connecting' && this.beforeOpen.length < this.maxSendsBeforeOpen) {
      this.beforeOpen.push(data.slice());
    } else {
      this.counters.undeliverable++;
    }
  }

  /** Hands one datagram to the open socket, which copies it (browsers, and `ws` as it masks). */
  private transmit(data: Uint8Array): void {
    const socket = this.socket;
    if (socket.readyState !== OPEN || socket.bufferedAmount > this.maxBufferedBytes) {
      this.counters.undeliverable++;
      return;
    }
    socket.send(data);
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('WebSocketClientTransport.receive', handler, max, this.maxDatagramsPerReceive);
    if (this.isClosed) return 0;
    return this.queue.drain(handler, limit, 'WebSocketClientTransport.receive');
  }

  /** Time plays no part here; `now` is still checked by the stack's one rule (see checkTime). */
  update(now: number): void {
    this.lastUpdate = checkTime('WebSocketClientTransport.update', now, this.lastUpdate);
  }

  /** Closes the socket (code 1000) and the transport; idempotent. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.queue.clear();
    this.beforeOpen = [];
    if (this.stateValue !== 'closed') {
      this.markClosed({ code: 1000, reason: 'closed by the client' });
      try {
        this.socket.close(1000);
      } catch {
        // Already closing.
      }
    }
  }
}
