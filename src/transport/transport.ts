import type { Address } from './address.js';

/**
 * Called once per delivered datagram. `data` is valid only during the call: the transport reuses
 * its storage afterwards, so copy anything you keep.
 */
export type DatagramHandler = (from: Address, data: Uint8Array) => void;

/** Counters every transport keeps. All count datagrams unless named bytes. */
export interface TransportStats {
  /** Datagrams accepted by send. */
  readonly sent: number;
  readonly bytesSent: number;
  /** Datagrams handed to a receive handler. */
  readonly received: number;
  readonly bytesReceived: number;
  /** Incoming datagrams dropped because the receive queue (or in-flight bound) was full. */
  readonly dropped: number;
  /**
   * Datagrams accepted by send that never left: no such destination (in-memory), a socket error,
   * too many sends pending in the socket, or (simulator) too many held in flight.
   */
  readonly undeliverable: number;
  /** Incoming datagrams waiting for receive now. */
  readonly queued: number;
}

/**
 * A datagram link: UDP sockets, in-memory links, WebRTC data channels, WebTransport datagrams.
 *
 * Receiving is polled, so a game loop handles a bounded number of datagrams per update and a
 * flood of tiny packets cannot stall it; datagrams wait in a bounded queue until then, and
 * arrivals to a full queue are dropped and counted (`stats().dropped`).
 */
export interface DatagramTransport {
  /** This end's address, as peers see it in `from`. */
  readonly localAddress: Address;
  /** The largest datagram `send` accepts, in bytes. */
  readonly maxDatagramSize: number;
  readonly closed: boolean;
  /**
   * Sends one datagram, best effort. The caller may reuse `data` as soon as send returns. Throws
   * at the call on misuse: a closed transport, a malformed address, a datagram over
   * `maxDatagramSize`. Delivery failures are counted, not thrown.
   */
  send(to: Address, data: Uint8Array): void;
  /**
   * Delivers at most `max` queued datagrams (default: the transport's configured bound) to
   * `handler` in arrival order, and returns how many. Returns 0 once closed. Calling receive from
   * inside its own handler throws.
   */
  receive(handler: DatagramHandler, max?: number): number;
  /** Advances time-driven transports to `now` (seconds); a no-op for sockets. */
  update(now: number): void;
  /** Releases the transport; idempotent. Queued datagrams are discarded. */
  close(): void;
  /** The counters the transport keeps (may be live: copy to keep a snapshot). */
  stats(): Readonly<TransportStats>;
}

/** The mutable counters behind `TransportStats`, shared by the transports in this folder. */
export class TransportCounters implements TransportStats {
  sent = 0;
  bytesSent = 0;
  received = 0;
  bytesReceived = 0;
  dropped = 0;
  undeliverable = 0;
  queued = 0;
}

/** Defaults shared by the transports. */
export const DEFAULT_MAX_QUEUED_DATAGRAMS = 1024;
export const DEFAULT_MAX_DATAGRAMS_PER_RECEIVE = 256;

