import type { Address } from '../transport/address.js';

/** An address that presented a valid connect token and was challenged: what its response needs. */
export interface PendingHandshake {
  sendKey: Uint8Array;
  receiveKey: Uint8Array;
  /** The token's timeout in seconds (≤ 0: none). */
  timeout: number;
  /** Server time after which the entry is gone, whatever happens (never past the token's expiry). */
  expireTime: number;
  lastAccess: number;
  transport: number;
  /** The token's MAC (as a string key) and its expiry on the server's clock, for UsedTokens. */
  token: string;
  tokenExpires: number;
}

/**
 * Handshakes in progress, by address: the keys a challenge response from there must open with.
 * Bounded by `capacity` and never refusing: when full, the least recently active entry is dropped
 * to make room. A flood of requests that never answer their challenge therefore only pushes out
 * other unanswered requests; a client still trying resends its request at 10 Hz, which renews its
 * entry at the end.
 */
export class PendingHandshakes {
  /** In order of last activity (a Map keeps insertion order; activity re-inserts). */
  private readonly byAddress = new Map<Address, PendingHandshake>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.byAddress.size;
  }

  /** The live entry for `address`, or undefined (an expired one is removed). */
  get(address: Address, now: number): PendingHandshake | undefined {
    const entry = this.byAddress.get(address);
    if (entry === undefined) return undefined;
    if (isExpired(entry, now)) {
      this.delete(address);
      return undefined;
    }
    return entry;
  }

  /**
   * Records (or renews) `address`'s handshake, dropping the least recently active one when full;
   * true when the one dropped was still live.
   */
  set(address: Address, entry: PendingHandshake, now: number): boolean {
    this.delete(address);
    let evicted = false;
    if (this.byAddress.size >= this.capacity) {
      const oldest = this.byAddress.keys().next().value as Address;
      evicted = !isExpired(this.byAddress.get(oldest)!, now);
      this.delete(oldest);
    }
    this.byAddress.set(address, entry);
    return evicted;
  }

  delete(address: Address): void {
    this.byAddress.delete(address);
  }

  clear(): void {
    this.byAddress.clear();
  }

  entries(): IterableIterator<[Address, PendingHandshake]> {
    return this.byAddress.entries();
  }
}

function isExpired(entry: PendingHandshake, now: number): boolean {
  return (entry.timeout > 0 && entry.lastAccess + entry.timeout < now) || entry.expireTime < now;
}
