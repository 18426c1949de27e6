/**
 * How the peers of a rollback session agree on the last frame of a peer that left or timed out,
 * so they can go on without it (GGPO's disconnected player).
 *
 * Only this peer's own links start a departure (their `left` / `timedOut` event): from then on
 * the departed peer's packets are dropped here, so the newest frame of its inputs held here is
 * frozen, and that frame is reported to every other peer (until acked). A peer's report about a
 * departure can only lower the agreed frame, never start one: the agreed last frame is the
 * minimum of our own and every remaining peer's report, decided once all of them reported. Every
 * survivor takes the same minimum, rolls back to the frame after it and runs the departed peer
 * with the initial input from there, so all of them end in the same state.
 */
export const NO_REPORT = -2;

export class RollbackDepartures {
  /** Our links reported the peer gone (its inputs are frozen here). */
  readonly gone: boolean[];
  /** Agreed: the peer runs with the initial input after `lastFrame[peer]`. */
  readonly departed: boolean[];
  readonly lastFrame: Float64Array;
  /** What we tell the others, in the order our links reported: peer, then our last frame of it. */
  readonly reports: number[] = [];
  /** reports[reporter * maxPeers + peer]: the reporter's last frame of `peer`, or NO_REPORT. */
  private readonly heard: Float64Array;

  constructor(
    readonly maxPeers: number,
    readonly self: number,
  ) {
    this.gone = new Array(maxPeers).fill(false);
    this.departed = new Array(maxPeers).fill(false);
    this.lastFrame = new Float64Array(maxPeers).fill(Number.POSITIVE_INFINITY);
    this.heard = new Float64Array(maxPeers * maxPeers).fill(NO_REPORT);
  }

  /** Our links lost `peer`, whose newest input held here is `last`. */
  noteLocal(peer: number, last: number): void {
    if (this.gone[peer]) return;
    this.gone[peer] = true;
    this.heard[this.self * this.maxPeers + peer] = last;
    this.reports.push(peer, last);
  }

  /** `reporter` lost `peer` at `last` (its first report stands; about itself or us it means nothing). */
  noteRemote(reporter: number, peer: number, last: number): void {
    if (peer === reporter || peer === this.self) return;
    const i = reporter * this.maxPeers + peer;
    if (this.heard[i] === NO_REPORT) this.heard[i] = last;
  }

  /** Whether a departure started here and is not yet agreed. */
  pending(): boolean {
    for (let p = 0; p < this.maxPeers; p++) if (this.gone[p] && !this.departed[p]) return true;
    return false;
  }

  /**
   * The agreed last frame of `peer` once every remaining peer reported it, else null. The
   * remaining peers are those our links still hold.
   */
  agreed(peer: number): number | null {
    if (!this.gone[peer] || this.departed[peer]) return null;
    let least = this.heard[this.self * this.maxPeers + peer];
    for (let r = 0; r < this.maxPeers; r++) {
      if (r === this.self || r === peer || this.gone[r]) continue;
      const last = this.heard[r * this.maxPeers + peer];
      if (last === NO_REPORT) return null;
      if (last < least) least = last;
    }
    return least;
  }

  settle(peer: number, last: number): void {
    this.departed[peer] = true;
    this.lastFrame[peer] = last;
  }

  /**
   * Whether a checksum of `frame` may have been taken with inputs a departure replaced: up to
   * `span` frames after an agreed last frame (a survivor may have held that many more of the
   * departed peer's inputs), or anything while an agreement is pending.
   */
  clouded(frame: number, span: number): boolean {
    if (this.pending()) return true;
    for (let p = 0; p < this.maxPeers; p++) {
      const last = this.lastFrame[p];
      if (frame > last + 1 && frame <= last + 1 + span) return true;
    }
    return false;
  }
}
