/**
 * Good / bad flow modes for one client's replication rate (after Fiedler's binary flow control):
 * in good mode the client gets `goodKbps`; a round trip over `rttThreshold` or a packet loss over
 * `lossThreshold` drops it at once to `badKbps`. It returns to good only after conditions stayed
 * good for the penalty time (4 s at first). Falling back to bad within 10 s of returning doubles
 * the penalty (at most 60 s); each 10 s spent in good mode halves it (at least 1 s), so a link
 * that flaps is given the low rate for longer and longer, and a link that recovered is trusted again.
 *
 * Unlike the original it starts in good mode: a replication client's first seconds carry its
 * initial state, and the packet layer's RTT and loss are known within a few packets.
 */
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { checkNonNegative, checkPositive } from './check-argument.js';

export interface FlowControlOptions {
  /** The rate in good mode, kbit/s (default 256, the budget's default). */
  goodKbps?: number;
  /** The rate in bad mode, kbit/s (default a quarter of goodKbps). */
  badKbps?: number;
  /** Round trip above which the link is bad, ms (default 250). */
  rttThresholdMs?: number;
  /** Packet loss above which the link is bad, percent (default 10). */
  lossThreshold?: number;
  /**
   * How far each round-trip sample moves the estimate compared with the threshold (default 0.1,
   * as Fiedler's; 1 takes each sample as it is): one late ack does not flip the mode, a link that
   * got slow does within a few dozen packets.
   */
  rttSmoothing?: number;
}

export type FlowMode = 'good' | 'bad';

const INITIAL_PENALTY = 4;
const MIN_PENALTY = 1;
const MAX_PENALTY = 60;
/** A fall within this long of returning to good doubles the penalty; each such span in good halves it. */
const PROBATION = 10;

export class FlowControl {
  readonly goodKbps: number;
  readonly badKbps: number;
  readonly rttThresholdMs: number;
  readonly lossThreshold: number;
  readonly rttSmoothing: number;
  /** The smoothed round trip, ms (0 before the first sample). */
  private _rttMs = 0;
  private _mode: FlowMode = 'good';
  /** Seconds conditions must stay good in bad mode before returning to good. */
  private _penalty = INITIAL_PENALTY;
  /**
   * Seconds of good conditions in a row (in bad mode), or seconds since returning (in good mode);
   * starting in good mode counts as a long-trusted link, so a first fall does not double the penalty.
   */
  private goodFor = PROBATION;
  /** Seconds in good mode since the penalty was last halved. */
  private sinceReduction = 0;
  private last = NO_TIME_YET;
  /** Times the mode went from good to bad. */
  private _drops = 0;

  constructor(options: FlowControlOptions = {}) {
    this.goodKbps = checkPositive('FlowControl', 'goodKbps', options.goodKbps ?? 256);
    this.badKbps = checkPositive('FlowControl', 'badKbps', options.badKbps ?? this.goodKbps / 4);
    if (this.badKbps > this.goodKbps)
      throw new RangeError(
        `FlowControl: badKbps (${this.badKbps}) must not exceed goodKbps (${this.goodKbps})`,
      );
    this.rttThresholdMs = checkPositive('FlowControl', 'rttThresholdMs', options.rttThresholdMs ?? 250);
    this.lossThreshold = checkNonNegative('FlowControl', 'lossThreshold', options.lossThreshold ?? 10);
    this.rttSmoothing = checkPositive('FlowControl', 'rttSmoothing', options.rttSmoothing ?? 0.1);
    if (this.rttSmoothing > 1)
      throw new RangeError(`FlowControl: rttSmoothing must be in (0, 1], got ${this.rttSmoothing}`);
  }

  /** The smoothed round trip the mode is judged by, ms. */
  get rttMs(): number {
    return this._rttMs;
  }

  get mode(): FlowMode {
    return this._mode;
  }

  /** The rate the client gets now, kbit/s. */
  get kbps(): number {
    return this._mode === 'good' ? this.goodKbps : this.badKbps;
  }

  /** Seconds of good conditions bad mode needs before returning to good. */
  get penalty(): number {
    return this._penalty;
  }

  get drops(): number {
    return this._drops;
  }

  /**
   * Takes the link's newest round-trip sample (ms; 0 when there is none yet, which is ignored)
   * and packet loss (percent) at `now` (seconds, monotonic); returns the mode. Throws on a time
   * going backwards or a figure not finite.
   */
  update(now: number, rtt: number, packetLoss: number): FlowMode {
    checkNonNegative('FlowControl.update', 'rtt', rtt);
    checkNonNegative('FlowControl.update', 'packetLoss', packetLoss);
    const last = this.last;
    this.last = checkTime('FlowControl.update', now, last);
    const dt = last === NO_TIME_YET ? 0 : now - last;
    if (rtt > 0)
      this._rttMs = this._rttMs === 0 ? rtt : this._rttMs + (rtt - this._rttMs) * this.rttSmoothing;
    const bad = this._rttMs > this.rttThresholdMs || packetLoss > this.lossThreshold;
    if (this._mode === 'good') {
      if (bad) {
        this._mode = 'bad';
        this._drops++;
        if (this.goodFor < PROBATION) this._penalty = Math.min(MAX_PENALTY, this._penalty * 2);
        this.goodFor = 0;
        this.sinceReduction = 0;
        return this._mode;
      }
      this.goodFor += dt;
      this.sinceReduction += dt;
      if (this.sinceReduction > PROBATION) {
        this.sinceReduction = 0;
        this._penalty = Math.max(MIN_PENALTY, this._penalty / 2);
      }
      return this._mode;
    }
    this.goodFor = bad ? 0 : this.goodFor + dt;
    if (this.goodFor > this._penalty) {
      this._mode = 'good';
      this.goodFor = 0;
      this.sinceReduction = 0;
    }
    return this._mode;
  }
}
