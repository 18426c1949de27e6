import type { Address } from '../transport/address.js';

interface TokenRecord {
  address: Address;
  /** Unix second the token expires at: the record is void after it. */
  expires: number;
}

/**
 * The peer tokens the rendezvous took a hello with, by id, in two bounded tables, neither of which
 * ever refuses a new token (the connection layer's UsedTokens, for hellos):
 * - `seen`: every token whose hello opened, tied to the address it came from, until its
 *   registration completes. When full, the least recently presented record is dropped, so a flood
 *   of hellos (forged sources included) only pushes out others of its kind; a peer still trying
 *   says hello again within 2 s and comes back to the end.
 * - `completed`: tokens whose registration was proven (the cookie came back from its address).
 *   Only a proven registration adds one, so no flood of hellos pushes anything out; when full the
 *   oldest is dropped. A completed token never registers again, from anywhere: a token registers once.
 * A dropped record costs no slot: a registration takes its slot only once proven, which a hello
 * replayed from another address cannot do (the cookie is sealed to the token's keys), and the
 * token's generation keeps an older holding of the slot out.
 */
export class RegistrationTokens {
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

  /** 'used' when `token` completed a registration, or was presented from another address, and has not expired. */
  check(token: string, address: Address, unix: number): 'ok' | 'used' {
    if (live(this.completed, token, unix) !== undefined) return 'used';
    const seen = live(this.seen, token, unix);
    return seen !== undefined && seen.address !== address ? 'used' : 'ok';
  }

  /** Records `token` as presented from `address`; true when an unexpired record was dropped for it. */
  see(token: string, address: Address, expires: number, unix: number): boolean {
    return put(this.seen, this.seenCapacity, token, address, expires, unix);
  }

  /** Records that `token`'s registration from `address` was proven; true when an unexpired record was dropped for it. */
  complete(token: string, address: Address, expires: number, unix: number): boolean {
    this.seen.delete(token);
    return put(this.completed, this.completedCapacity, token, address, expires, unix);
  }
}

function live(records: Map<string, TokenRecord>, token: string, unix: number): TokenRecord | undefined {
  const record = records.get(token);
  if (record === undefined || record.expires >= unix) return record;
  records.delete(token);
  return undefined;
}

/** Puts `token` last, dropping the first record when full; true when that one had not expired. */
function put(
  records: Map<string, TokenRecord>,
  capacity: number,
  token: string,
  address: Address,
  expires: number,
  unix: number,
): boolean {
  records.delete(token);
  let evicted = false;
  if (records.size >= capacity) {
    const [oldest, record] = records.entries().next().value as [string, TokenRecord];
    evicted = record.expires >= unix;
    records.delete(oldest);
  }
  records.set(token, { address, expires });
  return evicted;
}
