import { MAX_CHECKSUMS_PER_PACKET } from './rollback-channel.js';

/** Checksums kept per side (a power of two): a peer's arrive at most a few intervals apart from ours. */
const RING = 16;

/**
 * The checksums of checksum frames, ours and each peer's, compared once both are known. Ours are
 * sent until acked (the newest few per packet); a pair is compared once, whichever arrives last.
 */
export class ChecksumLedger {
  private readonly localFrames = new Float64Array(RING).fill(-1);
  private readonly localSums = new Uint32Array(RING);
  private readonly remoteFrames: Float64Array[] = [];
  private readonly remoteSums: Uint32Array[] = [];
  private readonly compared: Float64Array;
  /** The newest checksum frame we computed (-1 before any). */
  newestLocal = -1;

  constructor(
    peers: number,
    private readonly interval: number,
    private readonly onCompare: (peer: number, frame: number, local: number, remote: number) => void,
  ) {
    for (let p = 0; p < peers; p++) {
      this.remoteFrames.push(new Float64Array(RING).fill(-1));
      this.remoteSums.push(new Uint32Array(RING));
    }
    this.compared = new Float64Array(peers).fill(-1);
  }

  private slot(frame: number): number {
    return (frame / this.interval) & (RING - 1);
  }

  recordLocal(frame: number, sum: number): void {
    const s = this.slot(frame);
    this.localFrames[s] = frame;
    this.localSums[s] = sum;
    this.newestLocal = frame;
    for (let p = 0; p < this.remoteFrames.length; p++)
      if (this.remoteFrames[p][s] === frame) this.compare(p, frame, sum, this.remoteSums[p][s]);
  }

  recordRemote(peer: number, frame: number, sum: number): void {
    const s = this.slot(frame);
    this.remoteFrames[peer][s] = frame;
    this.remoteSums[peer][s] = sum;
    if (this.localFrames[s] === frame) this.compare(peer, frame, this.localSums[s], sum);
  }

  private compare(peer: number, frame: number, local: number, remote: number): void {
    if (frame <= this.compared[peer]) return; // a resend of one already compared
    this.compared[peer] = frame;
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
