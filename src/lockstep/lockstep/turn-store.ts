import { TurnList } from './turn-list.js';

/** Turns of lists kept per peer: the window ahead (4 × delay + 8 ≤ 72) and the recent past a departure may need. */
export const TURN_RING = 256;
const MASK = TURN_RING - 1;

/**
 * Every peer's command lists by turn, this peer's own included: a ring of TURN_RING turns per peer,
 * made when a peer first sends one. A list is stored by swapping it with the slot's old one, which
 * the caller reuses, so a warm session allocates nothing per list.
 */
export class TurnStore<T> {
  private readonly rings: (TurnList<T>[] | null)[];

  constructor(readonly maxPeers: number) {
    this.rings = new Array(maxPeers).fill(null);
  }

  private ring(peer: number): TurnList<T>[] {
    let ring = this.rings[peer];
    if (ring === null) {
      ring = Array.from({ length: TURN_RING }, () => new TurnList<T>());
      this.rings[peer] = ring;
    }
    return ring;
  }

  get(peer: number, turn: number): TurnList<T> | null {
    const ring = this.rings[peer];
    if (ring === null || turn < 0) return null;
    const list = ring[turn & MASK];
    return list.turn === turn ? list : null;
  }

  has(peer: number, turn: number): boolean {
    return this.get(peer, turn) !== null;
  }

  /** Stores `list` (for its turn) and returns the list it replaced, now the caller's. */
  swapIn(peer: number, list: TurnList<T>): TurnList<T> {
    const ring = this.ring(peer);
    const slot = list.turn & MASK;
    const old = ring[slot];
    ring[slot] = list;
    return old;
  }

  /** The slot a new own list for `turn` is written into (reset to that turn). */
  claim(peer: number, turn: number): TurnList<T> {
    const list = this.ring(peer)[turn & MASK];
    list.reset(turn);
    return list;
  }

  /** The last turn t ≥ from - 1 such that every list from `from` to t is held. */
  contiguous(peer: number, from: number): number {
    let t = from;
    while (t - from < TURN_RING && this.has(peer, t)) t++;
    return t - 1;
  }

  /** Forgets a peer's lists (it left, or a joiner's view starts afresh). */
  forget(peer: number): void {
    const ring = this.rings[peer];
    if (ring !== null) for (const list of ring) list.reset(-1);
  }
}
