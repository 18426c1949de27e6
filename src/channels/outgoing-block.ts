import type { WriteStream } from '../serialize/write-stream.js';
import type { ResolvedChannelConfig } from './config.js';
import type { ScratchList } from './scratch-list.js';

/**
 * Slack in resend timing: ticks add up floating-point time, so six ticks of 1/60 s can fall a hair
 * short of a 0.1 s interval, and the resend would wait a whole extra tick.
 */
export const TIME_EPSILON = 1e-6;

/** Most fragments of one block in one packet. */
export const MAX_FRAGMENTS_PER_PACKET = 64;

/**
 * The sending state of one block: its bytes and, per fragment, whether it is acked, when it was
 * last sent and how many copies of its first resend are still owed. Fragments follow the channel's
 * resend policy exactly as messages do (never again within `resendInterval`; the first resend
 * rides in `resendCopies` packets in a row).
 *
 * Unacked fragments are visited round-robin from where the last packet stopped, not from the
 * first: a block is complete only once every fragment is in, and with a round trip longer than the
 * resend interval, going lowest-index-first would resend the first interval's worth of fragments
 * over and over and send the rest only after those come back acked (a few KB per round trip).
 * The pending list holds the unacked fragments (swap-removed on ack), so a packet visits only
 * those, never the acked part of a large block.
 */
export class OutgoingBlock {
  readonly data: Uint8Array;
  readonly fragmentBytes: number;
  readonly fragments: number;
  /** Bits a fragment index takes on the wire. */
  readonly indexBits: number;
  fragmentsAcked = 0;
  /** Bytes of the fragments acked so far (kept as they are acked: progress reads it every frame). */
  ackedBytes = 0;
  private readonly acked: Uint8Array;
  private readonly lastSent: Float64Array;
  /** 0 never sent, 1 sent once, 2 resent at least once. */
  private readonly sends: Uint8Array;
  private readonly copiesDue: Uint8Array;
  /** Unacked fragment indices [0, pendingCount), and each fragment's place in that list. */
  private readonly pending: Int32Array;
  private readonly place: Int32Array;
  private pendingCount: number;
  private cursor = 0;

  constructor(data: Uint8Array, fragmentBytes: number) {
    this.data = data;
    this.fragmentBytes = fragmentBytes;
    const n = Math.ceil(data.length / fragmentBytes);
    this.fragments = n;
    this.indexBits = n <= 1 ? 0 : 32 - Math.clz32(n - 1);
    this.acked = new Uint8Array(n);
    this.lastSent = new Float64Array(n);
    this.sends = new Uint8Array(n);
    this.copiesDue = new Uint8Array(n);
    this.pending = new Int32Array(n);
    this.place = new Int32Array(n);
    for (let f = 0; f < n; f++) this.pending[f] = this.place[f] = f;
    this.pendingCount = n;
  }

  fragmentLength(f: number): number {
    return Math.min(this.fragmentBytes, this.data.length - f * this.fragmentBytes);
  }

  private due(f: number, now: number, interval: number): boolean {
    return this.sends[f] === 0 || this.copiesDue[f] > 0 || this.lastSent[f] + interval <= now + TIME_EPSILON;
  }

  /**
   * Chooses the fragments due now that fit in `budgetBits` (after `usedBits`), round-robin from
   * the cursor, into `chosen`; returns the bits used. Visits each unacked fragment at most once.
   */
  select(
    now: number,
    interval: number,
    usedBits: number,
    budgetBits: number,
    chosen: ScratchList<number>,
  ): number {
    const count = this.pendingCount;
    let misfits = 0;
    for (let k = 0; k < count && chosen.length < MAX_FRAGMENTS_PER_PACKET && misfits < 2; k++) {
      const f = this.pending[(this.cursor + k) % count];
      if (!this.due(f, now, interval)) continue;
      const cost = this.indexBits + 7 + this.fragmentLength(f) * 8;
      if (usedBits + cost > budgetBits) {
        misfits++; // only the last fragment is shorter: a second try, not a scan of the whole block
        continue;
      }
      usedBits += cost;
      chosen.push(f);
    }
    return usedBits;
  }

  /**
   * Writes the block part of an entry with the `chosen` fragments (after the kind bit): id, total
   * bytes, count, then each fragment's index, align and bytes; records the count and the fragments
   * in `record`. Returns how many were resends or copies.
   */
  write(
    ws: WriteStream,
    id: number,
    now: number,
    c: ResolvedChannelConfig,
    chosen: ScratchList<number>,
    record: ScratchList<number>,
  ): number {
    const count = chosen.length;
    let resent = 0;
    ws.bits(id, 16);
    ws.int(this.data.length, 1, c.maxBlockBytes);
    ws.int(count, 1, MAX_FRAGMENTS_PER_PACKET);
    record.push(count);
    for (let k = 0; k < count; k++) {
      const f = chosen.items[k];
      ws.int(f, 0, this.fragments - 1);
      ws.align();
      ws.writer.writeBytes(this.data, f * this.fragmentBytes, this.fragmentLength(f));
      if (this.sent(f, now, c.resendInterval, c.resendCopies)) resent++;
      record.push(f);
    }
    this.advance(chosen);
    return resent;
  }

  /**
   * Fragment `f` was written now: the same bookkeeping as a message (a copy of the first resend
   * does not restart the interval). Returns true when this was a resend or a copy.
   */
  private sent(f: number, now: number, interval: number, copies: number): boolean {
    const resend = this.sends[f] > 0;
    if (this.copiesDue[f] > 0 && this.lastSent[f] + interval > now + TIME_EPSILON) this.copiesDue[f]--;
    else {
      this.copiesDue[f] = this.sends[f] === 1 ? copies - 1 : 0;
      this.lastSent[f] = now;
    }
    if (this.sends[f] < 2) this.sends[f]++;
    return resend;
  }

  /**
   * Moves the cursor after the packet that carried `chosen`: back to the first fragment that still
   * owes a copy of its first resend (the copy rides in the next packet), else past the last one.
   */
  private advance(chosen: ScratchList<number>): void {
    if (this.pendingCount === 0 || chosen.length === 0) return;
    for (let k = 0; k < chosen.length; k++) {
      const f = chosen.items[k];
      if (this.copiesDue[f] > 0) {
        this.cursor = this.place[f];
        return;
      }
    }
    this.cursor = (this.place[chosen.items[chosen.length - 1]] + 1) % this.pendingCount;
  }

  /** Fragment `f` was acked; true when that completes the block. */
  ack(f: number): boolean {
    if (f < 0 || f >= this.fragments || this.acked[f]) return this.fragmentsAcked === this.fragments;
    this.acked[f] = 1;
    this.fragmentsAcked++;
    this.ackedBytes += this.fragmentLength(f);
    const at = this.place[f];
    const last = this.pending[--this.pendingCount];
    this.pending[at] = last;
    this.place[last] = at;
    if (this.cursor >= this.pendingCount) this.cursor = 0;
    return this.fragmentsAcked === this.fragments;
  }
}
