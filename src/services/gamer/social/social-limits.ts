/**
 * Every limit of friends, presence and the event stream, in one place, with their defaults:
 * `openGamerServices({ social: { maxFriends: 200 } })` changes one; misuse throws at open.
 */

export interface SocialLimits {
  /** Friends a player may have (default 500); a presence change reaches at most these. */
  maxFriends: number;
  /** Requests a player may have sent and still pending (default 100). */
  maxSentRequests: number;
  /** Requests a player may have received and still pending (default 500): a flood of strangers stops there. */
  maxReceivedRequests: number;
  /** Players a player may block (default 1000). */
  maxBlocked: number;
  /** Friend requests (and blocks) a player may make at once (default 20)… */
  requestBurst: number;
  /** …and per minute after the burst (default 30). */
  requestsPerMinute: number;
  /** Presence changes a player may make at once (default 30)… */
  presenceBurst: number;
  /** …and per minute after the burst (default 120). */
  presencePerMinute: number;
  /** Rows a friends page answers at most (default 100; the page size asked is 1..this). */
  maxPageSize: number;
  /** Event streams one player may hold open on one backend (default 4). */
  maxStreamsPerPlayer: number;
  /** Event streams one backend holds open at most (default 10000). */
  maxStreams: number;
  /** Events waiting for a slow reader before its stream is cut (default 256). */
  maxQueuedEvents: number;
  /** A comment line on every idle stream this often, ms (default 15000): proxies keep it open. */
  heartbeatMs: number;
  /** A player whose last stream closed stays online this long, ms (default 5000): a page reload is no flap. */
  offlineGraceMs: number;
  /** One player's presence is pushed at most once per this, ms (default 500); changes between are coalesced. */
  presenceIntervalMs: number;
  /** An open stream's presence expires unless refreshed within this, ms (default 60000): a crashed backend's players go offline. */
  presenceTtlMs: number;
  /** A server's in-match presence lasts at most this unless set again or cleared, ms (default 4 h). */
  matchTtlMs: number;
}

export const DEFAULT_SOCIAL_LIMITS: Readonly<SocialLimits> = Object.freeze({
  maxFriends: 500,
  maxSentRequests: 100,
  maxReceivedRequests: 500,
  maxBlocked: 1000,
  requestBurst: 20,
  requestsPerMinute: 30,
  presenceBurst: 30,
  presencePerMinute: 120,
  maxPageSize: 100,
  maxStreamsPerPlayer: 4,
  maxStreams: 10_000,
  maxQueuedEvents: 256,
  heartbeatMs: 15_000,
  offlineGraceMs: 5_000,
  presenceIntervalMs: 500,
  presenceTtlMs: 60_000,
  matchTtlMs: 4 * 3600_000,
});

/** The limits with `options` over the defaults; throws a RangeError naming a bad one. */
export function socialLimits(options: Partial<SocialLimits> = {}): SocialLimits {
  if (options === null || typeof options !== 'object')
    throw new TypeError('openGamerServices: social must be an object');
  const limits: SocialLimits = { ...DEFAULT_SOCIAL_LIMITS };
  for (const [name, value] of Object.entries(options)) {
    if (!Object.hasOwn(DEFAULT_SOCIAL_LIMITS, name))
      throw new RangeError(`openGamerServices: social.${name} is not a social limit`);
    if (value === undefined) continue;
    const zeroOk = name === 'offlineGraceMs' || name === 'presenceIntervalMs';
    if (typeof value !== 'number' || !Number.isInteger(value) || value < (zeroOk ? 0 : 1) || value > 2 ** 31)
      throw new RangeError(
        `openGamerServices: social.${name} must be an integer ${zeroOk ? '>= 0' : '>= 1'}, got ${String(value)}`,
      );
    (limits as unknown as Record<string, number>)[name] = value;
  }
  if (limits.presenceTtlMs < 3000)
    throw new RangeError(
      'openGamerServices: social.presenceTtlMs must be >= 3000 (it is refreshed every third)',
    );
  return limits;
}
