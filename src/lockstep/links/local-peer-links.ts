import { checkTime, NO_TIME_YET } from '../../time/check-time.js';
import type { Address } from '../../transport/address.js';
import type { DatagramTransport } from '../../transport/transport.js';
import { GOODBYE_COPIES, type PeerLinkEvent, type PeerLinks } from './peer-links.js';

/** Datagram kinds of the plain links: one byte, then the sender's index, then the payload. */
const DATA = 1;
const KEEP_ALIVE = 2;
const GOODBYE = 3;
const HEADER_BYTES = 2;

export interface LocalPeerLinksOptions {
  transport: DatagramTransport;
  self: number;
  /** Every peer's address by index, this peer's own included (its entry is not used). */
  addresses: readonly Address[];
  /** Seconds of silence after which a peer is reported timed out (default 5). */
  timeout?: number;
  /** Seconds between keep-alives to a peer nothing else was sent to (default 0.25). */
  keepAliveInterval?: number;
}

/**
 * PeerLinks over a datagram transport with a fixed address table and no protection at all: for
 * tests under the network simulator and trusted LANs. Anyone who can reach the port can speak
 * as any peer; across the internet use the secure links, which authenticate and encrypt every
 * datagram with per-pair keys.
 */
export class LocalPeerLinks implements PeerLinks {
  readonly self: number;
  readonly maxPeers: number;
  readonly maxPayloadBytes: number;
  /** Datagrams refused: unknown sender, wrong address, malformed. */
  refused = 0;
  private readonly transport: DatagramTransport;
  private readonly addresses: readonly Address[];
  private readonly byAddress = new Map<Address, number>();
  private readonly lastHeard: number[];
  private readonly lastSent: number[];
  private readonly connected: boolean[];
  private readonly events: PeerLinkEvent[] = [];
  private readonly out: Uint8Array;
  private readonly timeout: number;
  private readonly keepAliveInterval: number;
  private now = NO_TIME_YET;
  private closed = false;

  constructor(options: LocalPeerLinksOptions) {
    const { transport, self, addresses } = options;
    if (addresses.length < 2 || addresses.length > 64)
      throw new RangeError(`LocalPeerLinks: 2 to 64 addresses, got ${addresses.length}`);
    if (!Number.isInteger(self) || self < 0 || self >= addresses.length)
      throw new RangeError(`LocalPeerLinks: self must be an index into addresses, got ${self}`);
    this.timeout = options.timeout ?? 5;
    this.keepAliveInterval = options.keepAliveInterval ?? 0.25;
    if (!(this.timeout > 0) || !Number.isFinite(this.timeout))
      throw new RangeError(`LocalPeerLinks: timeout must be a positive number of seconds`);
    if (!(this.keepAliveInterval > 0) || !(this.keepAliveInterval < this.timeout))
      throw new RangeError(`LocalPeerLinks: keepAliveInterval must be positive and under timeout`);
    this.transport = transport;
    this.self = self;
    this.addresses = addresses;
    this.maxPeers = addresses.length;
    this.maxPayloadBytes = transport.maxDatagramSize - HEADER_BYTES;
    addresses.forEach((address, index) => {
      if (index !== self) this.byAddress.set(address, index);
    });
    this.lastHeard = addresses.map(() => NO_TIME_YET);
    this.lastSent = addresses.map(() => NO_TIME_YET);
    this.connected = addresses.map(() => false);
    this.out = new Uint8Array(transport.maxDatagramSize);
  }

  private checkPeer(where: string, peer: number): void {
    if (!Number.isInteger(peer) || peer < 0 || peer >= this.maxPeers || peer === this.self)
      throw new RangeError(
        `${where}: peer must be another peer's index in [0, ${this.maxPeers}), got ${peer}`,
      );
  }

  send(peer: number, data: Uint8Array): void {
    if (this.closed) throw new Error('LocalPeerLinks.send: closed');
    this.checkPeer('LocalPeerLinks.send', peer);
    if (data.length > this.maxPayloadBytes)
      throw new RangeError(`LocalPeerLinks.send: ${data.length} bytes is over ${this.maxPayloadBytes}`);
    this.out[0] = DATA;
    this.out[1] = this.self;
    this.out.set(data, HEADER_BYTES);
    this.transport.send(this.addresses[peer], this.out.subarray(0, HEADER_BYTES + data.length));
    this.lastSent[peer] = this.now;
  }

  receive(handler: (peer: number, data: Uint8Array) => void): number {
    if (this.closed) return 0;
    let delivered = 0;
    this.transport.receive((from, datagram) => {
      const peer = this.byAddress.get(from);
      if (peer === undefined || datagram.length < HEADER_BYTES || datagram[1] !== peer) {
        this.refused++;
        return;
      }
      const kind = datagram[0];
      if (kind === GOODBYE) {
        if (this.connected[peer]) {
          this.connected[peer] = false;
          this.events.push({ kind: 'left', peer });
        }
        return;
      }
      if (kind !== DATA && kind !== KEEP_ALIVE) {
        this.refused++;
        return;
      }
      this.lastHeard[peer] = this.now;
      if (!this.connected[peer]) {
        this.connected[peer] = true;
        this.events.push({ kind: 'connected', peer });
      }
      if (kind === DATA) {
        delivered++;
        handler(peer, datagram.subarray(HEADER_BYTES));
      }
    });
    return delivered;
  }

  pollEvent(): PeerLinkEvent | null {
    return this.events.shift() ?? null;
  }

  connectedPeers(): readonly number[] {
    const peers: number[] = [];
    for (let i = 0; i < this.maxPeers; i++) if (this.connected[i]) peers.push(i);
    return peers;
  }

  update(now: number): void {
    this.now = checkTime('LocalPeerLinks.update', now, this.now);
    if (this.closed) return;
    this.transport.update(now);
    for (let peer = 0; peer < this.maxPeers; peer++) {
      if (peer === this.self) continue;
      if (this.connected[peer] && now - this.lastHeard[peer] > this.timeout) {
        this.connected[peer] = false;
        this.events.push({ kind: 'timedOut', peer });
      }
      if (!(now - this.lastSent[peer] < this.keepAliveInterval)) this.control(peer, KEEP_ALIVE);
    }
  }

  private control(peer: number, kind: number): void {
    this.out[0] = kind;
    this.out[1] = this.self;
    this.transport.send(this.addresses[peer], this.out.subarray(0, HEADER_BYTES));
    this.lastSent[peer] = this.now;
  }

  close(): void {
    if (this.closed) return;
    for (let copy = 0; copy < GOODBYE_COPIES; copy++)
      for (let peer = 0; peer < this.maxPeers; peer++) if (peer !== this.self) this.control(peer, GOODBYE);
    this.closed = true;
  }
}
