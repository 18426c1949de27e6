import { prng } from '../random/prng.js';
import { checkTime } from '../time/check-time.js';
import { type Address, parseAddress } from './address.js';
import {
  type LinkConditions,
  type LinkDirection,
  type ResolvedLinkConditions,
  resolveConditions,
} from './link-conditions.js';
import {
  checkDatagram,
  checkInteger,
  type DatagramHandler,
  type DatagramTransport,
  DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
  PooledDatagram,
  receiveLimit,
  type TransportStats,
} from './transport.js';

export type {
  BurstLoss,
  LinkConditions,
  LinkDirection,
  ResolvedLinkConditions,
} from './link-conditions.js';

/** What one direction has done. */
export interface LinkCounters {
  /** Datagrams that entered the link (duplicates not included). */
  readonly offered: number;
  /** Originals sent on or scheduled (not lost, not dropped by the in-flight bound). */
  readonly passed: number;
  /** Originals lost to the loss or burst-loss conditions. */
  readonly lost: number;
  /** Duplicates sent on or scheduled. */
  readonly duplicated: number;
  /** Originals held back by the reorder condition. */
  readonly reordered: number;
  /** Datagrams (originals or duplicates) dropped because `maxInFlight` were already held. */
  readonly overflow: number;
  /** Datagrams held now, waiting for their delivery time. */
  readonly inFlight: number;
}

export interface NetworkSimulatorOptions {
  /** Seeds the simulator's own generator: the same seed and calls give the same schedule. */
  seed: number;
  /** Applied on send (default: none). */
  outgoing?: LinkConditions;
  /** Applied as receive takes datagrams from the wrapped transport (default: none). */
  incoming?: LinkConditions;
  /** Datagrams held at once per direction; more are dropped and counted (default 4096). */
  maxInFlight?: number;
  /** The default `max` of receive (default 256). */
  maxDatagramsPerReceive?: number;
  /** The clock before the first update, seconds (default 0). */
  now?: number;
}

/**
 * A datagram due within this many seconds of `now` is due: send time + latency and a tick clock
 * land on the same instant up to float rounding (1000/60 + 0.05 can exceed 1003/60 by an ulp),
 * and a strict comparison would hold it a whole extra tick at random.
 */
const DUE_SLACK = 1e-6;
/** Distinct addresses remembered as valid before the memo is cleared. */
const ADDRESS_MEMO_LIMIT = 1024;

class MutableLinkCounters implements LinkCounters {
  offered = 0;
  passed = 0;
  lost = 0;
  duplicated = 0;
  reordered = 0;
  overflow = 0;
  inFlight = 0;
}

/** A datagram waiting for its delivery time. */
class HeldDatagram extends PooledDatagram {
  at = 0;
  order = 0;
}

function earlier(a: HeldDatagram, b: HeldDatagram): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}

/**
 * One direction: the conditions, the Gilbert–Elliott state, and a binary min-heap of held
 * datagrams keyed by (delivery time, arrival order) whose holders come from a free list, so a
 * warm link allocates nothing.
 */
class Link {
  conditions!: ResolvedLinkConditions;
  readonly counters = new MutableLinkCounters();
  /** Holders ever created and the bytes of storage they hold. */
  created = 0;
  storageBytes = 0;
  private lossChance = 0;
  private burstEnter = 0;
  private burstExit = 0;
  private burstLoss = 0;
  private hasBurst = false;
  private inBurst = false;
  private latency = 0;
  private jitter = 0;
  private duplicateChance = 0;
  private duplicateDelay = 0;
  private reorderChance = 0;
  private reorderDelay = 0;
  private readonly heap: HeldDatagram[] = [];
  private size = 0;
  private readonly free: HeldDatagram[] = [];
  private order = 0;

  constructor(
    readonly direction: LinkDirection,
    private readonly random: () => number,
    private readonly maxInFlight: number,
    conditions: LinkConditions,
  ) {
    this.configure(conditions);
  }

