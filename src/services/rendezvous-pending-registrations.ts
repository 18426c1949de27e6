import type { Address } from '../transport/address.js';
import type { Registration } from './rendezvous-registration.js';

/**
 * Registrations welcomed but not yet proven (their cookie has not come back), by address: they
 * hold no slot and meet nobody. Bounded and never refusing: when full, the least recently active
 * is dropped, so a flood of hellos that never answer (forged sources) only pushes out others of
 * its kind; a peer still trying says hello again, which renews its entry. One a peer answers its
 * welcome at once, so it stays here one round trip.
 */
export class PendingRegistrations {
  /** In order of last activity (a Map keeps insertion order; activity re-inserts). */
  private readonly byAddress = new Map<Address, Registration>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.byAddress.size;
  }

  get(address: Address): Registration | undefined {
    return this.byAddress.get(address);
  }

  /** Records (or renews) `registration` at its address; true when a live entry was dropped for room. */
  set(registration: Registration): boolean {
    this.byAddress.delete(registration.address);
    let evicted = false;
    if (this.byAddress.size >= this.capacity) {
      const oldest = this.byAddress.keys().next().value as Address;
      this.byAddress.delete(oldest);
      evicted = true;
    }
    this.byAddress.set(registration.address, registration);
    return evicted;
  }

  delete(registration: Registration): void {
    if (this.byAddress.get(registration.address) === registration)
      this.byAddress.delete(registration.address);
  }

  values(): IterableIterator<Registration> {
    return this.byAddress.values();
  }
}
