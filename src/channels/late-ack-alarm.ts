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

  /** Calls `report` with the late acks counted since the last call, if any, and a second has passed. */
  check(lateAcks: number, now: number, report: (count: number) => void): void {
    if (lateAcks === this.reported || now - this.at < 1) return;
    const count = lateAcks - this.reported;
    this.reported = lateAcks;
    this.at = now;
    report(count);
  }
}
