/** Samples averaged per peer (GGRS averages over 30 frames; a power of two here). */
const WINDOW = 32;
/** Fresh samples needed before a decision: a wait only counts once its effect is measured. */
const MIN_SAMPLES = 16;

/**
 * How far this peer runs ahead of one remote peer, in frames, averaged over a window: the local
 * sample is our frame minus the remote's estimated frame now (the frame its packet carried plus
 * half the RTT), the remote sample is the same figure the remote measured and sent us. Were both
 * clocks in step they would be opposite; half their difference is how many frames we should wait
 * for the other to be level (a peer ahead sees its remote inputs late, so it rolls back more and
 * makes the other wait on its predictions).
 */
export class FrameAdvantage {
  private readonly local = new Float64Array(WINDOW);
  private readonly remote = new Float64Array(WINDOW);
  private count = 0;
  private next = 0;
  /** Running sums of the window (recomputed at reset, so rounding cannot drift for long). */
  private localSum = 0;
  private remoteSum = 0;
  /** The remote's newest reported advantage (frames). */
  private remoteNow = 0;
  /** The newest local sample (frames), sent to the remote. */
  latest = 0;

  /** A packet from the peer: its frame when sent and its reported advantage; our frame now. */
  sample(
    localFrame: number,
    remoteFrame: number,
    rttSeconds: number,
    frameRate: number,
    reported: number,
  ): void {
    const halfTrip = (rttSeconds / 2) * frameRate;
    const estimate = remoteFrame + halfTrip;
    this.latest = localFrame - estimate;
    // An honest report is about the opposite of ours, off by at most the error in our estimate
    // (half a round trip) and a frame of sampling; more is taken as the most that is plausible,
    // so a peer cannot make us wait by reporting itself far behind.
    const slack = halfTrip + 1;
    if (reported < -this.latest - slack) reported = -this.latest - slack;
    else if (reported > -this.latest + slack) reported = -this.latest + slack;
    this.remoteNow = reported;
    if (this.count === WINDOW) {
      this.localSum -= this.local[this.next];
      this.remoteSum -= this.remote[this.next];
    } else this.count++;
    this.local[this.next] = this.latest;
    this.remote[this.next] = reported;
    this.localSum += this.latest;
    this.remoteSum += reported;
    this.next = (this.next + 1) & (WINDOW - 1);
  }

  /** Frames we should wait for this peer (half the averaged difference), or 0 without enough samples. */
  recommendedWait(): number {
    if (this.count < MIN_SAMPLES) return 0;
    return (this.localSum - this.remoteSum) / (2 * this.count);
  }

  /** The remote's newest report (frames it is ahead of us by its own measure), as clamped. */
  get reported(): number {
    return this.remoteNow;
  }

  /** Forgets the samples (after a wait: the next decision needs fresh ones). */
  reset(): void {
    this.count = 0;
    this.next = 0;
    this.localSum = 0;
    this.remoteSum = 0;
  }
}
