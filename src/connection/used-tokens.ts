import type { Address } from '../transport/address.js';

interface TokenRecord {
  address: Address;
  /** Server time the token expires at: the record is void after it. */
  expires: number;
}

/**
 * The connect tokens the server has accepted, by MAC, each tied to the first address that
 * presented it: the same token from another address is refused until it expires. Two bounded
 * tables, neither of which ever refuses a new token:
 * - `seen`: every token whose request opened, until its handshake completes. When full, the least
 *   recently presented record is dropped, so a flood of valid requests only pushes out others of
 *   its kind (a client still trying presents its token again at 10 Hz and comes back to the end).
 * - `completed`: tokens whose handshake connected. Only a completed handshake adds one, so a flood
 *   of requests cannot push anything out; when full the oldest is dropped.
 * A dropped record costs no connection: the challenge token is sealed to its address, so a
 * captured handshake replayed from elsewhere still fails at the response.
 */
export class UsedTokens {
  /** In order of last presentation (a Map keeps insertion order; presenting again re-inserts). */
  private readonly seen = new Map<string, TokenRecord>();
  /** In order of completion. */
  private readonly completed = new Map<string, TokenRecord>();

  constructor(
    readonly seenCapacity: number,
    readonly completedCapacity: number,
  ) {}

  get size(): number {
    return this.seen.size + this.completed.size;
  }

  get capacity(): number {
    return this.seenCapacity + this.completedCapacity;
  }

  /** Whether `token` is tied to an address other than `address` and has not expired. */
  heldElsewhere(token: string, address: Address, now: number): boolean {
    return (
      holdsElsewhere(this.completed, token, address, now) || holdsElsewhere(this.seen, token, address, now)
    );
  }

  /**
   * Whether `token` completed a handshake (wherever from) and has not expired: for a protocol
   * whose token is used once (the rendezvous' peer tokens), where the same address may not reuse it.
   */
  hasCompleted(token: string, now: number): boolean {
    const record = this.completed.get(token);
    if (record === undefined) return false;
    if (record.expires >= now) return true;
    this.completed.delete(token);
    return false;
  }

  /**
   * Records `token` as presented from `address` (which must not be held elsewhere); true when a
   * record of another token, unexpired, was dropped to make room.
   */
  see(token: string, address: Address, expires: number, now: number): boolean {
    if (this.completed.has(token)) return false;
    return put(this.seen, this.seenCapacity, token, address, expires, now);
  }

  /** Records that `token`'s handshake from `address` connected; true when an unexpired record was dropped for it. */
  complete(token: string, address: Address, expires: number, now: number): boolean {
    this.seen.delete(token);
    return put(this.completed, this.completedCapacity, token, address, expires, now);
  }

  clear(): void {
    this.seen.clear();
    this.completed.clear();
  }
}

function holdsElsewhere(
  records: Map<string, TokenRecord>,
  token: string,
  address: Address,
  now: number,
): boolean {
  const record = records.get(token);
  if (record === undefined) return false;
  if (record.expires < now) {
    records.delete(token);
    return false;
  }
  return record.address !== address;
}

/** Puts `token` last, dropping the first record when full; true when that one had not expired. */
function put(
  records: Map<string, TokenRecord>,
  capacity: number,
  token: string,
  address: Address,
  expires: number,
  now: number,
): boolean {
  records.delete(token);
  let evicted = false;
  if (records.size >= capacity) {
    const [oldest, record] = records.entries().next().value as [string, TokenRecord];
    evicted = record.expires >= now;
    records.delete(oldest);
  }
  records.set(token, { address, expires });
  return evicted;
}
