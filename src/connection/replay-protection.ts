import { REPLAY_PROTECTION_BUFFER_SIZE } from './constants.js';

const WINDOW = REPLAY_PROTECTION_BUFFER_SIZE;

/**
 * netcode's replay protection for keep-alive, payload and disconnect packets: a packet is refused
 * if its sequence is more than 256 behind the newest seen, or if the slot for it already holds
 * that sequence or a newer one. Sequences are numbers, exact below 2^53; a sequence at or past
 * 2^53 cannot come from a real peer (2^53 packets) and is refused.
 *
 * The standard's 256 slots of 64-bit sequences are kept as 256 bits: within the window (the newest
 * and the 255 before it) each slot can only hold its one sequence of the window or an older one, so
 * "holds that sequence or a newer one" is "that sequence was received", one bit; the bits of the
 * sequences the window passes are cleared as it moves. 32 bytes a client instead of 2 KB.
 */
export class ReplayProtection {
  private mostRecent = 0;
  /** Bit `s % 256`: sequence s, within [mostRecent - 255, mostRecent], was received. */
  private readonly received = new Uint32Array(WINDOW / 32);

  reset(): void {
    this.mostRecent = 0;
    this.received.fill(0);
  }

  /** True when `sequence` was seen already, or is too old to tell. */
  alreadyReceived(sequence: number): boolean {
    if (!(sequence < 2 ** 53)) return true;
    if (sequence + WINDOW <= this.mostRecent) return true;
    if (sequence > this.mostRecent) return false;
    const slot = sequence % WINDOW;
    return (this.received[slot >>> 5] & (1 << (slot & 31))) !== 0;
  }

  /** Records `sequence` as received (after the packet authenticated and alreadyReceived said no). */
  advance(sequence: number): void {
    if (sequence > this.mostRecent) {
      // The sequences entering the window take the bits of those leaving it.
      if (sequence - this.mostRecent >= WINDOW) this.received.fill(0);
      else
        for (let s = this.mostRecent + 1; s <= sequence; s++) {
          const slot = s % WINDOW;
          this.received[slot >>> 5] &= ~(1 << (slot & 31));
        }
      this.mostRecent = sequence;
    } else if (sequence + WINDOW <= this.mostRecent) return; // too old to record
    const slot = sequence % WINDOW;
    this.received[slot >>> 5] |= 1 << (slot & 31);
  }
}
