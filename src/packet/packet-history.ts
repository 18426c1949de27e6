import { STATS_WINDOW } from './endpoint-stats.js';
import { SequenceBits } from './sequence-bits.js';
import { moved, movedRefs, SequenceSet, SequenceSlots } from './sequence-slots.js';

const ACKED = 1;
const RESOLVED = 2;

const float64 = (n: number) => new Float64Array(n);
const uint32 = (n: number) => new Uint32Array(n);
const uint8 = (n: number) => new Uint8Array(n);

/**
 * What a ReliableEndpoint remembers of the packets it sent, by sequence: when, how many bytes, acked
 * or not, resolved (acked or reported lost) or not, and the caller's record. A packet is kept while
 * it awaits its outcome (up to `size` sequences back, the configured sentPacketsBufferSize) and
 * while it is within the statistics window; an older resolved one may give its slot to a new packet,
 * so the buffer grows to what is in flight (or the statistics window) and not to `size`. The
 * endpoint treats a packet no longer here like one that left a full buffer.
 */
export class SentPackets<R> extends SequenceSlots {
  time: Float64Array;
  bytes: Uint32Array;
  private state: Uint8Array;
  /** Made at the first packet sent with a record: a connection that never sends one keeps none. */
  private records: (R | undefined)[] | null = null;
  /** Resolved packets at least this far behind the newest may be dropped. */
  private readonly keep: number;

  constructor(size: number) {
    super(size);
    this.keep = Math.min(size, STATS_WINDOW);
    this.time = float64(this.capacity);
    this.bytes = uint32(this.capacity);
    this.state = uint8(this.capacity);
  }

  protected moveEntries(capacity: number, to: Int32Array): void {
    this.time = moved(this.time, float64, capacity, to);
    this.bytes = moved(this.bytes, uint32, capacity, to);
    this.state = moved(this.state, uint8, capacity, to);
    if (this.records !== null) this.records = movedRefs(this.records, capacity, to, undefined);
  }

  protected override mayReplace(index: number, held: number, sequence: number): boolean {
    return (this.state[index] & RESOLVED) !== 0 && ((sequence - held) & 0xffff) >= this.keep;
  }

  /** Records a packet sent now; false when the sequence is too old to hold (never for the next sequence). */
  add(sequence: number, time: number, bytes: number, record: R | undefined): boolean {
    const index = this.insertIndex(sequence);
    if (index < 0) return false;
    this.time[index] = time;
    this.bytes[index] = bytes;
    this.state[index] = 0;
    if (this.records !== null) this.records[index] = record;
    else if (record !== undefined) {
      this.records = new Array<R | undefined>(this.capacity).fill(undefined);
      this.records[index] = record;
    }
    return true;
  }

  acked(index: number): boolean {
    return (this.state[index] & ACKED) !== 0;
  }

  resolved(index: number): boolean {
    return (this.state[index] & RESOLVED) !== 0;
  }

  /** Marks the packet at `index` resolved (acked or lost) and hands back its record, dropping it here. */
  resolve(index: number, acked: boolean): R | undefined {
    this.state[index] = acked ? ACKED | RESOLVED : RESOLVED;
    const records = this.records;
    if (records === null) return undefined;
    const record = records[index];
    records[index] = undefined;
    return record;
  }
}

/**
 * What a ReliableEndpoint remembers of the packets it received: which sequences, over the whole
 * received window (`size`, for ack bits and duplicates: a bit a packet when `size` is a power of
 * two, else four bytes), and when and how big, over the statistics window only.
 */
export class ReceivedPackets {
  /** The sequences held: canInsert / exists / advance, and `sequence` (one past the newest). */
  readonly held: SequenceBits | SequenceSet;
  readonly sizes: ReceivedSizes;

  constructor(readonly size: number) {
    this.held = size >= 32 && (size & (size - 1)) === 0 ? new SequenceBits(size) : new SequenceSet(size);
    this.sizes = new ReceivedSizes(size);
  }

  get sequence(): number {
    return this.held.sequence;
  }

  reset(): void {
    this.held.reset();
    this.sizes.reset();
  }

  advance(sequence: number): void {
    this.held.advance(sequence);
    this.sizes.advance(sequence);
  }

  /** Records a packet received now (the caller checked canInsert and exists). */
  add(sequence: number, time: number, bytes: number): void {
    this.held.insert(sequence);
    const index = this.sizes.insertIndex(sequence);
    this.sizes.time[index] = time;
    this.sizes.bytes[index] = bytes;
  }
}

/** Received packets' times and sizes, kept only while within the statistics window. */
export class ReceivedSizes extends SequenceSlots {
  time: Float64Array;
  bytes: Uint32Array;
  private readonly keep: number;

  constructor(size: number) {
    super(size);
    this.keep = Math.min(size, STATS_WINDOW);
    this.time = float64(this.capacity);
    this.bytes = uint32(this.capacity);
  }

  protected moveEntries(capacity: number, to: Int32Array): void {
    this.time = moved(this.time, float64, capacity, to);
    this.bytes = moved(this.bytes, uint32, capacity, to);
  }

  protected override mayReplace(_index: number, held: number, sequence: number): boolean {
    return ((sequence - held) & 0xffff) >= this.keep;
  }
}