  configure(conditions: LinkConditions): void {
    const c = resolveConditions(this.direction, conditions);
    this.conditions = c;
    this.lossChance = c.loss / 100;
    this.hasBurst = c.burst !== null;
    if (!this.hasBurst) this.inBurst = false;
    this.burstEnter = c.burst === null ? 0 : c.burst.enter / 100;
    this.burstExit = c.burst === null ? 0 : c.burst.exit / 100;
    this.burstLoss = c.burst === null ? 0 : c.burst.loss / 100;
    this.latency = c.latencyMs / 1000;
    this.jitter = c.jitterMs / 1000;
    this.duplicateChance = c.duplicates / 100;
    this.duplicateDelay = c.duplicateDelayMs / 1000;
    this.reorderChance = c.reorder / 100;
    this.reorderDelay = c.reorderDelayMs / 1000;
  }

  /**
   * Decides one datagram's fate at time `now`. Six numbers are drawn for every datagram whatever
   * the conditions, so changing one condition does not reshuffle the others' decisions. Datagrams
   * due at once go to `immediate` when given, else are held (due now).
   */
  offer(
    now: number,
    address: Address,
    data: Uint8Array,
    immediate: ((to: Address, data: Uint8Array) => void) | null,
  ): void {
    const next = this.random;
    const transition = next();
    const lossDraw = next();
    const jitterDraw = next();
    const reorderDraw = next();
    const duplicateDraw = next();
    const duplicateDelayDraw = next();
    const counters = this.counters;
    counters.offered++;
    if (this.hasBurst) {
      if (this.inBurst) {
        if (transition < this.burstExit) this.inBurst = false;
      } else if (transition < this.burstEnter) {
        this.inBurst = true;
      }
    }
    if (lossDraw < (this.inBurst ? this.burstLoss : this.lossChance)) {
      counters.lost++;
      return;
    }
    let delay = this.latency + (2 * jitterDraw - 1) * this.jitter;
    if (delay < 0) delay = 0;
    const reordered = reorderDraw < this.reorderChance;
    if (reordered) delay += this.reorderDelay;
    if (delay === 0 && immediate !== null) {
      immediate(address, data);
      counters.passed++;
    } else if (this.hold(now + delay, address, data)) {
      counters.passed++;
    } else {
      return;
    }
    if (reordered) counters.reordered++;
    if (duplicateDraw < this.duplicateChance) {
      const duplicateDelay = delay + duplicateDelayDraw * this.duplicateDelay;
      if (duplicateDelay === 0 && immediate !== null) {
        immediate(address, data);
        counters.duplicated++;
      } else if (this.hold(now + duplicateDelay, address, data)) {
        counters.duplicated++;
      }
    }
  }

  private hold(at: number, address: Address, data: Uint8Array): boolean {
    if (this.size >= this.maxInFlight) {
      this.counters.overflow++;
      return false;
    }
    let held = this.free.pop();
    if (held === undefined) {
      held = new HeldDatagram();
      this.created++;
    }
    this.storageBytes += held.copy(address, data);
    held.at = at;
    held.order = this.order++;
    // Sift up.
    const heap = this.heap;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(held, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = held;
    this.counters.inFlight = this.size;
    return true;
  }

  /** The earliest datagram due at `now` (within DUE_SLACK; removed from the heap; `release` it after use), or null. */
  popDue(now: number): HeldDatagram | null {
    if (this.size === 0) return null;
    const heap = this.heap;
    const top = heap[0];
    if (top.at > now + DUE_SLACK) return null;
    const last = heap[--this.size];
    if (this.size > 0) {
      // Sift down.
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= this.size) break;
        const right = left + 1;
        const child = right < this.size && earlier(heap[right], heap[left]) ? right : left;
        if (!earlier(heap[child], last)) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = last;
    }
    this.counters.inFlight = this.size;
    return top;
  }

  release(held: HeldDatagram): void {
    held.clear();
    this.free.push(held);
  }

  /** Drops everything held (the holders return to the free list). */
  clear(): void {
    while (this.size > 0) this.release(this.heap[--this.size]);
    this.counters.inFlight = 0;
  }
}

