import type { ResolvedLockstepOptions } from './lockstep-options.js';

/** Seconds between the host's turn-length decisions, and between a peer's round-trip reports. */
export const ADAPT_INTERVAL = 2;
export const RTT_REPORT_INTERVAL = 1;
/** A peer's report older than this is ignored. */
const REPORT_MAX_AGE = 5;

/**
 * When turns are due, and the turn length the host asks for. A turn is due one turn length after
 * the last one ran (at once after a stall: one quick turn, not a burst). A list sealed just
 * before turn X - delay + 1 runs at X, so it has delay - 1 turns to reach every peer: the host
 * asks for the length at which that covers a one-way trip (half the worst round trip any peer
 * reports) with a quarter to spare plus 30 ms for jitter and send granularity, in steps of 10 ms,
 * and moves only on a clear difference (up by 20 ms and 10%, down by 30 ms and 15%) at most every 2 s.
 */
export class TurnTiming {
  turnMs: number;
  nextTurnAt = Number.NEGATIVE_INFINITY;
  private lastDecision = Number.NEGATIVE_INFINITY;
  private readonly reportMs: Float64Array;
  private readonly reportAt: Float64Array;

  constructor(
    private readonly options: ResolvedLockstepOptions,
    maxPeers: number,
  ) {
    this.turnMs = options.turnMs;
    this.reportMs = new Float64Array(maxPeers);
    this.reportAt = new Float64Array(maxPeers).fill(Number.NEGATIVE_INFINITY);
  }

  due(now: number): boolean {
    return now >= this.nextTurnAt;
  }

  /** A turn ran at `now`. */
  ran(now: number): void {
    this.nextTurnAt = Math.max(this.nextTurnAt + this.turnMs / 1000, now);
  }

  /** The session starts (or a joiner's first turn): a turn is due at once; adapt after a while. */
  begin(now: number): void {
    this.nextTurnAt = now;
    this.lastDecision = now;
  }

  report(peer: number, ms: number, now: number): void {
    this.reportMs[peer] = ms;
    this.reportAt[peer] = now;
  }

  /** The turn length the host should schedule now, or 0 for no change. */
  decide(now: number, ownWorstRttMs: number, peers: readonly number[]): number {
    if (!this.options.adaptTurnMs || now - this.lastDecision < ADAPT_INTERVAL) return 0;
    let worst = ownWorstRttMs;
    for (const p of peers)
      if (now - this.reportAt[p] <= REPORT_MAX_AGE && this.reportMs[p] > worst) worst = this.reportMs[p];
    if (!(worst > 0)) return 0;
    this.lastDecision = now;
    const { delay, minTurnMs, maxTurnMs } = this.options;
    const wanted = Math.ceil(((worst / 2) * 1.25 + 30) / Math.max(1, delay - 1) / 10) * 10;
    const target = Math.min(maxTurnMs, Math.max(minTurnMs, wanted));
    const current = this.turnMs;
    return target - current >= Math.max(20, current * 0.1) || current - target >= Math.max(30, current * 0.15)
      ? target
      : 0;
  }
}
