/**
 * Where the current period of each board is ranked: a set of rank keys (rank-key.ts), one an
 * account, kept best-of. The SQL records are the truth; an index only answers ranks fast and is
 * rebuilt from them when it is missing (the process started, Redis restarted). `index` names one
 * board's period: "zaps:0".
 */
export interface RankIndex {
  /** True when `index` holds every record (it was loaded from SQL since it was last lost). */
  ready(index: string): Promise<boolean>;
  /** Offers each account's key, kept when better than the one it has (a smaller key). */
  offer(index: string, entries: readonly (readonly [accountId: string, key: string])[]): Promise<void>;
  /** Marks `index` loaded (after offering every SQL record). */
  markReady(index: string): Promise<void>;
  /** The account's 0-based rank and key, or null when it has no record. */
  rankOf(index: string, accountId: string): Promise<{ rank: number; key: string } | null>;
  /** How many keys sort before `key`, or up to and with it (`orEqual`). */
  countBefore(index: string, key: string, orEqual: boolean): Promise<number>;
  /** countBefore (not orEqual) of each key, in one round trip. */
  countsBefore(index: string, keys: readonly string[]): Promise<number[]>;
  /** Up to `count` keys from 0-based rank `start`. */
  range(index: string, start: number, count: number): Promise<string[]>;
  size(index: string): Promise<number>;
  /** Drops `index` (a period that ended: its archive is read from SQL). */
  drop(index: string): Promise<void>;
}
