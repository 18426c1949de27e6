/**
 * A token bucket per peer: each may send `rate` datagrams a second, with a second's worth as a
 * burst (packets bunch up behind jitter or a stalled tab); past that they are dropped unread.
 */
export class PacketRateLimit {
  private readonly tokens: Float64Array;
  private last: number;

  constructor(
    peers: number,
    private readonly rate: number,
    now: number,
  ) {
    this.tokens = new Float64Array(peers).fill(rate);
    this.last = now;
  }

  /** Adds what the time since the last refill earned (call once per update). */
  refill(now: number): void {
    const add = (now - this.last) * this.rate;
    this.last = now;
    for (let p = 0; p < this.tokens.length; p++) this.tokens[p] = Math.min(this.rate, this.tokens[p] + add);
  }

  /** Takes a token for a datagram from `peer`; false when it is over its rate. */
  take(peer: number): boolean {
    if (this.tokens[peer] < 1) return false;
    this.tokens[peer]--;
    return true;
  }
}
