import { REPLAY_PROTECTION_BUFFER_SIZE } from './constants.js';

/**
 * netcode's replay protection for keep-alive, payload and disconnect packets: a packet is refused
 * if its sequence is more than 256 behind the newest seen, or if the slot for it already holds
 * that sequence or a newer one. Sequences are numbers, exact below 2^53; a sequence at or past
 * 2^53 cannot come from a real peer (2^53 packets) and is refused.
 */
export class ReplayProtection {
  private mostRecent = 0;
  private readonly received = new Float64Array(REPLAY_PROTECTION_BUFFER_SIZE).fill(-1);

  reset(): void {
    this.mostRecent = 0;
    this.received.fill(-1);
  }

  /** True when `sequence` was seen already, or is too old to tell. */
  alreadyReceived(sequence: number): boolean {
    if (!(sequence < 2 ** 53)) return true;
    if (sequence + REPLAY_PROTECTION_BUFFER_SIZE <= this.mostRecent) return true;
    const held = this.received[sequence % REPLAY_PROTECTION_BUFFER_SIZE];
    return held !== -1 && held >= sequence;
  }

  /** Records `sequence` as received (after the packet authenticated). */
  advance(sequence: number): void {
    if (sequence > this.mostRecent) this.mostRecent = sequence;
    this.received[sequence % REPLAY_PROTECTION_BUFFER_SIZE] = sequence;
  }
}
