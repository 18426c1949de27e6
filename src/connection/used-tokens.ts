import type { Address } from '../transport/address.js';

/**
 * Connect tokens whose handshake completed, each tied to the address that completed it until the
 * token expires: a captured request and response replayed from another address are refused even
 * after the client has left. Only a completed handshake adds an entry (a request alone never
 * does), so a flood of requests cannot fill it. Bounded by `capacity`: when full, the oldest
 * entry is dropped (it then needs `capacity` newer completed handshakes, each one a valid token
 * taking a slot, to lose its protection).
 */
export class UsedTokens {
  /** In order of completion. */
  private readonly byToken = new Map<string, { address: Address; expires: number }>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.byToken.size;
  }

  /** Whether `token` completed a handshake from an address other than `address` and has not expired. */
  heldElsewhere(token: string, address: Address, now: number): boolean {
    const entry = this.byToken.get(token);
    if (entry === undefined) return false;
    if (entry.expires < now) {
      this.byToken.delete(token);
      return false;
    }
    return entry.address !== address;
  }

  /** Records `token` as used from `address`; true when the oldest entry, unexpired, was dropped for it. */
  add(token: string, address: Address, expires: number, now: number): boolean {
    this.byToken.delete(token);
    let evicted = false;
    if (this.byToken.size >= this.capacity) {
      const [oldest, entry] = this.byToken.entries().next().value as [string, { expires: number }];
      evicted = entry.expires >= now;
      this.byToken.delete(oldest);
    }
    this.byToken.set(token, { address, expires });
    return evicted;
  }

  clear(): void {
    this.byToken.clear();
  }
}
