import { PendingRecords } from './pending-records.js';
import { SequenceBits } from './sequence-bits.js';
import { moved, SequenceSet, SequenceSlots } from './sequence-slots.js';

/** A sent packet's info word: its bytes (below 2^25: maxPacketSize ≤ 2^24 plus a header ≤ 1024) and two flags. */
const BYTES = (1 << 25) - 1;
const ACKED = 1 << 29;
const RESOLVED = 1 << 30;

const float64 = (n: number) => new Float64Array(n);
const uint32 = (n: number) => new Uint32Array(n);

/**
 * What a ReliableEndpoint remembers of the packets it sent, by sequence: when, how many bytes, acked
 * or not, resolved (acked or reported lost) or not, and the caller's record. A packet is kept while
 * it awaits its outcome (up to `size` sequences back, the configured sentPacketsBufferSize); a
 * resolved one may give its slot to a new packet, so the buffer grows to what is in flight and not
 * to `size` (the statistics tally packets as they go, TrafficWindow). The endpoint treats a packet
 * no longer here like one that left a full buffer.
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
  constructor(size: number) {
    super(size);
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

  protected override mayReplace(index: number): boolean {
    return (this.info[index] & RESOLVED) !== 0;
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
 * The sequences a ReliableEndpoint has received, over the whole received window (`size`, for ack
 * bits and duplicates): a bit each when `size` is a power of two of at least 32 (the defaults),
 * else growing slots. Their times and sizes are not kept: the statistics tally them as they arrive.
 */
export function receivedSequences(size: number): SequenceBits | SequenceSet {
  return size >= 32 && (size & (size - 1)) === 0 ? new SequenceBits(size) : new SequenceSet(size);
}
