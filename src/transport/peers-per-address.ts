import { addressKey } from './address-key.js';

/**
 * How many peers each client holds on a server transport, so that one client cannot take every
 * peer: clients are keyed by `addressKey` (an IPv4 address, mapped `::ffff:a.b.c.d` or not, or an
 * IPv6 /64, which one client can fill with addresses of its own choosing).
 */
export class PeersPerAddress {
  private readonly counts = new Map<string, number>();

  constructor(readonly maxPerAddress: number) {
    if (!Number.isInteger(maxPerAddress) || maxPerAddress < 1)
      throw new RangeError(`PeersPerAddress: maxPerAddress must be a positive integer, got ${maxPerAddress}`);
  }

  /** Counts one more peer for `remoteIp` and returns its key; null (nothing counted) at the maximum. */
  take(remoteIp: string): string | null {
    const key = addressKey(remoteIp);
    const count = this.counts.get(key) ?? 0;
    if (count >= this.maxPerAddress) return null;
    this.counts.set(key, count + 1);
    return key;
  }

  /** Forgets one peer of the client `key` (from take). */
  release(key: string): void {
    const count = this.counts.get(key) ?? 0;
    if (count <= 1) this.counts.delete(key);
    else this.counts.set(key, count - 1);
  }

  /** The peers counted for `remoteIp`'s client now. */
  count(remoteIp: string): number {
    return this.counts.get(addressKey(remoteIp)) ?? 0;
  }

  /** Clients holding at least one peer. */
  get addresses(): number {
    return this.counts.size;
  }
}
