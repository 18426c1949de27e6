/**
 * A leaderboard record as one string whose byte order is its rank order: the score (negated for a
 * highest-first board) as 16 hex digits of its IEEE-754 bits made order-preserving, then the time
 * it was reached as 12 hex digits (earlier first: ties rank by who got there first), then the
 * account id (a last, stable tie-break). Both rank indexes order these strings alone: a Redis
 * sorted set with every score 0 orders its members by bytes (ZRANK, ZLEXCOUNT, ZRANGE are exact
 * for any key, a cursor's too), and the in-memory skip list compares the same strings.
 */

const view = new DataView(new ArrayBuffer(8));
const SIGN = 0x8000_0000;

export interface RankRecord {
  readonly accountId: string;
  readonly score: number;
  /** When this score was reached, unix ms. */
  readonly atMs: number;
}

/** Highest times 12 hex digits hold (year 10889). */
const MAX_AT_MS = 0xffff_ffff_ffff;

export function encodeRankKey(order: 'asc' | 'desc', record: RankRecord): string {
  const sortScore = order === 'desc' ? -record.score : record.score;
  view.setFloat64(0, sortScore === 0 ? 0 : sortScore); // -0 sorts as 0
  let high = view.getUint32(0);
  let low = view.getUint32(4);
  if (high & SIGN) {
    high = ~high >>> 0;
    low = ~low >>> 0;
  } else high = (high | SIGN) >>> 0;
  const at = Math.min(Math.max(0, Math.floor(record.atMs)), MAX_AT_MS);
  return hex(high, 8) + hex(low, 8) + hex(at, 12) + record.accountId;
}

export function decodeRankKey(order: 'asc' | 'desc', key: string): RankRecord {
  let high = Number.parseInt(key.slice(0, 8), 16) >>> 0;
  let low = Number.parseInt(key.slice(8, 16), 16) >>> 0;
  if (high & SIGN) high = (high & ~SIGN) >>> 0;
  else {
    high = ~high >>> 0;
    low = ~low >>> 0;
  }
  view.setUint32(0, high);
  view.setUint32(4, low);
  const sortScore = view.getFloat64(0);
  const score = order === 'desc' ? -sortScore : sortScore;
  return {
    score: score === 0 ? 0 : score,
    atMs: Number.parseInt(key.slice(16, 28), 16),
    accountId: key.slice(28),
  };
}

/** True when `key` could be one encodeRankKey made (a cursor from a client is checked with it). */
export function isRankKey(key: string): boolean {
  return /^[0-9a-f]{28}./s.test(key) && key.length <= 28 + 128;
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}