/** Throws a RangeError unless `value` is an integer in [min, max]. */
export function checkInteger(where: string, name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${where}: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

/** Checks the arguments of receive; returns the limit (`fallback` when `max` is omitted). */
export function receiveLimit(
  where: string,
  handler: DatagramHandler,
  max: number | undefined,
  fallback: number,
): number {
  if (typeof handler !== 'function') throw new TypeError(`${where}: handler must be a function`);
  if (max === undefined) return fallback;
  return checkInteger(where, 'max', max, 0, Number.MAX_SAFE_INTEGER);
}

/** Throws a TypeError / RangeError for a datagram a transport cannot send. */
export function checkDatagram(where: string, data: Uint8Array, maxDatagramSize: number): void {
  if (!(data instanceof Uint8Array)) {
    throw new TypeError(`${where}: data must be a Uint8Array`);
  }
  if (data.length > maxDatagramSize) {
    throw new RangeError(
      `${where}: datagram of ${data.length} bytes exceeds maxDatagramSize (${maxDatagramSize} bytes)`,
    );
  }
}

const EMPTY = new Uint8Array(0);
const NO_ADDRESS = '' as Address;
/** Pooled storage starts at this size and doubles, so a buffer is reallocated at most a few times. */
const MIN_STORAGE = 64;
const LARGE_STORAGE = 1024;
const LARGE_STEP = 256;
/**
 * Storage above this many bytes shrinks to fit after SHRINK_AFTER datagrams in a row of at most a
 * quarter of it: one 1,078-byte connection request no longer leaves each slot 1.25 KB for good.
 */
const SHRINK_ABOVE = 256;
const SHRINK_AFTER = 64;

/**
 * A reusable holder for one datagram: an address and the bytes, either copied into storage it
 * keeps between uses, or (`adopt`) a reference to an array nobody else will touch.
 *
 * `data` is a view of exactly the datagram's length. Storage grows in powers of two up to 1 KB, then
 * by half again (whole 256 B), and shrinks only after a long run of datagrams a quarter of its size
 * or less, so once warm a holder allocates nothing for a datagram of the same length as its last,
 * and only a view header (never storage) for one of another length.
 */
export class PooledDatagram {
  address: Address = NO_ADDRESS;
  data: Uint8Array = EMPTY;
  private storage: Uint8Array = EMPTY;
  /** Datagrams in a row that used a quarter of the storage or less (while it is above SHRINK_ABOVE). */
  private smallRun = 0;

  /** Bytes of storage held (for pool accounting). */
  get capacity(): number {
    return this.storage.length;
  }

  /** Copies `source` in; returns the change in bytes of storage held (0 when it fitted). */
  copy(address: Address, source: Uint8Array): number {
    this.address = address;
    const length = source.length;
    let grown = 0;
    const held = this.storage.length;
    if (held > SHRINK_ABOVE && length * 4 <= held) this.smallRun++;
    else this.smallRun = 0;
    if (held < length || this.smallRun >= SHRINK_AFTER) {
      this.smallRun = 0;
      let size = held < length ? Math.max(MIN_STORAGE, held) : MIN_STORAGE;
      if (length <= LARGE_STORAGE) {
        while (size < length) size *= 2;
      } else {
        // Past 1 KB, ×1.5 in whole 256 B steps: a 1,078-byte connection request keeps 1,280 B, not 2,048.
        size = Math.ceil(Math.max(length, held * 1.5) / LARGE_STEP) * LARGE_STEP;
      }
      grown = size - held;
      this.storage = new Uint8Array(size);
      this.data = this.storage.subarray(0, length);
    } else if (this.data.length !== length || this.data.buffer !== this.storage.buffer) {
      this.data = this.storage.subarray(0, length);
    }
    this.data.set(source);
    return grown;
  }

  /** Holds `data` itself, without copying: the caller gives it up. */
  adopt(address: Address, data: Uint8Array): void {
    this.address = address;
    this.data = data;
  }

  /** Forgets the datagram; keeps copied storage for reuse, drops adopted arrays. */
  clear(): void {
    this.address = NO_ADDRESS;
    if (this.data.buffer !== this.storage.buffer) this.data = EMPTY;
  }
}

/**
 * A bounded first-in first-out queue of incoming datagrams: a ring of `capacity` reusable slots.
 * `push` copies (or `pushAdopted` keeps) the bytes, returning false and counting a drop when full;
 * `drain` hands them to a handler in order and counts them as received. `queued` is counted up and
 * down, so queues that share counters (a transport with several) add up. Emptied, the ring starts
 * again at its first slot, so it makes only as many slots as were ever queued at once (not its
 * capacity, as a ring turning with traffic would, a pooled buffer each).
 */
export class DatagramQueue {
  readonly capacity: number;
  private readonly slots: PooledDatagram[];
  private head = 0;
  private count = 0;
  private draining = false;

  constructor(
    capacity: number,
    private readonly counters: TransportCounters,
  ) {
    this.capacity = checkInteger('DatagramQueue', 'capacity', capacity, 1, 1 << 24);
    this.slots = [];
  }

  get length(): number {
    return this.count;
  }

  /** Bytes of storage held by the queue's slots. */
  get storageBytes(): number {
    let total = 0;
    for (const slot of this.slots) total += slot.capacity;
    return total;
  }

  private nextSlot(): PooledDatagram | null {
    if (this.count === this.capacity) {
      this.counters.dropped++;
      return null;
    }
    const index = (this.head + this.count) % this.capacity;
    let slot = this.slots[index];
    if (slot === undefined) {
      // Slots are created in ring order, so the array stays dense.
      slot = new PooledDatagram();
      this.slots[index] = slot;
    }
    return slot;
  }

  /** Copies the datagram in; false (and a counted drop) when the queue is full. */
  push(from: Address, data: Uint8Array): boolean {
    const slot = this.nextSlot();
    if (slot === null) return false;
    slot.copy(from, data);
    this.count++;
    this.counters.queued++;
    return true;
  }

  /** Queues `data` itself, without copying (the caller gives it up); false when full. */
  pushAdopted(from: Address, data: Uint8Array): boolean {
    const slot = this.nextSlot();
    if (slot === null) return false;
    slot.adopt(from, data);
    this.count++;
    this.counters.queued++;
    return true;
  }

  /**
   * Delivers up to `max` datagrams in order. A slot is released only after its handler returns, so
   * datagrams queued by the handler itself can never overwrite the one it is reading.
   */
  drain(handler: DatagramHandler, max: number, where: string): number {
    if (this.draining) throw new Error(`${where}: receive called from inside its own handler`);
    this.draining = true;
    let delivered = 0;
    try {
      while (delivered < max && this.count > 0) {
        const slot = this.slots[this.head];
        const length = slot.data.length;
        try {
          handler(slot.address, slot.data);
        } finally {
          slot.clear();
          this.count--;
          this.head = this.count === 0 || this.head + 1 === this.capacity ? 0 : this.head + 1;
          this.counters.queued--;
          this.counters.received++;
          this.counters.bytesReceived += length;
        }
        delivered++;
      }
    } finally {
      this.draining = false;
    }
    return delivered;
  }

  /** Discards everything queued (storage is kept for reuse). */
  clear(): void {
    while (this.count > 0) {
      this.slots[this.head].clear();
      this.count--;
      this.head = this.count === 0 || this.head + 1 === this.capacity ? 0 : this.head + 1;
      this.counters.queued--;
    }
  }
}
