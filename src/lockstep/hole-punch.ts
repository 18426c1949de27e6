import type { PeerPair } from './peer-pair.js';

export interface PunchOptions {
  /** Seconds between punch rounds to every candidate (default 0.1). */
  readonly punchInterval: number;
  /** Seconds after the introduction without a direct path before the pair goes through the relay (default 3). */
  readonly punchTimeout: number;
}

export const DEFAULT_PUNCH_INTERVAL = 0.1;
export const DEFAULT_PUNCH_TIMEOUT = 3;

export type PunchStep = 'punch' | 'relay' | 'wait';

/**
 * What a pair does at `now` about its direct path. Both peers are introduced at about the same
 * moment and punch every candidate of the other at once, round after round: each round's
 * outgoing packets open this side's NAT mapping for the other's address, so the other's next
 * round gets in. A pair with a direct path, or relayed past the timeout, punches no more (a direct
 * packet arriving later still moves a relayed pair to the direct path).
 */
export function punchStep(pair: PeerPair, now: number, options: PunchOptions): PunchStep {
  if (pair.path === 'direct') return 'wait';
  // A pair the other side already moved to the relay keeps punching until its own timeout.
  if (now - pair.introducedAt >= options.punchTimeout) return pair.path === null ? 'relay' : 'wait';
  return now - pair.lastPunch >= options.punchInterval ? 'punch' : 'wait';
}
