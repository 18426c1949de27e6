import { MAX_CHECKSUMS_PER_PACKET } from './rollback-channel.js';

/** Checksum frames kept per side at least (a power of two). */
const MIN_RING = 16;

/**
 * The checksums of checksum frames, ours and each peer's, compared once both are known. Ours are
 * sent until acked (the newest few per packet); a pair is compared once, whichever arrives last.
 */
export class ChecksumLedger {
  private readonly ring: number;
  private readonly localFrames: Float64Array;
  private readonly localSums: Uint32Array;
  private readonly remoteFrames: Float64Array[] = [];
  private readonly remoteSums: Uint32Array[] = [];
  /** Per peer and slot: the frame compared there (each pair once, in any order). */
  private readonly comparedFrames: Float64Array[] = [];
  /** The newest checksum frame we computed (-1 before any). */
  newestLocal = -1;
  /** Pairs never compared: one side's checksum was overwritten before the other's arrived. */
  skipped = 0;

  /**
   * `horizon`: how many frames apart ours and a peer's checksum for one frame can be made (the
   * prediction window and the peers' drift): the ring holds that many checksum frames and more.
   */
  constructor(
    peers: number,
    private readonly interval: number,
    horizon: number,
    private readonly onCompare: (peer: number, frame: number, local: number, remote: number) => void,
  ) {
    let ring = MIN_RING;
    while (ring < 2 * Math.ceil(horizon / interval) + 8) ring *= 2;
    this.ring = ring;
    this.localFrames = new Float64Array(ring).fill(-1);
    this.localSums = new Uint32Array(ring);
    for (let p = 0; p < peers; p++) {
      this.remoteFrames.push(new Float64Array(ring).fill(-1));
      this.remoteSums.push(new Uint32Array(ring));
      this.comparedFrames.push(new Float64Array(ring).fill(-1));
    }
  }

  private slot(frame: number): number {
    return (frame / this.interval) & (this.ring - 1);
  }

  recordLocal(frame: number, sum: number): void {
    const s = this.slot(frame);
    this.localFrames[s] = frame;
    this.localSums[s] = sum;
    this.newestLocal = frame;
    for (let p = 0; p < this.remoteFrames.length; p++) {
      const remote = this.remoteFrames[p][s];
      if (remote === frame) this.compare(p, s, frame, sum, this.remoteSums[p][s]);
      else if (remote > frame && this.comparedFrames[p][s] !== frame) this.skipped++; // theirs is gone
    }
  }

  recordRemote(peer: number, frame: number, sum: number): void {
    const s = this.slot(frame);
    const local = this.localFrames[s];
    if (local > frame) {
      // Ours for it was overwritten (a resend of one compared is not a loss; counted once).
      if (this.comparedFrames[peer][s] < frame) {
        this.skipped++;
        this.comparedFrames[peer][s] = frame;
      }
      return;
    }
    if (this.remoteFrames[peer][s] > frame) return; // an older resend
    this.remoteFrames[peer][s] = frame;
    this.remoteSums[peer][s] = sum;
    if (local === frame) this.compare(peer, s, frame, this.localSums[s], sum);
  }

  private compare(peer: number, s: number, frame: number, local: number, remote: number): void {
    if (this.comparedFrames[peer][s] === frame) return; // a resend of one already compared
    this.comparedFrames[peer][s] = frame;
    this.onCompare(peer, frame, local, remote);
  }

  /** Our newest checksums after frame `after` (at most a packet's worth, oldest first); the count. */
  after(after: number, frames: Float64Array, sums: Uint32Array): number {
    if (this.newestLocal <= after) return 0;
    const next = (Math.floor(after / this.interval) + 1) * this.interval;
    const first = Math.max(next, this.newestLocal - (MAX_CHECKSUMS_PER_PACKET - 1) * this.interval);
    let count = 0;
    for (let f = first; f <= this.newestLocal; f += this.interval) {
      const s = this.slot(f);
      if (this.localFrames[s] !== f) continue;
      frames[count] = f;
      sums[count++] = this.localSums[s];
    }
    return count;
  }
}
