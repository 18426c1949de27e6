/**
 * The tokens the rendezvous has taken a hello with, by id, each kept until it expires: a token
 * registers once. Without this, a token whose registration ended (bye, timeout, replaced) could
 * say hello again — from the same address with the keys of the first registration, or, replayed
 * by whoever saw its hello, from anywhere, taking the player's slot back. The table is bounded:
 * when it is full of unexpired tokens it refuses new ones (counted) rather than forget any.
 */
export class TokenTable {
  private readonly expiries = new Map<string, number>();
  private purgedAt = -1;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.expiries.size;
  }

  /** Records `id` (expiring at unix second `expires`): 'used' when it was seen before, 'full' when no room. */
  claim(id: string, expires: number, unix: number): 'ok' | 'used' | 'full' {
    if (this.expiries.has(id)) return 'used';
    // Expired tokens are refused before they get here, so forgetting them loses nothing; once a second at most.
    if (this.expiries.size >= this.capacity && unix !== this.purgedAt) this.purge(unix);
    if (this.expiries.size >= this.capacity) return 'full';
    this.expiries.set(id, expires);
    return 'ok';
  }

  /** Forgets the tokens expired before unix second `unix`. */
  purge(unix: number): void {
    this.purgedAt = unix;
    for (const [id, expires] of this.expiries) if (expires < unix) this.expiries.delete(id);
  }
}
