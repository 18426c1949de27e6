/**
 * Leaderboards: records in SQL (the truth, every period kept), the current period of each board
 * ranked by a rank index (Redis or in memory) rebuilt from SQL when missing. Scores come from
 * servers only: submit() here, or a stat's update feeding its boards.
 */
import type { Transaction } from 'kysely';
import type { GamerContext } from '../gamer-context.js';
import type { GamerTables } from '../gamer-tables.js';
import { advanceSeason, clockPeriod, currentSeason } from './leaderboard-periods.js';
import {
  countRankedBefore,
  displayNames,
  friendIds,
  ranksOf,
  recordsByAccount,
  recordsInRankOrder,
  recordsOf,
  upsertRecord,
} from './leaderboard-records.js';
import type { Board, ProgressDefinitions } from './progress-definitions.js';
import type { RankIndex } from './rank-index.js';
import { decodeRankKey, encodeRankKey, isRankKey, type RankRecord } from './rank-key.js';

/** One player's record on a board, as queries answer it. */
export interface LeaderboardRecord {
  /** 1 is first; ties rank by who reached the score first. */
  rank: number;
  accountId: string;
  /** The account's display name (null until it picks one). */
  displayName: string | null;
  /** The player's best score of the period, by the board's order. */
  score: number;
  /** When this score was reached, unix ms. */
  at: number;
}

/** What a query answers: the board, the period answered, its records in rank order. */
export interface LeaderboardRecords {
  board: string;
  /** 0 for a board that never resets, else its day, week, month or season number. */
  period: number;
  records: LeaderboardRecord[];
  /** For the next page of top(), or null at the end. */
  next: string | null;
}

/** Which records a query answers. */
export interface LeaderboardQuery {
  /** The current period (default), the one before it, or a period's number. */
  period?: 'current' | 'previous' | number;
  /** Records a page (top: default 10, at most 100), or each side of the player (around: default 5, at most 50). */
  limit?: number;
  /** From a page's `next`. */
  cursor?: string;
}

/** The leaderboards' server-side API (gamer.leaderboards): scores from game servers only. */
export interface GamerLeaderboards {
  /** Keeps `score` when it beats the player's record of the board's current period. */
  submit(board: string, accountId: string, score: number): Promise<{ period: number; improved: boolean }>;
  /** Ends a 'season' board's season (kept, readable as 'previous') and starts the next. */
  newSeason(board: string): Promise<{ ended: number; started: number }>;
  /** The board's current period. */
  currentPeriod(board: string): Promise<number>;
  /** The best records, a page at a time (`cursor` from the last page's `next`). */
  top(board: string, query?: LeaderboardQuery): Promise<LeaderboardRecords>;
  /** The player and `limit` records above and below it (no records when it has none). */
  around(board: string, accountId: string, query?: LeaderboardQuery): Promise<LeaderboardRecords>;
  /** The player's and its friends' records, best first, with their ranks on the whole board. */
  friends(board: string, accountId: string, query?: LeaderboardQuery): Promise<LeaderboardRecords>;
}

/** One index update, applied after its transaction commits. */
export interface RankOffer {
  readonly index: string;
  readonly accountId: string;
  readonly key: string;
}

/** Most friends a friends-only query reads. */
export const FRIENDS_QUERY_LIMIT = 500;
const LOAD_PAGE = 5000;
export const ACCOUNT_ID_MAX = 128;

export class Leaderboards implements GamerLeaderboards {
  private readonly loading = new Map<string, Promise<void>>();
  /** Indexes an offer failed to reach (Redis was down): rebuilt before their next use. */
  private readonly suspect = new Set<string>();
  private readonly lastPeriod = new Map<string, number>();

  constructor(
    private readonly context: GamerContext,
    private readonly definitions: ProgressDefinitions,
    private readonly index: RankIndex,
  ) {}

  has(name: string): boolean {
    return this.definitions.boards.has(name);
  }

