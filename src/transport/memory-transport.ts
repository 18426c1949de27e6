import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { type Address, formatAddress, parseAddress } from './address.js';
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

export interface MemoryTransportOptions {
  /** Incoming datagrams held until received; arrivals beyond are dropped (default 1024). */
  maxQueuedDatagrams?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
}

export interface MemoryNetworkOptions extends MemoryTransportOptions {
  /** The largest datagram any transport on the network may send (default 65536). */
  maxDatagramSize?: number;
}

/** Ports handed out for `createTransport()` and port 0, as an operating system would. */
const EPHEMERAL_FIRST = 49152;
const EPHEMERAL_LAST = 65535;
const DEFAULT_HOST = '127.0.0.1';

/** What a MemoryNetwork counts. */
export interface MemoryNetworkStats {
  /** Datagrams sent to an address no open transport holds. */
  unroutable: number;
}

/** What a transport and its network call each other through (not public: see the WeakMaps). */
type Inbox = (from: Address, data: Uint8Array) => void;
interface Routing {
  route(from: Address, to: Address, data: Uint8Array): boolean;
  detach(transport: MemoryTransport): void;
  has(address: Address): boolean;
}
/** Each transport's inbox, registered by its constructor and read once by its network. */
const inboxes = new WeakMap<MemoryTransport, Inbox>();
/** Each network's routing, registered by its constructor and read once by each transport. */
const routings = new WeakMap<MemoryNetwork, Routing>();

/**
 * An in-process network. Transports created on it deliver to each other synchronously, in send
 * order, copying each datagram into the receiver's pooled queue; datagrams to addresses nobody
 * holds are dropped and counted (`undeliverable` on the sender, `unroutable` here).
 */
export class MemoryNetwork {
  readonly maxDatagramSize: number;
  private readonly counters: MemoryNetworkStats = { unroutable: 0 };
  private readonly transports = new Map<Address, MemoryTransport>();
  private readonly inboxes = new Map<Address, Inbox>();
  private readonly defaults: Required<MemoryTransportOptions>;
  private nextPort = EPHEMERAL_FIRST;

  constructor(options: MemoryNetworkOptions = {}) {
    const {
      maxDatagramSize = 65536,
      maxQueuedDatagrams = DEFAULT_MAX_QUEUED_DATAGRAMS,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
    } = options;
    this.maxDatagramSize = checkInteger('MemoryNetwork', 'maxDatagramSize', maxDatagramSize, 0, 1 << 30);
    this.defaults = { maxQueuedDatagrams, maxDatagramsPerReceive };
    routings.set(this, {
      route: (from, to, data) => this.route(from, to, data),
      detach: (transport) => this.detach(transport),
      has: (address) => this.inboxes.has(address),
    });
  }

  /** What the network has counted (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<MemoryNetworkStats> {
    return this.counters;
  }

  /** Open transports on this network. */
  get size(): number {
    return this.transports.size;
  }

  /** The open transport at `address`, if any. */
  get(address: Address): MemoryTransport | undefined {
    return this.transports.get(address);
  }

  /**
   * A transport at `address` (any address text; port 0 picks a free port on that host). Without
   * an address it gets 127.0.0.1 and a free port from 49152 up. Throws when the address is
   * malformed or already in use.
   */
  createTransport(address?: string, options: MemoryTransportOptions = {}): MemoryTransport {
    let local: Address;
    if (address === undefined) {
      local = this.freeAddress(DEFAULT_HOST);
    } else {
      const parsed = parseAddress(address);
      if (parsed === null) {
        throw new RangeError(`MemoryNetwork.createTransport: ${JSON.stringify(address)} is not an address`);
      }
      local = parsed.port === 0 ? this.freeAddress(parsed.host) : formatAddress(parsed.host, parsed.port);
    }
    if (this.transports.has(local)) {
      throw new Error(`MemoryNetwork.createTransport: address ${local} is already in use`);
    }
    const transport = new MemoryTransport(this, local, { ...this.defaults, ...options });
    this.transports.set(local, transport);
    this.inboxes.set(local, inboxes.get(transport) as Inbox);
    return transport;
  }

