/**
 * A token bucket per player (friend requests): a burst, refilled at a steady rate, in a map of
 * bounded size. A full map first drops buckets that have refilled (absent = full, so nothing
 * changes for them; a scan at most once a second), then the least recently used.
 */
export class PlayerRate {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();
  private sweptAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly burst: number,
    private readonly perMinute: number,
    private readonly maxPlayers = 100_000,
  ) {}

  /** Takes one token for `accountId`: 0 when allowed, else the seconds to wait. */
  take(accountId: string, nowMs: number): number {
    const perMs = this.perMinute / 60_000;
    let bucket = this.buckets.get(accountId);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxPlayers) this.evict(nowMs);
      bucket = { tokens: this.burst, atMs: nowMs };
    } else {
      this.buckets.delete(accountId); // re-inserted: least recently used first
      bucket.tokens = Math.min(this.burst, bucket.tokens + Math.max(0, nowMs - bucket.atMs) * perMs);
      bucket.atMs = Math.max(bucket.atMs, nowMs);
    }
    this.buckets.set(accountId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }

  /** Players tracked now. */
  get size(): number {
    return this.buckets.size;
  }

  private evict(nowMs: number): void {
    const perMs = this.perMinute / 60_000;
    // A whole scan at most once a second, so a flood of new players costs O(1) each.
    if (nowMs - this.sweptAtMs >= 1000) this.sweptAtMs = nowMs;
    else if (this.buckets.size >= this.maxPlayers) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
      return;
    }
    for (const [id, bucket] of this.buckets)
      if (bucket.tokens + Math.max(0, nowMs - bucket.atMs) * perMs >= this.burst) this.buckets.delete(id);
    if (this.buckets.size < this.maxPlayers) return;
    const oldest = this.buckets.keys().next();
    if (!oldest.done) this.buckets.delete(oldest.value);
  }
}
