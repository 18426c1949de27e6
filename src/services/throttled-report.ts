/**
 * Reports of an error that may recur every frame: the first at once, then at most one per
 * `intervalMs`, each naming how many were left unreported since the one before, so a persistent
 * fault is seen without flooding onError (~60 reports a second at a 60 Hz frame).
 */
export class ThrottledReport {
  /** Errors not reported since the last report. */
  private suppressed = 0;
  private lastMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly report: (error: unknown, where: string) => void,
    private readonly where: string,
    private readonly intervalMs = 1000,
  ) {
    if (!(intervalMs > 0 && intervalMs < Number.POSITIVE_INFINITY))
      throw new RangeError(`ThrottledReport: intervalMs must be a positive number, got ${intervalMs}`);
  }

  /** `error` happened at `nowMs`: reported, or counted for the next report. */
  add(error: unknown, nowMs: number): void {
    if (nowMs - this.lastMs < this.intervalMs) {
      this.suppressed++;
      return;
    }
    const where = this.suppressed > 0 ? `${this.where} (${this.suppressed} more not reported)` : this.where;
    this.lastMs = nowMs;
    this.suppressed = 0;
    this.report(error, where);
  }
}
