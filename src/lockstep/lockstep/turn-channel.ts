import type { CustomChannel, PacketRecord } from '../../channels/channel.js';
import type { ScratchList } from '../../channels/scratch-list.js';
import type { ReadStream } from '../../serialize/read-stream.js';
import type { WriteStream } from '../../serialize/write-stream.js';
import { TurnList, type TurnListCodec } from './turn-list.js';
import type { TurnStore } from './turn-store.js';

/** Lists in one entry at most. */
export const MAX_LISTS_PER_PACKET = 64;
const RELATIVE_BITS = 10;
const RELATIVE_SPAN = 1 << RELATIVE_BITS;
/** A relative turn is used only while the receiver's reference is surely this close. */
const RELATIVE_LIMIT = 400;

/** What a received list is to the session: kept, a redundant copy, or refused. */
export const ACCEPT = 0;
export const STALE = 1;
export const TOO_FAR = 2;

/** The session as the turn channels see it. */
export interface TurnChannelHost<T> {
  readonly self: number;
  readonly store: TurnStore<T>;
  readonly lists: TurnListCodec<T>;
  /** This peer's newest sealed list (-1 before any). */
  readonly newestOwn: number;
  /** ACCEPT, STALE (already run, held, or past a departing peer's last) or TOO_FAR for `peer`'s list of `turn`. */
  judge(peer: number, turn: number): number;
  /** `peer`'s list for `turn` was stored (a turn may now be complete). */
  arrived(peer: number, turn: number): void;
  /** Copies of lists that were not kept. */
  stale(peer: number, count: number): void;
}

/**
 * The command lists between this peer and one other, as one custom-channel entry per packet:
 * out, every own list from `sendFrom` on that the other is not known to hold (learned from
 * packet acks, so a lost packet costs nothing while the next arrives); in, that peer's lists.
 * Entry: 1 bit "full" → the first turn as uint32, else its low 10 bits (the receiver takes the
 * turn nearest its newest from this sender); the count - 1 in 6 bits; the lists in turn order.
 */
export class TurnChannel<T> implements CustomChannel {
  /** Own lists before this turn are not sent to this peer (Infinity: it is not in the session). */
  private sendFrom = Number.POSITIVE_INFINITY;
  private ackedTurn = -1;
  private planFrom = 0;
  private planTo = -1;
  /** The newest turn applied from this peer (relative turns are read against it). */
  private reference = -1;
  private readonly scratch: TurnList<T>[] = [];
  private staged = 0;
  private stagedFirst = 0;

  constructor(
    private readonly host: TurnChannelHost<T>,
    readonly peer: number,
  ) {}

  /** Sends own lists from `turn` on, from scratch (a peer that joined, or the session started). */
  sendFromTurn(turn: number): void {
    this.sendFrom = turn;
    this.ackedTurn = -1;
  }

  /** Sends nothing more (the peer left). */
  stopSending(): void {
    this.sendFrom = Number.POSITIVE_INFINITY;
  }

  /** Own lists this peer may not hold yet. */
  get unacked(): number {
    const from = Math.max(this.ackedTurn + 1, this.sendFrom);
    return from > this.host.newestOwn ? 0 : this.host.newestOwn - from + 1;
  }

  select(_now: number, budgetBits: number): number {
    this.planTo = -1;
    const newest = this.host.newestOwn;
    const from = Math.max(this.ackedTurn + 1, this.sendFrom);
    if (from > newest) return 0;
    const store = this.host.store;
    const self = this.host.self;
    const head = this.headBits(from) + 6;
    let bits = head;
    let to = from - 1;
    for (let t = from; t <= newest && t - from < MAX_LISTS_PER_PACKET; t++) {
      const list = store.get(self, t);
      if (list === null || bits + list.bits > budgetBits) break;
      bits += list.bits;
      to = t;
    }
    if (to < from) return 0;
    this.planFrom = from;
    this.planTo = to;
    return bits;
  }

  private headBits(from: number): number {
    return this.relative(from) ? 1 + RELATIVE_BITS : 33;
  }

  private relative(from: number): boolean {
    return (
      this.ackedTurn >= 0 &&
      this.ackedTurn >= this.sendFrom - 1 &&
      this.host.newestOwn - this.ackedTurn < RELATIVE_LIMIT &&
      from > this.ackedTurn
    );
  }

  writeSelected(ws: WriteStream, _now: number, record: ScratchList<number>): void {
    const from = this.planFrom;
    const to = this.planTo;
    if (to < from) return;
    if (ws.bool(!this.relative(from))) ws.uint32(from);
    else ws.bits(from & (RELATIVE_SPAN - 1), RELATIVE_BITS);
    ws.int(to - from, 0, MAX_LISTS_PER_PACKET - 1);
    const store = this.host.store;
    for (let t = from; t <= to; t++) this.host.lists.write(ws, store.get(this.host.self, t)!);
    record.push(to);
    this.planTo = -1;
  }

  acked(record: PacketRecord, start: number, end: number): void {
    for (let k = start; k < end; k++) if (record[k] > this.ackedTurn) this.ackedTurn = record[k];
  }

  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    let first: number;
    if (rs.bool(false)) first = rs.uint32(0);
    else {
      const low = rs.bits(0, RELATIVE_BITS);
      const r = this.reference;
      if (rs.ok && r < 0) {
        rs.fail('relative turn before any full one');
        return false;
      }
      let d = (low - r) & (RELATIVE_SPAN - 1);
      if (d >= RELATIVE_SPAN / 2) d -= RELATIVE_SPAN;
      first = r + d;
    }
    const count = rs.int(0, 0, MAX_LISTS_PER_PACKET - 1) + 1;
    if (!rs.ok) return false;
    if (first < 0) {
      rs.fail('turn before 0');
      return false;
    }
    for (let i = 0; i < count; i++) {
      const turn = first + i;
      if (this.host.judge(this.peer, turn) === TOO_FAR) {
        rs.fail(`list for turn ${turn} too far ahead`);
        return false;
      }
      if (this.scratch.length <= i) this.scratch.push(new TurnList<T>());
      if (!this.host.lists.read(rs, turn, this.scratch[i])) return false;
    }
    this.stagedFirst = first;
    this.staged = count;
    staged.push(this);
    return true;
  }

  apply(): void {
    const host = this.host;
    let stale = 0;
    for (let i = 0; i < this.staged; i++) {
      const turn = this.stagedFirst + i;
      if (host.judge(this.peer, turn) !== ACCEPT || host.store.has(this.peer, turn)) {
        stale++;
        continue;
      }
      this.scratch[i] = host.store.swapIn(this.peer, this.scratch[i]);
      host.arrived(this.peer, turn);
    }
    const last = this.stagedFirst + this.staged - 1;
    if (last > this.reference) this.reference = last;
    this.staged = 0;
    if (stale > 0) host.stale(this.peer, stale);
  }
}
