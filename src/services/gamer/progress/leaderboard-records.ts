/**
 * The leaderboards' SQL: one record a (board, period, account), kept best-of by the board's order
 * in one INSERT ... ON CONFLICT DO UPDATE ... WHERE better; the time it was reached changes only
 * with the score, so ties rank by who got there first. Archived periods are read from here.
 */
import type { Kysely, Transaction } from 'kysely';
import type { GamerTables } from '../gamer-tables.js';
import type { Board } from './progress-definitions.js';
import type { RankRecord } from './rank-key.js';

type Db = Kysely<GamerTables> | Transaction<GamerTables>;

/** Submits a score: the record as it stands after, when it improved (else null). */
export async function upsertRecord(
  db: Db,
  board: Board,
  period: number,
  accountId: string,
  score: number,
  atMs: number,
): Promise<RankRecord | null> {
  const row = await db
    .insertInto('leaderboard_records')
    .values({ board: board.name, period, account_id: accountId, score, updated_at: atMs })
    .onConflict((oc) =>
      oc
        .columns(['board', 'period', 'account_id'])
        .doUpdateSet((eb) => ({ score: eb.ref('excluded.score'), updated_at: eb.ref('excluded.updated_at') }))
        .where('leaderboard_records.score', board.order === 'desc' ? '<' : '>', (eb) =>
          eb.ref('excluded.score'),
        ),
    )
    .returning(['score', 'updated_at'])
    .executeTakeFirst();
  return row === undefined ? null : { accountId, score: row.score, atMs: row.updated_at };
}

/** A page of a period's records in account order (for rebuilding an index). */
export async function recordsByAccount(
  db: Db,
  board: string,
  period: number,
  afterAccountId: string | null,
  limit: number,
): Promise<RankRecord[]> {
  let query = db
    .selectFrom('leaderboard_records')
    .select(['account_id', 'score', 'updated_at'])
    .where('board', '=', board)
    .where('period', '=', period);
  if (afterAccountId !== null) query = query.where('account_id', '>', afterAccountId);
  const rows = await query.orderBy('account_id').limit(limit).execute();
  return rows.map((r) => ({ accountId: r.account_id, score: r.score, atMs: r.updated_at }));
}

/** A page of an archived period in rank order, after `after` (a record on it, or null for the top). */
export async function recordsInRankOrder(
  db: Db,
  board: Board,
  period: number,
  after: RankRecord | null,
  limit: number,
  offset = 0,
): Promise<RankRecord[]> {
  const better = board.order === 'desc' ? '<' : '>';
  let query = db
    .selectFrom('leaderboard_records')
    .select(['account_id', 'score', 'updated_at'])
    .where('board', '=', board.name)
    .where('period', '=', period);
  if (after !== null)
    query = query.where((eb) =>
      eb.or([
        eb('score', better, after.score),
        eb.and([eb('score', '=', after.score), eb('updated_at', '>', after.atMs)]),
        eb.and([
          eb('score', '=', after.score),
          eb('updated_at', '=', after.atMs),
          eb('account_id', '>', after.accountId),
        ]),
      ]),
    );
  const rows = await query
    .orderBy('score', board.order)
    .orderBy('updated_at', 'asc')
    .orderBy('account_id', 'asc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({ accountId: r.account_id, score: r.score, atMs: r.updated_at }));
}

/** How many records of an archived period rank before `record`. */
export async function countRankedBefore(
  db: Db,
  board: Board,
  period: number,
  record: RankRecord,
): Promise<number> {
  const better = board.order === 'desc' ? '>' : '<';
  const row = await db
    .selectFrom('leaderboard_records')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('board', '=', board.name)
    .where('period', '=', period)
    .where((eb) =>
      eb.or([
        eb('score', better, record.score),
        eb.and([eb('score', '=', record.score), eb('updated_at', '<', record.atMs)]),
        eb.and([
          eb('score', '=', record.score),
          eb('updated_at', '=', record.atMs),
          eb('account_id', '<', record.accountId),
        ]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function recordsOf(
  db: Db,
  board: string,
  period: number,
  accountIds: readonly string[],
): Promise<RankRecord[]> {
  if (accountIds.length === 0) return [];
  const rows = await db
    .selectFrom('leaderboard_records')
    .select(['account_id', 'score', 'updated_at'])
    .where('board', '=', board)
    .where('period', '=', period)
    .where('account_id', 'in', accountIds)
    .execute();
  return rows.map((r) => ({ accountId: r.account_id, score: r.score, atMs: r.updated_at }));
}

/** The player's friends (both sides accepted: state 0), at most `limit`. */
export async function friendIds(db: Db, accountId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('friends')
    .select('other_id')
    .where('account_id', '=', accountId)
    .where('state', '=', 0)
    .orderBy('other_id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.other_id);
}

export async function displayNames(
  db: Db,
  accountIds: readonly string[],
): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  if (accountIds.length === 0) return names;
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'display_name'])
    .where('id', 'in', [...new Set(accountIds)])
    .execute();
  for (const row of rows) names.set(row.id, row.display_name);
  return names;
}

/** The 1-based ranks of some accounts in an archived period, in one pass over it. */
export async function ranksOf(
  db: Db,
  board: Board,
  period: number,
  accountIds: readonly string[],
): Promise<Map<string, number>> {
  const ranks = new Map<string, number>();
  if (accountIds.length === 0) return ranks;
  const rows = await db
    .selectFrom((qb) =>
      qb
        .selectFrom('leaderboard_records')
        .select((eb) => [
          'account_id',
          eb.fn
            .agg<number>('row_number')
            .over((ob) =>
              ob.orderBy('score', board.order).orderBy('updated_at', 'asc').orderBy('account_id', 'asc'),
            )
            .as('rank'),
        ])
        .where('board', '=', board.name)
        .where('period', '=', period)
        .as('ranked'),
    )
    .select(['account_id', 'rank'])
    .where('account_id', 'in', accountIds)
    .execute();
  for (const row of rows) ranks.set(row.account_id, Number(row.rank));
  return ranks;
}
