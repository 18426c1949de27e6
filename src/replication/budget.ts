/**
 * One client's bandwidth budget: a cap on bytes per packet and a token bucket on the rate.
 *
 * The bucket holds up to `burstBytes` and fills at `kbps` × 1000 / 8 bytes per second as
 * `update(now)` advances the time; `availableBytes()` is what the next packet may use (the
 * smaller of the per-packet cap and the tokens) and `spend(bytes)` takes what was sent. Spending
 * within `availableBytes()` keeps the bytes sent over any interval T within
 * burstBytes + rate × T. Spending more (a packet with mandatory headers while the bucket is
 * empty) is allowed and leaves a debt the next packets repay, so the long-run rate still holds.
 *
 * Defaults keep a 60 Hz game under 256 kbit/s: packets of at most 512 bytes (60 × 512 × 8 =
 * 245.8 kbit/s) and a 256 kbit/s bucket of two packets. Adapting the rate to measured loss or
 * RTT is left to the caller (set `kbps`), no policy is built in yet.
 */
import { checkTime, NO_TIME_YET } from '../time/check-time.js';
import { checkNonNegative, checkPositive } from './check-argument.js';

export interface BandwidthBudgetOptions {
  /** The most one packet may carry (default 512). */
  bytesPerPacket?: number;
  /** The rate cap in kilobits (1000 bits) per second (default 256). */
  kbps?: number;
  /** The most the bucket holds, so the largest burst (default 2 × bytesPerPacket). */
  burstBytes?: number;
}

export const DEFAULT_BYTES_PER_PACKET = 512;
export const DEFAULT_KBPS = 256;

export class BandwidthBudget {
  private _bytesPerPacket: number;
  private _kbps: number;
  private bytesPerSecond: number;
  private _burstBytes: number;
  private tokens: number;
  private last = NO_TIME_YET;

  constructor(options: BandwidthBudgetOptions = {}) {
    this._bytesPerPacket = checkPositive(
      'BandwidthBudget',
      'bytesPerPacket',
      options.bytesPerPacket ?? DEFAULT_BYTES_PER_PACKET,
    );
    this._kbps = checkPositive('BandwidthBudget', 'kbps', options.kbps ?? DEFAULT_KBPS);
    this.bytesPerSecond = (this._kbps * 1000) / 8;
    this._burstBytes = checkPositive(
      'BandwidthBudget',
      'burstBytes',
      options.burstBytes ?? 2 * this._bytesPerPacket,
    );
    this.tokens = this._burstBytes;
  }

  get bytesPerPacket(): number {
    return this._bytesPerPacket;
  }

  set bytesPerPacket(bytes: number) {
    this._bytesPerPacket = checkPositive('BandwidthBudget.bytesPerPacket', 'bytes', bytes);
  }

  /** The rate, kilobits per second; setting it changes the rate from now on (the tokens already in the bucket stay). */
  get kbps(): number {
    return this._kbps;
  }

  set kbps(kbps: number) {
    this._kbps = checkPositive('BandwidthBudget.kbps', 'kbps', kbps);
    this.bytesPerSecond = (kbps * 1000) / 8;
  }

  get burstBytes(): number {
    return this._burstBytes;
  }

  set burstBytes(bytes: number) {
    this._burstBytes = checkPositive('BandwidthBudget.burstBytes', 'bytes', bytes);
    if (this.tokens > bytes) this.tokens = bytes;
  }

  /** Tokens in the bucket, in bytes (negative while a debt is repaid). */
  get balance(): number {
    return this.tokens;
  }

  /** Refills the bucket for the time since the last update (the first update only sets the time). */
  update(now: number): void {
    const last = this.last;
    this.last = checkTime('BandwidthBudget.update', now, last);
    if (last === NO_TIME_YET) return;
    this.tokens = Math.min(this._burstBytes, this.tokens + (now - last) * this.bytesPerSecond);
  }

  /** Whole bytes the next packet may use: min(bytesPerPacket, tokens), 0 when the bucket is empty. */
  availableBytes(): number {
    const bytes = Math.floor(Math.min(this._bytesPerPacket, this.tokens));
    return Math.max(bytes, 0);
  }

  /** Takes the bytes of a packet that was sent. */
  spend(bytes: number): void {
    this.tokens -= checkNonNegative('BandwidthBudget.spend', 'bytes', bytes);
  }
}
