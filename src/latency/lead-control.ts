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

/** Reports averaged before a correction (a starved buffer is corrected at its second report). */
const SAMPLES = 30;
/** An averaged error below this many ticks is left alone. */
const DEADBAND = 0.75;
/** Input ticks a clock steered at 10% takes to move one tick. */
const TICKS_PER_TICK_OF_LEAD = 10;
/** A lead change above this many ticks is jumped by ClockSync (its default jumpTicks), not steered. */
const JUMPED_TICKS = 10;

export class LeadControl {
  /** The accumulated correction, ticks. */
  lead = 0;
  /** Corrections made. */
  corrections = 0;
  private sum = 0;
  private count = 0;
  /** Reports about input ticks before this one predate the last correction's effect. */
  private holdUntil = -1;
  /** The last correction (negative: it slowed the clock). */
  private lastStep = 0;
  private starvedRun = 0;

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
    this.lastStep = 0;
    this.starvedRun = 0;
  }

  /**
   * One server report: the input tick it consumed last, the buffer depth then and its target;
   * `newestTick` is the client's newest pushed tick (when a correction made now starts to act).
   */
  report(inputTick: number, depth: number, target: number, newestTick: number): void {
    // Negative: the input of the tick just taken had not arrived (a 0 only warns). Two reports
    // in a row: one alone is as likely a late packet as a lagging clock.
    this.starvedRun = depth < 0 ? this.starvedRun + 1 : 0;
    const starved = this.starvedRun >= 2;
    // A correction on its way is waited for, unless it slowed the clock and the buffer starves.
    if (inputTick < this.holdUntil && !(starved && this.lastStep < 0)) return;
    this.sum += depth;
    this.count++;
    if (!starved && this.count < SAMPLES) return;
    // Starved: the newest report is the truth (the mean still holds the reports before the fall).
    const error = target - (starved ? depth : this.sum / this.count);
    this.sum = this.count = this.starvedRun = 0;
    if (Math.abs(error) < DEADBAND) return;
    const before = this.lead;
    this.lead = Math.max(-this.maxLead, Math.min(this.maxLead, this.lead + error));
    const moved = Math.abs(this.lead - before);
    if (moved === 0) return;
    this.corrections++;
    this.lastStep = this.lead - before;
    // A large correction is jumped at once (after a stall, say): only the settling time is waited.
    const steered = moved > JUMPED_TICKS ? 0 : Math.ceil(moved * TICKS_PER_TICK_OF_LEAD);
    this.holdUntil = newestTick + steered + this.settleTicks;
  }
}