  board(name: string, caller: string): Board {
    const board = typeof name === 'string' ? this.definitions.boards.get(name) : undefined;
    if (board === undefined) throw new TypeError(`${caller}: no leaderboard ${String(name).slice(0, 64)}`);
    return board;
  }

  async submit(
    boardName: string,
    accountId: string,
    score: number,
  ): Promise<{ period: number; improved: boolean }> {
    const board = this.board(boardName, 'leaderboards.submit');
    checkAccountId(accountId, 'leaderboards.submit');
    if (typeof score !== 'number' || !Number.isFinite(score))
      throw new TypeError(`leaderboards.submit: score must be a finite number, got ${String(score)}`);
    const atMs = this.context.nowMs();
    const { period, offer } = await this.context.db
      .transaction()
      .execute((trx) => this.submitIn(trx, board, accountId, score, atMs))
      .catch(rethrowMissingAccount(accountId));
    if (offer !== null) await this.apply([offer]);
    return { period, improved: offer !== null };
  }

  /** The submission inside a caller's transaction; its index update to apply after commit. */
  async submitIn(
    trx: Transaction<GamerTables>,
    board: Board,
    accountId: string,
    score: number,
    atMs: number,
  ): Promise<{ period: number; offer: RankOffer | null }> {
    const period =
      board.reset === 'season'
        ? await currentSeason(trx, board.name, atMs, true)
        : clockPeriod(board.reset, atMs);
    const record = await upsertRecord(trx, board, period, accountId, score, atMs);
    if (record === null) return { period, offer: null };
    return {
      period,
      offer: { index: `${board.name}:${period}`, accountId, key: encodeRankKey(board.order, record) },
    };
  }

  /** Applies committed submissions to the index; one that fails marks its index for a rebuild. */
  async apply(offers: readonly RankOffer[]): Promise<void> {
    for (const offer of offers) {
      try {
        await this.index.offer(offer.index, [[offer.accountId, offer.key]]);
      } catch {
        this.suspect.add(offer.index); // the record is in SQL: the index catches up from it
      }
    }
  }

  async newSeason(boardName: string): Promise<{ ended: number; started: number }> {
    const board = this.board(boardName, 'leaderboards.newSeason');
    if (board.reset !== 'season')
      throw new TypeError(
        `leaderboards.newSeason: board ${board.name} resets '${board.reset}', not by season`,
      );
    const seasons = await advanceSeason(this.context.db, board.name, this.context.nowMs());
    await this.index.drop(`${board.name}:${seasons.ended}`).catch(() => {});
    return seasons;
  }

  async currentPeriod(boardName: string): Promise<number> {
    const board = this.board(boardName, 'leaderboards.currentPeriod');
    const nowMs = this.context.nowMs();
    const period =
      board.reset === 'season'
        ? await currentSeason(this.context.db, board.name, nowMs, false)
        : clockPeriod(board.reset, nowMs);
    const last = this.lastPeriod.get(board.name);
    if (last !== undefined && last !== period) await this.index.drop(`${board.name}:${last}`).catch(() => {});
    this.lastPeriod.set(board.name, period);
    return period;
  }

  /** The period a query names, and whether it is the current one; a period that cannot be throws RangeError. */
  async resolvePeriod(
    board: Board,
    asked: LeaderboardQuery['period'],
  ): Promise<{ period: number; current: boolean }> {
    const current = await this.currentPeriod(board.name);
    if (asked === undefined || asked === 'current') return { period: current, current: true };
    const first = board.reset === 'season' ? 1 : 0;
    const period = asked === 'previous' ? current - 1 : asked;
    if (!Number.isSafeInteger(period) || period < first || period > current)
      throw new RangeError(
        board.reset === 'never'
          ? `board ${board.name} never resets: it has period 0 only`
          : `board ${board.name} has periods ${first}..${current}, not ${String(asked)}`,
      );
    return { period, current: period === current };
  }

