/**
 * A token bucket of datagrams for one peer: `perSecond` refill, at most one second's worth held, so
 * a peer may burst a second's allowance and then keeps to the rate. Time is the caller's, in seconds.
 */
export class DatagramRate {
  private tokens: number;
  private last: number;

  constructor(
    private perSecond: number,
    now: number,
  ) {
    this.tokens = perSecond;
    this.last = now;
  }

  /** Changes the rate from now on (the tokens held stay, capped at the new burst). */
  setRate(perSecond: number): void {
    this.perSecond = perSecond;
    if (this.tokens > perSecond) this.tokens = perSecond;
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.perSecond, this.tokens + (now - this.last) * this.perSecond);
      this.last = now;
    }
  }

  /** Spends one datagram's token at `now`; false when none is left. */
  take(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Whether a whole second's allowance is back at `now` (refills, spends nothing). */
  full(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.perSecond;
  }
}
