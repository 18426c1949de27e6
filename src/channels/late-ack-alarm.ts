/**
 * Reports rising late acks (see ConnectionStats.lateAcks) at most once a second per connection,
 * with the number counted since the last report.
 */
export class LateAckAlarm {
  private reported = 0;
  private at = Number.NEGATIVE_INFINITY;

  /** A new connection: its endpoint counts from zero. */
  reset(): void {
    this.reported = 0;
    this.at = Number.NEGATIVE_INFINITY;
  }

  /**
   * The late acks counted since the last report when one is due now (some were counted, and a
   * second has passed), marking them reported; 0 when none is due. Takes no callback, so the
   * per-connection check in every update allocates nothing.
   */
  due(lateAcks: number, now: number): number {
    if (lateAcks === this.reported || now - this.at < 1) return 0;
    const count = lateAcks - this.reported;
    this.reported = lateAcks;
    this.at = now;
    return count;
  }
}