  async top(boardName: string, query: LeaderboardQuery = {}): Promise<LeaderboardRecords> {
    const board = this.board(boardName, 'leaderboards.top');
    const limit = checkLimit(query.limit, 10, 100, 'leaderboards.top');
    const after = query.cursor === undefined ? null : cursorRecord(board, query.cursor);
    const { period, current } = await this.resolvePeriod(board, query.period);
    let start: number;
    let records: RankRecord[];
    if (current) {
      const name = await this.ready(board, period);
      start =
        after === null ? 0 : await this.index.countBefore(name, encodeRankKey(board.order, after), true);
      records = (await this.index.range(name, start, limit)).map((key) => decodeRankKey(board.order, key));
    } else {
      // An archived period is final: the rank the cursor carries is still the record's, no count needed.
      start = after === null ? 0 : after.rank;
      records = await recordsInRankOrder(this.context.db, board, period, after, limit);
    }
    const page = await this.page(board, period, records, (i) => start + i + 1);
    const last = records.at(-1);
    page.next =
      records.length === limit && last !== undefined
        ? makeCursor(start + records.length, encodeRankKey(board.order, last))
        : null;
    return page;
  }

  async around(
    boardName: string,
    accountId: string,
    query: LeaderboardQuery = {},
  ): Promise<LeaderboardRecords> {
    const board = this.board(boardName, 'leaderboards.around');
    checkAccountId(accountId, 'leaderboards.around');
    const each = checkLimit(query.limit, 5, 50, 'leaderboards.around');
    const { period, current } = await this.resolvePeriod(board, query.period);
    let start = 0;
    let records: RankRecord[] = [];
    if (current) {
      const name = await this.ready(board, period);
      const mine = await this.index.rankOf(name, accountId);
      if (mine !== null) {
        start = Math.max(0, mine.rank - each);
        records = (await this.index.range(name, start, mine.rank - start + each + 1)).map((key) =>
          decodeRankKey(board.order, key),
        );
      }
    } else {
      const [mine] = await recordsOf(this.context.db, board.name, period, [accountId]);
      if (mine !== undefined) {
        const rank = await countRankedBefore(this.context.db, board, period, mine);
        start = Math.max(0, rank - each);
        records = await recordsInRankOrder(
          this.context.db,
          board,
          period,
          null,
          rank - start + each + 1,
          start,
        );
      }
    }
    return this.page(board, period, records, (i) => start + i + 1);
  }