  private freeAddress(host: string): Address {
    const span = EPHEMERAL_LAST - EPHEMERAL_FIRST + 1;
    for (let i = 0; i < span; i++) {
      const port = this.nextPort;
      this.nextPort = port === EPHEMERAL_LAST ? EPHEMERAL_FIRST : port + 1;
      const candidate = formatAddress(host, port);
      if (!this.transports.has(candidate)) return candidate;
    }
    throw new Error(`MemoryNetwork.createTransport: no free port on ${host}`);
  }

  /**
   * Delivers `data` to the transport at `to` as if `from` sent it (any address: tests forge
   * sources with it); false, counted in `stats().unroutable`, when no transport holds `to`.
   */
  route(from: Address, to: Address, data: Uint8Array): boolean {
    const inbox = this.inboxes.get(to);
    if (inbox === undefined) {
      this.counters.unroutable++;
      return false;
    }
    inbox(from, data);
    return true;
  }

  private detach(transport: MemoryTransport): void {
    if (this.transports.get(transport.localAddress) === transport) {
      this.transports.delete(transport.localAddress);
      this.inboxes.delete(transport.localAddress);
    }
  }
}

/** One end on a `MemoryNetwork`; see `DatagramTransport`. Time plays no part: `update` is a no-op. */
export class MemoryTransport implements DatagramTransport {
  readonly localAddress: Address;
  readonly maxDatagramSize: number;
  readonly maxDatagramsPerReceive: number;
  private readonly counters = new TransportCounters();
  private readonly queue: DatagramQueue;
  private isClosed = false;
  private lastUpdate = NO_TIME_YET;
  private readonly network: Routing;

  /** @internal Use `MemoryNetwork.createTransport`. */
  constructor(network: MemoryNetwork, localAddress: Address, options: Required<MemoryTransportOptions>) {
    this.network = routings.get(network) as Routing;
    inboxes.set(this, (from, data) => this.queue.push(from, data));
    this.localAddress = localAddress;
    this.maxDatagramSize = network.maxDatagramSize;
    checkInteger('MemoryTransport', 'maxQueuedDatagrams', options.maxQueuedDatagrams, 1, 1 << 24);
    this.maxDatagramsPerReceive = checkInteger(
      'MemoryTransport',
      'maxDatagramsPerReceive',
      options.maxDatagramsPerReceive,
      1,
      Number.MAX_SAFE_INTEGER,
    );
    this.queue = new DatagramQueue(options.maxQueuedDatagrams, this.counters);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Bytes of pooled storage held by the receive queue. */
  get queueStorageBytes(): number {
    return this.queue.storageBytes;
  }

  /** The counters this transport keeps (live: read them, copy to keep a snapshot). */
  stats(): Readonly<TransportStats> {
    return this.counters;
  }

  send(to: Address, data: Uint8Array): void {
    if (this.isClosed) throw new Error(`MemoryTransport.send: transport ${this.localAddress} is closed`);
    checkDatagram('MemoryTransport.send', data, this.maxDatagramSize);
    if (!this.network.has(to)) {
      // The slow path: a typo must fail loudly; a peer that has gone is a counted drop.
      const parsed = parseAddress(to);
      if (parsed === null) {
        throw new RangeError(`MemoryTransport.send: ${JSON.stringify(to)} is not an address`);
      }
      const canonical = formatAddress(parsed.host, parsed.port);
      if (canonical !== to) to = canonical;
    }
    this.counters.sent++;
    this.counters.bytesSent += data.length;
    if (!this.network.route(this.localAddress, to, data)) this.counters.undeliverable++;
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('MemoryTransport.receive', handler, max, this.maxDatagramsPerReceive);
    if (this.isClosed) return 0;
    return this.queue.drain(handler, limit, 'MemoryTransport.receive');
  }

  /** Time plays no part here; `now` is still checked by the stack's one rule (see checkTime). */
  update(now: number): void {
    this.lastUpdate = checkTime('MemoryTransport.update', now, this.lastUpdate);
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.queue.clear();
    this.network.detach(this);
  }
}
