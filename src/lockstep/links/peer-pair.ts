import { ReplayProtection } from '../../connection/replay-protection.js';
import { NO_TIME_YET } from '../../time/check-time.js';
import type { Address } from '../../transport/address.js';

/** How a pair's datagrams travel: straight between the peers, or through the relay. */
export type PeerPath = 'direct' | 'relay';

/**
 * What one peer holds about another once the rendezvous introduced them: the pair's key, the
 * sequence of this direction, replay protection for the other, the candidates to punch, and the
 * path found. A new introduction (the other peer joined again) replaces the whole pair.
 */
export class PeerPair {
  /** The next sequence this peer sends the other under the pair key. */
  sendSequence = 0;
  readonly replay = new ReplayProtection();
  /** The other's address on the direct path, learned from its last authenticated direct packet. */
  address: Address | null = null;
  path: PeerPath | null = null;
  lastPunch = NO_TIME_YET;
  punchRounds = 0;
  lastHeard = NO_TIME_YET;
  /** When the last authenticated direct packet came. */
  lastDirect = NO_TIME_YET;
  /** The highest sequence authenticated from the other peer, -1 before any. */
  private newest = -1;
  lastSent = NO_TIME_YET;
  connected = false;

  constructor(
    readonly key: Uint8Array,
    readonly candidates: readonly Address[],
    readonly introducedAt: number,
  ) {}

  /** Takes the next sequence to send under the pair key. */
  nextSequence(): number {
    return this.sendSequence++;
  }

  /**
   * Records an authenticated packet from `from` (null: it came through the relay). A direct one
   * sets the direct path to where it came from, so a NAT that maps each destination to its own
   * port (symmetric) is reached at the port it chose for us, not the one the rendezvous saw.
   * Only a packet newer than any before moves the address: an older one replayed from elsewhere
   * (it still authenticates, if within the replay window) cannot take the path.
   */
  heard(from: Address | null, now: number, sequence: number): void {
    this.lastHeard = now;
    const newest = sequence > this.newest;
    if (newest) this.newest = sequence;
    if (from !== null) {
      this.lastDirect = now;
      if (newest || this.address === from) {
        this.address = from;
        this.path = 'direct';
      }
    }
  }
}
