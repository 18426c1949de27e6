/**
 * The client's half of time dilation: from the input buffer depth the server reports, a
 * correction (ticks) the game adds to its ClockSync lead. ClockSync turns a change of lead into a
 * rate change of at most ±10%, so the loop has a dead time (the correction has to reach the
 * clock, the inputs pushed after it the server, and its report the client); an integrator
 * acting on every sample inside that dead time would overshoot and oscillate. So each
 * correction is made once, by the whole error, and the reports of inputs pushed before it has
 * taken effect are ignored; a small error (the deadband) is left alone, so a steady buffer
 * stays still.
 */

/** Reports averaged before a correction (a starved buffer is corrected at its first report). */
const SAMPLES = 20;
/** An averaged error below this many ticks is left alone. */
const DEADBAND = 0.75;
/** Input ticks a clock steered at 10% takes to move one tick. */
const TICKS_PER_TICK_OF_LEAD = 10;

export class LeadControl {
  /** The accumulated correction, ticks. */
  lead = 0;
  /** Corrections made. */
  corrections = 0;
  private sum = 0;
  private count = 0;
  /** Reports about input ticks before this one predate the last correction's effect. */
  private holdUntil = -1;

  constructor(
    /** Input ticks a correction is given to settle beyond the rate change (ClockSync's tail). */
    private readonly settleTicks: number,
    /** The largest |lead| (the server's window: beyond it the server resynchronizes). */
    private readonly maxLead: number,
  ) {}

  reset(): void {
    this.lead = 0;
    this.corrections = 0;
    this.sum = this.count = 0;
    this.holdUntil = -1;
  }

  /**
   * One server report: the input tick it consumed last, the buffer depth then and its target;
   * `newestTick` is the client's newest pushed tick (when a correction made now starts to act).
   */
  report(inputTick: number, depth: number, target: number, newestTick: number): void {
    if (inputTick < this.holdUntil) return;
    this.sum += depth;
    this.count++;
    const starved = depth <= 0 && target > 0;
    if (!starved && this.count < SAMPLES) return;
    const error = target - this.sum / this.count;
    this.sum = this.count = 0;
    if (Math.abs(error) < DEADBAND) return;
    const before = this.lead;
    this.lead = Math.max(-this.maxLead, Math.min(this.maxLead, this.lead + error));
    const moved = Math.abs(this.lead - before);
    if (moved === 0) return;
    this.corrections++;
    this.holdUntil = newestTick + Math.ceil(moved * TICKS_PER_TICK_OF_LEAD) + this.settleTicks;
  }
}