/** A simulator's counters: those of every transport, and what each direction's link has done. */
export interface NetworkSimulatorStats extends TransportStats {
  /** What the outgoing link has done. */
  readonly outgoing: LinkCounters;
  /** What the incoming link has done. */
  readonly incoming: LinkCounters;
}

class SimulatorStats implements NetworkSimulatorStats {
  sent = 0;
  bytesSent = 0;
  received = 0;
  bytesReceived = 0;
  constructor(
    private readonly outgoingLink: Link,
    private readonly incomingLink: Link,
  ) {}
  get outgoing(): LinkCounters {
    return this.outgoingLink.counters;
  }
  get incoming(): LinkCounters {
    return this.incomingLink.counters;
  }
  get dropped(): number {
    return this.incomingLink.counters.overflow;
  }
  get undeliverable(): number {
    return this.outgoingLink.counters.overflow;
  }
  get queued(): number {
    return this.incomingLink.counters.inFlight;
  }
}

/**
 * A seeded network simulator that wraps any transport and is one itself. Outgoing conditions
 * apply on send; incoming conditions apply as receive takes datagrams from the wrapped transport.
 * Time is the last `now` given to update (seconds): a delayed datagram is copied into a pooled
 * holder and released in delivery-time order (ties in arrival order), outgoing ones by update
 * (sent on to the wrapped transport) and incoming ones by receive. A datagram with no delay at all
 * goes through at once, so zero conditions pass everything through unchanged and in order.
 *
 * Deterministic: with the same seed, conditions and calls, the same datagrams arrive at the same
 * times. Each direction draws from its own stream, so the receive pattern cannot disturb the fate
 * of sent datagrams or the other way round.
 */
export class NetworkSimulator implements DatagramTransport {
  readonly inner: DatagramTransport;
  readonly localAddress: Address;
  readonly maxDatagramsPerReceive: number;
  private readonly outgoing: Link;
  private readonly incoming: Link;
  private readonly statsCounters: SimulatorStats;
  private clock: number;
  private isClosed = false;
  private receiving = false;
  private readonly validAddresses = new Set<string>();
  private readonly sendNow: (to: Address, data: Uint8Array) => void;
  private readonly pull: DatagramHandler;

