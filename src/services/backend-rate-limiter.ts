/**
 * Requests per client address: a token bucket each (a burst, refilled at a steady rate), kept in a
 * map of bounded size. When the map is full, buckets that have refilled completely are dropped
 * first (an absent bucket is a full one, so nothing changes for them); then the least recently
 * used. An attacker rotating addresses can at worst refill someone's bucket early: it never makes
 * the map grow. Addresses are keyed by addressKey: an IPv6 client's whole /64 shares one bucket.
 */
import { addressKey } from '../transport/address-key.js';

export interface RateLimitOptions {
  /** Requests an address may make at once (default 30). */
  burst?: number;
  /** Requests per second an address gets back (default 10). */
  perSecond?: number;
  /** Addresses tracked at most (default 10000). */
  maxAddresses?: number;
}

interface Bucket {
  tokens: number;
  /** Unix ms of the last refill. */
  atMs: number;
}

export class RateLimiter {
  readonly burst: number;
  readonly perSecond: number;
  readonly maxAddresses: number;
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: RateLimitOptions = {}) {
    this.burst = options.burst ?? 30;
    this.perSecond = options.perSecond ?? 10;
    this.maxAddresses = options.maxAddresses ?? 10000;
    for (const [name, value] of Object.entries({
      burst: this.burst,
      perSecond: this.perSecond,
      maxAddresses: this.maxAddresses,
    })) {
      if (!Number.isFinite(value) || value <= 0)
        throw new RangeError(`rateLimit.${name} must be > 0, got ${value}`);
    }
  }

  /** Takes one token for `address` at `now` (unix ms): 0 if allowed, else the seconds to wait. */
  take(client: string, now: number): number {
    const address = addressKey(client);
    let bucket = this.buckets.get(address);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxAddresses) this.evict(now);
      bucket = { tokens: this.burst, atMs: now };
    } else {
      this.buckets.delete(address); // re-inserted below: the map's order is least recently used first
      bucket.tokens = Math.min(
        this.burst,
        bucket.tokens + (Math.max(0, now - bucket.atMs) / 1000) * this.perSecond,
      );
      bucket.atMs = Math.max(bucket.atMs, now);
    }
    this.buckets.set(address, bucket);
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

  private evict(now: number): void {
    // A whole scan at most once a second, so a flood of new addresses costs O(1) each.
    if (now - this.sweptAt >= 1000) {
      this.sweptAt = now;
      this.dropRefilled(now);
    }
    if (this.buckets.size < this.maxAddresses) return;
    const oldest = this.buckets.keys().next();
    if (!oldest.done) this.buckets.delete(oldest.value);
  }

  private dropRefilled(now: number): void {
    for (const [address, bucket] of this.buckets) {
      if (bucket.tokens + (Math.max(0, now - bucket.atMs) / 1000) * this.perSecond >= this.burst)
        this.buckets.delete(address);
    }
  }
}
