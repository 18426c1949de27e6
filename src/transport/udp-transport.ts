/**
 * UDP datagrams over node:dgram. Node-only: not exported from the browser-safe entry points; import
 * it from this module.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
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
  PooledDatagram,
  receiveLimit,
  TransportCounters,
  type TransportStats,
} from './transport.js';

export interface UdpTransportOptions {
  /** Where to bind: "127.0.0.1:0", "[::1]:0", "0.0.0.0:40000"… (default "127.0.0.1:0"). IPv6 sockets are IPv6-only. */
  address?: string;
  /** SO_SNDBUF in bytes (default: the system's). */
  sendBufferSize?: number;
  /** SO_RCVBUF in bytes (default: the system's). */
  receiveBufferSize?: number;
  /** Incoming datagrams held until received; arrivals beyond are dropped (default 1024). */
  maxQueuedDatagrams?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
  /** The largest datagram send accepts (default and maximum: 65507 for IPv4, 65527 for IPv6). */
  maxDatagramSize?: number;
  /** Sends handed to the socket and not yet completed; more are dropped and counted (default 1024). */
  maxPendingSends?: number;
  /** Told of socket errors while open (errors after close are ignored). */
  onError?: (error: Error) => void;
  /**
   * For a client of one server (default false): the socket is connected to the address it sends
   * to, and connected again when that changes (which may change localAddress: the kernel lets go
   * of a port it chose when the socket disconnects). A connected socket sends without node:dgram's
   * per-datagram address lookup (a closure and a deferred call) and without the kernel's per-send
   * route lookup, and the kernel drops datagrams from any other source. The kernel also reports
   * the peer's port unreachable (ECONNREFUSED: lastError, onError, sends counted undeliverable).
   */
  connectToPeer?: boolean;
}

const MAX_UDP_PAYLOAD_IPV4 = 65507;
const MAX_UDP_PAYLOAD_IPV6 = 65527;
/** The time-to-live datagrams carry unless sendWithTtl says otherwise (Linux's default). */
const DEFAULT_TTL = 64;
/** Distinct peer addresses remembered (parsed or formatted) before the memo is cleared. */
const ADDRESS_MEMO_LIMIT = 4096;

interface Target {
  readonly host: string;
  readonly port: number;
}

/** A pooled copy of an outgoing datagram, with its completion callback made once. */
class PendingSend extends PooledDatagram {
  readonly done: (error: Error | null) => void;
  constructor(finished: (pending: PendingSend, error: Error | null) => void) {
    super();
    this.done = (error) => finished(this, error);
  }
}

/**
 * A UDP socket as a `DatagramTransport`. Incoming datagrams queue (bounded, drops counted) until
 * receive; each outgoing datagram is copied into a pooled buffer before the socket sees it, so the
 * caller may reuse its own at once even when the kernel buffer is full and the send completes
 * later. Only IP literals are accepted: no DNS lookups happen.
 */
export class UdpTransport implements DatagramTransport {
  readonly family: 4 | 6;
  readonly maxDatagramSize: number;
  readonly maxDatagramsPerReceive: number;
  /** The last socket or asynchronous send error while open, if any. */
  lastError: Error | null = null;
  private readonly counters: TransportCounters;
  private readonly queue: DatagramQueue;
  private readonly maxPendingSends: number;
  private readonly freeSends: PendingSend[] = [];
  private pendingSends = 0;
  private lastUpdate = NO_TIME_YET;
  private isClosed = false;
  private readonly targets = new Map<string, Target>();
  private readonly sources = new Map<string, Map<number, Address>>();
  private sourceCount = 0;
  private readonly connectToPeer: boolean;
  /** With connectToPeer: the address the socket is connected to (null: not connected). */
  private peer: Address | null = null;
  private local: Address;