  constructor(inner: DatagramTransport, options: NetworkSimulatorOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError('NetworkSimulator: options with a seed are required');
    }
    const {
      seed,
      outgoing = {},
      incoming = {},
      maxInFlight = 4096,
      maxDatagramsPerReceive = DEFAULT_MAX_DATAGRAMS_PER_RECEIVE,
      now = 0,
    } = options;
    checkInteger('NetworkSimulator', 'seed', seed, 0, 0xffffffff);
    checkInteger('NetworkSimulator', 'maxInFlight', maxInFlight, 1, 1 << 24);
    this.maxDatagramsPerReceive = checkInteger(
      'NetworkSimulator',
      'maxDatagramsPerReceive',
      maxDatagramsPerReceive,
      1,
      Number.MAX_SAFE_INTEGER,
    );
    this.inner = inner;
    this.localAddress = inner.localAddress;
    this.clock = checkTime('NetworkSimulator', now, Number.NEGATIVE_INFINITY);
    this.outgoing = new Link('outgoing', prng(seed), maxInFlight, outgoing);
    this.incoming = new Link('incoming', prng((seed ^ 0x9e3779b9) >>> 0), maxInFlight, incoming);
    this.statsCounters = new SimulatorStats(this.outgoing, this.incoming);
    this.sendNow = (to, data) => this.inner.send(to, data);
    this.pull = (from, data) => this.incoming.offer(this.clock, from, data, null);
  }

  get maxDatagramSize(): number {
    return this.inner.maxDatagramSize;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** The simulator's clock: the last `now` given to update, in seconds. */
  get now(): number {
    return this.clock;
  }

  /** Datagrams held in both directions. */
  get inFlight(): number {
    return this.outgoing.counters.inFlight + this.incoming.counters.inFlight;
  }

  /** Pooled holders ever created (both directions); bounded by 2 × maxInFlight. */
  get poolSize(): number {
    return this.outgoing.created + this.incoming.created;
  }

  /** Bytes of storage the pooled holders have allocated. */
  get poolBytes(): number {
    return this.outgoing.storageBytes + this.incoming.storageBytes;
  }

  getConditions(direction: LinkDirection): ResolvedLinkConditions {
    return this.link(direction).conditions;
  }

  /** Replaces one direction's conditions (omitted fields take their defaults); held datagrams keep their times. */
  setConditions(direction: LinkDirection, conditions: LinkConditions): void {
    this.link(direction).configure(conditions);
  }

  private link(direction: LinkDirection): Link {
    if (direction === 'outgoing') return this.outgoing;
    if (direction === 'incoming') return this.incoming;
    throw new RangeError(`NetworkSimulator: direction must be 'outgoing' or 'incoming', got ${direction}`);
  }

  /** The transport's counters and each direction's link counters (live: copy to keep a snapshot). */
  stats(): Readonly<NetworkSimulatorStats> {
    return this.statsCounters;
  }

  send(to: Address, data: Uint8Array): void {
    if (this.isClosed) throw new Error(`NetworkSimulator.send: transport ${this.localAddress} is closed`);
    checkDatagram('NetworkSimulator.send', data, this.inner.maxDatagramSize);
    // Checked here, not when a delayed datagram is finally sent, so misuse fails at the call.
    if (!this.validAddresses.has(to)) {
      if (parseAddress(to) === null) {
        throw new RangeError(`NetworkSimulator.send: ${JSON.stringify(to)} is not an address`);
      }
      if (this.validAddresses.size >= ADDRESS_MEMO_LIMIT) this.validAddresses.clear();
      this.validAddresses.add(to);
    }
    this.statsCounters.sent++;
    this.statsCounters.bytesSent += data.length;
    this.outgoing.offer(this.clock, to, data, this.sendNow);
  }

  receive(handler: DatagramHandler, max?: number): number {
    const limit = receiveLimit('NetworkSimulator.receive', handler, max, this.maxDatagramsPerReceive);
    if (this.isClosed) return 0;
    if (this.receiving) throw new Error('NetworkSimulator.receive: called from inside its own handler');
    this.receiving = true;
    try {
      // Datagrams already due first; then take at most what is left of the limit from the
      // wrapped transport and deliver whatever of that is due now (no incoming delay).
      let delivered = this.deliverDue(handler, limit);
      if (delivered < limit && !this.inner.closed) {
        this.inner.receive(this.pull, limit - delivered);
        delivered += this.deliverDue(handler, limit - delivered);
      }
      return delivered;
    } finally {
      this.receiving = false;
    }
  }

  private deliverDue(handler: DatagramHandler, max: number): number {
    let delivered = 0;
    while (delivered < max) {
      const held = this.incoming.popDue(this.clock);
      if (held === null) break;
      const length = held.data.length;
      try {
        handler(held.address, held.data);
      } finally {
        this.incoming.release(held);
        this.statsCounters.received++;
        this.statsCounters.bytesReceived += length;
      }
      delivered++;
    }
    return delivered;
  }

  /** Advances the clock to `now` (seconds; never backwards), sends what is due, updates the wrapped transport. */
  update(now: number): void {
    this.clock = checkTime('NetworkSimulator.update', now, this.clock);
    if (this.isClosed) return;
    if (this.inner.closed) {
      // Closed underneath us: nothing held can be sent any more.
      this.outgoing.clear();
      return;
    }
    for (let held = this.outgoing.popDue(now); held !== null; held = this.outgoing.popDue(now)) {
      try {
        this.inner.send(held.address, held.data);
      } finally {
        this.outgoing.release(held);
      }
    }
    this.inner.update(now);
  }

  /** Closes the wrapped transport and discards everything held; idempotent. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.outgoing.clear();
    this.incoming.clear();
    this.inner.close();
  }
}
