/**
 * Leaderboards through the backend (GamerClient's `leaderboards`): the top by pages, the records
 * around the player, its friends' records; the current period or an archived one. Scores come
 * from the game's server only.
 *
 *   const page = await gamer.leaderboards.top('zaps', { limit: 20 });
 *   const more = page.next === null ? null : await gamer.leaderboards.top('zaps', { cursor: page.next });
 *   const near = await gamer.leaderboards.around('zaps');
 *   const lastWeek = await gamer.leaderboards.top('weekly', { period: 'previous' });
 */
import type { BackendClient, RequestOptions } from '../backend-client.js';

/** One player's record on a board. */
export interface LeaderboardEntry {
  /** 1 is first; equal scores rank by who reached the score first. */
  rank: number;
  accountId: string;
  /** The player's display name (null until it picks one). */
  displayName: string | null;
  /** The player's best score of the period, by the board's order. */
  score: number;
  /** When this score was reached, unix ms. */
  at: number;
}

/** A query's answer: the period answered and its records in rank order. */
export interface LeaderboardPage {
  board: string;
  /** The period answered: 0 for a board that never resets, else its day, week, month or season number. */
  period: number;
  records: LeaderboardEntry[];
  /** The cursor of the next page of top(), or null at the end. */
  next: string | null;
}

/** Which period: the current (default), the one before it, or a period's number. */
export type LeaderboardPeriod = 'current' | 'previous' | number;

/** GamerClient's `leaderboards`: top, around the player, friends. */
export class LeaderboardsClient {
  constructor(private readonly backend: BackendClient) {}

  /** The best records, `limit` a page (default 10, at most 100); `cursor` from a page's `next`. */
  top(
    board: string,
    options: { limit?: number; cursor?: string; period?: LeaderboardPeriod } & RequestOptions = {},
  ): Promise<LeaderboardPage> {
    return this.get(board, { limit: options.limit, cursor: options.cursor, period: options.period }, options);
  }

  /** The player's record and `limit` (default 5, at most 50) each side of it; none when it has no record. */
  around(
    board: string,
    options: { limit?: number; period?: LeaderboardPeriod } & RequestOptions = {},
  ): Promise<LeaderboardPage> {
    return this.get(board, { around: 'me', limit: options.limit, period: options.period }, options);
  }

  /** The player's and its friends' records, best first, ranked on the whole board. */
  friends(
    board: string,
    options: { period?: LeaderboardPeriod } & RequestOptions = {},
  ): Promise<LeaderboardPage> {
    return this.get(board, { friends: 1, period: options.period }, options);
  }

  private get(
    board: string,
    query: Record<string, string | number | undefined>,
    options: RequestOptions,
  ): Promise<LeaderboardPage> {
    if (typeof board !== 'string' || board === '')
      throw new TypeError('leaderboards: board must be a non-empty string');
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) params.set(name, String(value));
    const search = params.size === 0 ? '' : `?${params}`;
    return this.backend.request<LeaderboardPage>(
      'GET',
      `/leaderboards/${encodeURIComponent(board)}${search}`,
      undefined,
      { signal: options.signal },
    );
  }
}
