import { movedRefs, SequenceSlots } from './sequence-slots.js';

/** A sent packet's info number: its bytes (below 2^25: maxPacketSize ≤ 2^24 plus a header ≤ 1024) and two flags. */
const BYTES = (1 << 25) - 1;
const ACKED = 1 << 29;
const RESOLVED = 1 << 30;

/**
 * What a ReliableEndpoint remembers of the packets it sent, by sequence: when, how many bytes, acked
 * or not, resolved (acked or reported lost) or not, and the caller's record. A packet is kept while
 * it awaits its outcome (up to `size` sequences back, the configured sentPacketsBufferSize); a
 * resolved one may give its slot to a new packet, so the buffer grows to what is in flight and not
 * to `size` (the statistics tally packets as they go, TrafficWindow). The endpoint treats a packet
 * no longer here like one that left a full buffer. Time and info share one array (a typed array
 * costs ~200 bytes besides its numbers), records one array beside it.
 */
export class SentPackets<R> extends SequenceSlots {
  /** Per slot: [time, info]. */
  private entries: Float64Array;
  /** Made at the first packet sent with a record: a connection that never sends one keeps none. */
  private records: (R | undefined)[] | null = null;

  constructor(size: number) {
    // 4 to start: a steady connection has a packet or two in flight; more double the slots.
    super(size, false, 4);
    this.entries = new Float64Array(2 * this.capacity);
  }

  protected moveEntries(capacity: number, to: Int32Array): void {
    const next = new Float64Array(2 * capacity);
    for (let i = 0; i < to.length; i++) {
      if (to[i] < 0) continue;
      next[2 * to[i]] = this.entries[2 * i];
      next[2 * to[i] + 1] = this.entries[2 * i + 1];
    }
    this.entries = next;
    if (this.records !== null) this.records = movedRefs(this.records, capacity, to, undefined);
  }

  override reset(): void {
    super.reset();
    this.records?.fill(undefined);
  }

  protected override mayReplace(index: number): boolean {
    return (this.entries[2 * index + 1] & RESOLVED) !== 0;
  }

  /** Records a packet sent now; false when the sequence is too old to hold (never for the next sequence). */
  add(sequence: number, time: number, bytes: number, record: R | undefined): boolean {
    const index = this.insertIndex(sequence);
    if (index < 0) return false;
    this.entries[2 * index] = time;
    this.entries[2 * index + 1] = bytes;
    if (record !== undefined) {
      this.records ??= new Array<R | undefined>(this.capacity).fill(undefined);
      this.records[index] = record;
    } else if (this.records !== null) {
      // A record left from an earlier packet in this slot is not this packet's.
      this.records[index] = undefined;
    }
    return true;
  }

  timeAt(index: number): number {
    return this.entries[2 * index];
  }

  bytesAt(index: number): number {
    return this.entries[2 * index + 1] & BYTES;
  }

  acked(index: number): boolean {
    return (this.entries[2 * index + 1] & ACKED) !== 0;
  }

  resolved(index: number): boolean {
    return (this.entries[2 * index + 1] & RESOLVED) !== 0;
  }

  /** Marks the packet at `index` resolved (acked or lost) and hands back its record, dropping it here. */
  resolve(index: number, acked: boolean): R | undefined {
    const info = this.entries[2 * index + 1];
    this.entries[2 * index + 1] = (info & BYTES) | (acked ? ACKED | RESOLVED : RESOLVED);
    const records = this.records;
    if (records === null) return undefined;
    const record = records[index];
    records[index] = undefined;
    return record;
  }
}
