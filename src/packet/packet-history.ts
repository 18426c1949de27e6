import { STATS_WINDOW } from './endpoint-stats.js';
import { PendingRecords } from './pending-records.js';
import { SequenceBits } from './sequence-bits.js';
import { moved, SequenceSet, SequenceSlots } from './sequence-slots.js';

/** A sent packet's info word: its bytes (below 2^25: maxPacketSize ≤ 2^24 plus a header ≤ 1024) and two flags. */
const BYTES = (1 << 25) - 1;
const ACKED = 1 << 29;
const RESOLVED = 1 << 30;

const float64 = (n: number) => new Float64Array(n);
const uint32 = (n: number) => new Uint32Array(n);
/** Empty and shared, so never written: a ring is made at its first packet. */
const NO_TIMES = float64(0);
const NO_BYTES = uint32(0);

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
  private info: Uint32Array;
  /** Made at the first packet sent with a record: a connection that never sends one keeps none. */
  private records: PendingRecords<R> | null = null;
  /** Whether the packet of `sequence` is held and awaits its outcome (PendingRecords' staleness test). */
  private readonly pending = (sequence: number): boolean => {
    const index = this.indexOf(sequence);
    return index >= 0 && (this.info[index] & RESOLVED) === 0;
  };
  /** Resolved packets at least this far behind the newest may be dropped. */
  private readonly keep: number;

  constructor(size: number) {
    super(size);
    this.keep = Math.min(size, STATS_WINDOW);
    this.time = float64(this.capacity);
    this.info = uint32(this.capacity);
  }

  protected moveEntries(capacity: number, to: Int32Array): void {
    this.time = moved(this.time, float64, capacity, to);
    this.info = moved(this.info, uint32, capacity, to);
  }

  override reset(): void {
    super.reset();
    this.records?.clear();
  }

  protected override mayReplace(index: number, held: number, sequence: number): boolean {
    return (this.info[index] & RESOLVED) !== 0 && ((sequence - held) & 0xffff) >= this.keep;
  }

  /** Records a packet sent now; false when the sequence is too old to hold (never for the next sequence). */
  add(sequence: number, time: number, bytes: number, record: R | undefined): boolean {
    const index = this.insertIndex(sequence);
    if (index < 0) return false;
    this.time[index] = time;
    this.info[index] = bytes;
    if (record !== undefined) {
      this.records ??= new PendingRecords<R>();
      this.records.put(sequence, record, this.pending);
    } else {
      // A record left from an earlier packet of this sequence is not this packet's.
      this.records?.take(sequence);
    }
    return true;
  }

  bytesAt(index: number): number {
    return this.info[index] & BYTES;
  }

  acked(index: number): boolean {
    return (this.info[index] & ACKED) !== 0;
  }

  resolved(index: number): boolean {
    return (this.info[index] & RESOLVED) !== 0;
  }

  /** Marks the packet at `index` resolved (acked or lost) and hands back its record, dropping it here. */
  resolve(index: number, acked: boolean): R | undefined {
    this.info[index] = (this.info[index] & BYTES) | (acked ? ACKED | RESOLVED : RESOLVED);
    return this.records === null ? undefined : this.records.take(this.slots[index]);
  }
}

/**
 * What a ReliableEndpoint remembers of the packets it received: which sequences, over the whole
 * received window (`size`, for ack bits and duplicates), and when and how big, over the statistics
 * window only. When `size` is a power of two (the defaults), the sequences are a bit each and the
 * times and sizes a ring by sequence modulo the statistics window, current where the bits say so;
 * otherwise both are kept in growing slots (four bytes a sequence more).
 */
export class ReceivedPackets {
  /** The sequences held: canInsert / exists, and `sequence` (one past the newest). */
  readonly held: SequenceBits | SequenceSet;
  /** Times and sizes in slots of their own, when `held` is not a bit set; else null. */
  private readonly slotted: ReceivedSizes | null;
  private readonly window: number;
  /** The ring (made at the first packet), or empty when slotted. */
  private time: Float64Array;
  private bytes: Uint32Array;

  constructor(readonly size: number) {
    this.window = Math.min(size, STATS_WINDOW);
    if (size >= 32 && (size & (size - 1)) === 0) {
      this.held = new SequenceBits(size);
      this.slotted = null;
    } else {
      this.held = new SequenceSet(size);
      this.slotted = new ReceivedSizes(size, this.window);
    }
    this.time = NO_TIMES;
    this.bytes = NO_BYTES;
  }

  get sequence(): number {
    return this.held.sequence;
  }

  reset(): void {
    this.held.reset();
    this.slotted?.reset();
  }

  advance(sequence: number): void {
    this.held.advance(sequence);
    this.slotted?.advance(sequence);
  }

  /** Records a packet received now (the caller checked canInsert and exists). */
  add(sequence: number, time: number, bytes: number): void {
    this.held.insert(sequence);
    const slotted = this.slotted;
    if (slotted !== null) {
      const index = slotted.insertIndex(sequence);
      slotted.time[index] = time;
      slotted.bytes[index] = bytes;
    } else if (((this.held.sequence - 1 - sequence) & 0xffff) < this.window) {
      // An older packet outside the window is never read, and must not overwrite a current one.
      if (this.time === NO_TIMES) {
        this.time = float64(this.window);
        this.bytes = uint32(this.window);
      }
      const index = sequence & (this.window - 1);
      this.time[index] = time;
      this.bytes[index] = bytes;
    }
  }

  /** Where `sequence`'s time and size are (timeAt, bytesAt), or -1 when it is not held or outside the statistics window. */
  statsIndex(sequence: number): number {
    if (this.slotted !== null) return this.slotted.indexOf(sequence);
    if (((this.held.sequence - 1 - sequence) & 0xffff) >= this.window || !this.held.exists(sequence))
      return -1;
    return sequence & (this.window - 1);
  }

  timeAt(index: number): number {
    return this.slotted === null ? this.time[index] : this.slotted.time[index];
  }

  bytesAt(index: number): number {
    return this.slotted === null ? this.bytes[index] : this.slotted.bytes[index];
  }
}

/** Received packets' times and sizes, kept only while within the statistics window. */
export class ReceivedSizes extends SequenceSlots {
  time: Float64Array;
  bytes: Uint32Array;
  private readonly keep: number;

  constructor(size: number, keep: number) {
    super(size);
    this.keep = keep;
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