  async friends(
    boardName: string,
    accountId: string,
    query: LeaderboardQuery = {},
  ): Promise<LeaderboardRecords> {
    const board = this.board(boardName, 'leaderboards.friends');
    checkAccountId(accountId, 'leaderboards.friends');
    const { period, current } = await this.resolvePeriod(board, query.period);
    const ids = [accountId, ...(await friendIds(this.context.db, accountId, FRIENDS_QUERY_LIMIT))];
    const records = (await recordsOf(this.context.db, board.name, period, ids))
      .map((record) => ({ record, key: encodeRankKey(board.order, record) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const name = current ? await this.ready(board, period) : null;
    const ranks: number[] = [];
    if (name !== null)
      for (const before of await this.index.countsBefore(
        name,
        records.map((r) => r.key),
      ))
        ranks.push(before + 1);
    else {
      const archived = await ranksOf(
        this.context.db,
        board,
        period,
        records.map((r) => r.record.accountId),
      );
      for (const { record } of records) ranks.push(archived.get(record.accountId) ?? 0);
    }
    return this.page(
      board,
      period,
      records.map((r) => r.record),
      (i) => ranks[i],
    );
  }

  /**
   * Loads every board's current period into the rank index when it is missing (at start), one
   * board after another; a board that fails is loaded again by its next query.
   */
  async warm(): Promise<void> {
    for (const board of this.definitions.boards.values()) {
      try {
        await this.ready(board, await this.currentPeriod(board.name));
      } catch {
        // a store down at start: the first query of the board rebuilds it, or answers 503
      }
    }
  }

  /** The index of a board's current period, rebuilt from SQL first when missing or suspect. */
  private async ready(board: Board, period: number): Promise<string> {
    const name = `${board.name}:${period}`;
    let pending = this.loading.get(name);
    if (pending === undefined && (this.suspect.has(name) || !(await this.index.ready(name)))) {
      this.suspect.delete(name);
      pending = this.rebuild(board, period, name).finally(() => this.loading.delete(name));
      this.loading.set(name, pending);
    }
    if (pending !== undefined) await pending;
    return name;
  }

  private async rebuild(board: Board, period: number, name: string): Promise<void> {
    try {
      let after: string | null = null;
      for (;;) {
        const page = await recordsByAccount(this.context.db, board.name, period, after, LOAD_PAGE);
        await this.index.offer(
          name,
          page.map((record) => [record.accountId, encodeRankKey(board.order, record)] as const),
        );
        if (page.length < LOAD_PAGE) break;
        after = page[page.length - 1].accountId;
      }
      await this.index.markReady(name);
    } catch (error) {
      this.suspect.add(name);
      throw error;
    }
  }

  private async page(
    board: Board,
    period: number,
    records: readonly RankRecord[],
    rankAt: (i: number) => number,
  ): Promise<LeaderboardRecords> {
    const names = await displayNames(
      this.context.db,
      records.map((r) => r.accountId),
    );
    return {
      board: board.name,
      period,
      records: records.map((r, i) => ({
        rank: rankAt(i),
        accountId: r.accountId,
        displayName: names.get(r.accountId) ?? null,
        score: r.score,
        at: r.atMs,
      })),
      next: null,
    };
  }
}

export function checkAccountId(accountId: unknown, caller: string): asserts accountId is string {
  if (typeof accountId !== 'string' || accountId.length === 0 || accountId.length > ACCOUNT_ID_MAX)
    throw new TypeError(`${caller}: accountId must be a string of 1..${ACCOUNT_ID_MAX} characters`);
}

function checkLimit(limit: number | undefined, fallback: number, most: number, caller: string): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > most)
    throw new RangeError(`${caller}: limit must be an integer 1..${most}, got ${String(limit)}`);
  return limit;
}

/** A page's cursor: how many records came before the next page, and the last record's rank key. */
function makeCursor(rank: number, key: string): string {
  return Buffer.from(`${rank}.${key}`, 'utf8').toString('base64url');
}

/** The record a cursor names and its rank; RangeError for one this board could not have made. */
function cursorRecord(board: Board, cursor: string): RankRecord & { rank: number } {
  const text =
    typeof cursor === 'string' && cursor.length <= 400
      ? Buffer.from(cursor, 'base64url').toString('utf8')
      : '';
  const dot = text.indexOf('.');
  const rank = Number(text.slice(0, dot));
  const key = text.slice(dot + 1);
  if (
    dot < 1 ||
    dot > 16 ||
    !/^\d+$/.test(text.slice(0, dot)) ||
    !Number.isSafeInteger(rank) ||
    !isRankKey(key)
  )
    throw new RangeError('leaderboards: the cursor is not one a page gave');
  const record = decodeRankKey(board.order, key);
  if (!Number.isFinite(record.score)) throw new RangeError('leaderboards: the cursor is not one a page gave');
  return { ...record, rank };
}

/** A missing account (foreign key) named as such; any other error as it is. */
export function rethrowMissingAccount(accountId: string): (error: unknown) => never {
  return (error) => {
    if ((error as { code?: unknown } | null)?.code === '23503')
      throw new TypeError(`no account ${accountId.slice(0, ACCOUNT_ID_MAX)}`, { cause: error });
    throw error;
  };
}