  /** Binds a socket; rejects with the socket's error (e.g. EADDRINUSE, EADDRNOTAVAIL). */
  static async open(options: UdpTransportOptions = {}): Promise<UdpTransport> {
    const text = options.address ?? '127.0.0.1:0';
    const local = parseAddress(text);
    if (local === null) {
      throw new RangeError(`UdpTransport.open: ${JSON.stringify(text)} is not an address`);
    }
    const limit = local.family === 6 ? MAX_UDP_PAYLOAD_IPV6 : MAX_UDP_PAYLOAD_IPV4;
    const {
      sendBufferSize,
      receiveBufferSize,
      maxQueuedDatagrams = DEFAULT_MAX_QUEUED_DATAGRAMS,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
      maxDatagramSize = limit,
      maxPendingSends = 1024,
      onError,
      connectToPeer = false,
    } = options;
    const where = 'UdpTransport.open';
    if (sendBufferSize !== undefined) checkInteger(where, 'sendBufferSize', sendBufferSize, 1, 0x7fffffff);
    if (receiveBufferSize !== undefined) {
      checkInteger(where, 'receiveBufferSize', receiveBufferSize, 1, 0x7fffffff);
    }
    checkInteger(where, 'maxQueuedDatagrams', maxQueuedDatagrams, 1, 1 << 24);
    checkInteger(where, 'maxDatagramsPerReceive', maxDatagramsPerReceive, 1, Number.MAX_SAFE_INTEGER);
    checkInteger(where, 'maxDatagramSize', maxDatagramSize, 0, limit);
    checkInteger(where, 'maxPendingSends', maxPendingSends, 1, 1 << 24);
    if (onError !== undefined && typeof onError !== 'function') {
      throw new TypeError(`${where}: onError must be a function`);
    }
    if (typeof connectToPeer !== 'boolean') throw new TypeError(`${where}: connectToPeer must be a boolean`);

    const family = local.family;
    const socket = createSocket({
      type: family === 6 ? 'udp6' : 'udp4',
      ipv6Only: family === 6,
      // Addresses are IP literals already: answer at once instead of a deferred dns.lookup, so a
      // send reaches the socket before send returns.
      lookup: (host, _options, callback) => callback(null, host, family),
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ address: local.host, port: local.port, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
      if (sendBufferSize !== undefined) socket.setSendBufferSize(sendBufferSize);
      if (receiveBufferSize !== undefined) socket.setRecvBufferSize(receiveBufferSize);
    } catch (error) {
      try {
        socket.close();
      } catch {
        // Already closed by the failed bind.
      }
      throw error;
    }
    const bound = socket.address();
    return new UdpTransport(socket, formatAddress(bound.address, bound.port), family, {
      maxQueuedDatagrams,
      maxDatagramsPerReceive,
      maxDatagramSize,
      maxPendingSends,
      onError,
      connectToPeer,
    });
  }

  private constructor(
    private readonly socket: Socket,
    localAddress: Address,
    family: 4 | 6,
    options: {
      maxQueuedDatagrams: number;
      maxDatagramsPerReceive: number;
      maxDatagramSize: number;
      maxPendingSends: number;
      onError: ((error: Error) => void) | undefined;
      connectToPeer: boolean;
    },
  ) {
    this.local = localAddress;
    this.family = family;
    this.maxDatagramSize = options.maxDatagramSize;
    this.maxDatagramsPerReceive = options.maxDatagramsPerReceive;
    this.maxPendingSends = options.maxPendingSends;
    this.connectToPeer = options.connectToPeer;
    this.counters = new TransportCounters();
    this.queue = new DatagramQueue(options.maxQueuedDatagrams, this.counters);
    const onError = options.onError;
    socket.on('message', (message: Buffer, remote: RemoteInfo) => {
      if (this.isClosed) return;
      const from = this.sourceAddress(remote.address, remote.port);
      // Node hands each message its own buffer: queue it as it is, no copy.
      if (from !== null) this.queue.pushAdopted(from, message);
    });
    socket.on('error', (error: Error) => {
      if (this.isClosed) return;
      this.lastError = error;
      onError?.(error);
    });
  }

  /** Where the socket is bound (with connectToPeer, as of its last connect). */
  get localAddress(): Address {
    return this.local;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Sends handed to the socket and not yet completed. */
  get pending(): number {
    return this.pendingSends;
  }

  /** The Address of a datagram's source, remembered so steady traffic formats nothing. */
  private sourceAddress(host: string, port: number): Address | null {
    let ports = this.sources.get(host);
    let address = ports?.get(port);
    if (address !== undefined) return address;
    try {
      address = formatAddress(host, port);
    } catch {
      return null; // not an IP literal: cannot happen with a real socket
    }
    if (this.sourceCount >= ADDRESS_MEMO_LIMIT) {
      this.sources.clear();
      this.sourceCount = 0;
      ports = undefined;
    }
    if (ports === undefined) {
      ports = new Map();
      this.sources.set(host, ports);
    }
    ports.set(port, address);
    this.sourceCount++;
    return address;
  }

  /** Host and port to hand the socket, checked once per distinct address. */
  private target(to: Address): Target {
    const known = this.targets.get(to);
    if (known !== undefined) return known;
    const parsed = parseAddress(to);
    if (parsed === null) {
      throw new RangeError(`UdpTransport.send: ${JSON.stringify(to)} is not an address`);
    }
    if (parsed.family !== this.family) {
      throw new RangeError(
        `UdpTransport.send: cannot send to IPv${parsed.family} address ${to} from IPv${this.family} socket ${this.localAddress}`,
      );
    }
    if (parsed.port === 0) throw new RangeError(`UdpTransport.send: cannot send to port 0 (${to})`);
    if (this.targets.size >= ADDRESS_MEMO_LIMIT) this.targets.clear();
    const target: Target = { host: parsed.host, port: parsed.port };
    this.targets.set(to, target);
    return target;
  }

  /** The counters this transport keeps (live: read them, copy to keep a snapshot). */
  stats(): Readonly<TransportStats> {
    return this.counters;
  }

  send(to: Address, data: Uint8Array): void {
    if (this.isClosed) throw new Error(`UdpTransport.send: transport ${this.localAddress} is closed`);
    checkDatagram('UdpTransport.send', data, this.maxDatagramSize);
    const target = this.target(to);
    this.counters.sent++;
    this.counters.bytesSent += data.length;
    let pending = this.freeSends.pop();
    if (pending === undefined) {
      if (this.pendingSends >= this.maxPendingSends) {
        this.counters.undeliverable++;
        return;
      }
      pending = new PendingSend(this.sendDone);
    }
    if (this.connectToPeer && this.peer !== to) this.connect(to, target);
    pending.copy(to, data);
    this.pendingSends++;
    try {
      if (this.peer === null) this.socket.send(pending.data, target.port, target.host, pending.done);
      else this.socket.send(pending.data, pending.done);
    } catch (error) {
      this.pendingSends--;
      this.release(pending);
      throw error;
    }
  }

  /**
   * Connects the socket to `to`, leaving the peer it had. The socket's lookup answers at once, so
   * node:dgram connects before connect returns, and the send that follows goes out connected.
   */
  private connect(to: Address, target: Target): void {
    if (this.peer !== null) {
      this.socket.disconnect();
      this.peer = null;
    }
    this.socket.connect(target.port, target.host);
    this.peer = to;
    const bound = this.socket.address();
    this.local = formatAddress(bound.address, bound.port);
  }

  /** The socket finished with a send (an arrow: PendingSend holds it). */
  private readonly sendDone = (pending: PendingSend, error: Error | null): void => {
    this.pendingSends--;
    this.release(pending);
    if (error !== null && error !== undefined && !this.isClosed) {
      this.counters.undeliverable++;
      this.lastError = error;
    }
  };

  private release(pending: PendingSend): void {
    pending.clear();
    // Keep as many holders as may be pending at once; no more are ever made.
    if (this.freeSends.length < this.maxPendingSends) this.freeSends.push(pending);
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('UdpTransport.receive', handler, max, this.maxDatagramsPerReceive);
    if (this.isClosed) return 0;
    return this.queue.drain(handler, limit, 'UdpTransport.receive');
  }

  /** Time plays no part here; `now` is still checked by the stack's one rule (see checkTime). */
  update(now: number): void {
    this.lastUpdate = checkTime('UdpTransport.update', now, this.lastUpdate);
  }

  /**
   * Sends one datagram with IP time-to-live (IPv6 hop limit) `ttl` instead of the usual 64. Hole
   * punching opens this side's NAT with datagrams that die before the other side's NAT, so they
   * leave no unanswered entry there that would make that NAT remap the other peer's port.
   */
  sendWithTtl(to: Address, data: Uint8Array, ttl: number): void {
    checkInteger('UdpTransport.sendWithTtl', 'ttl', ttl, 1, 255);
    // The socket's lookup answers at once, so node:dgram hands the datagram to the kernel inside
    // send (unless the socket's queue is backed up: then it leaves later, with the usual TTL).
    this.setTtl(ttl);
    try {
      this.send(to, data);
    } finally {
      this.setTtl(DEFAULT_TTL);
    }
  }

  private setTtl(ttl: number): void {
    if (this.isClosed) return;
    try {
      this.socket.setTTL(ttl);
    } catch (error) {
      this.lastError = error as Error;
    }
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.queue.clear();
    try {
      this.socket.close();
    } catch {
      // The socket was already closed.
    }
  }
}
