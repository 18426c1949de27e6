/**
 * Join requests per client address (an IPv4 address or an IPv6 /64): a token bucket each, `burst`
 * at once and `perSecond` back. The map is bounded: when full, buckets that have refilled are
 * dropped (an absent bucket is a full one), then the least recently used, so addresses in
 * rotation never make it grow. Time is the caller's, in seconds.
 */
import { addressKey } from '../transport/address-key.js';

interface Bucket {
  tokens: number;
  at: number;
}

export class JoinRate {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    readonly maxAddresses = 4096,
  ) {}

  /** Spends one request of `address` at `now`: 0 when allowed, else whole seconds to wait. */
  take(address: string, now: number): number {
    const key = addressKey(address);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxAddresses) this.evict(now);
      bucket = { tokens: this.burst, at: now };
    } else {
      this.buckets.delete(key); // re-inserted: the map's order is least recently used first
      this.refill(bucket, now);
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /** Addresses tracked now. */
  get size(): number {
    return this.buckets.size;
  }

  private refill(bucket: Bucket, now: number): void {
    if (now > bucket.at) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.perSecond);
      bucket.at = now;
    }
  }

  private evict(now: number): void {
    // A whole scan once a second at most, so a flood of new addresses costs O(1) each.
    if (now - this.sweptAt >= 1) {
      this.sweptAt = now;
      for (const [key, bucket] of this.buckets) {
        this.refill(bucket, now);
        if (bucket.tokens >= this.burst) this.buckets.delete(key);
      }
    }
    // Nothing refilled: the least recently used goes.
    if (this.buckets.size >= this.maxAddresses) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
  }
}
