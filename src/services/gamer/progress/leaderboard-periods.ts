/**
 * Which period of a board a moment falls in. Clock periods are numbered from the unix epoch: days
 * (UTC), weeks (from Monday 00:00 UTC; the first, 0, began Monday 5 January 1970) and months (0 is
 * January 1970). Seasons are rows of leaderboard_periods, advanced by newSeason(); a board that
 * never resets has one period, 0.
 */
import type { Kysely, Transaction } from 'kysely';
import type { GamerTables } from '../gamer-tables.js';
import type { Board } from './progress-definitions.js';

const DAY_MS = 86_400_000;
/** 5 January 1970, the first Monday, is day 4 of the epoch. */
const FIRST_MONDAY_DAY = 4;

export function clockPeriod(reset: Board['reset'], nowMs: number): number {
  switch (reset) {
    case 'daily':
      return Math.floor(nowMs / DAY_MS);
    case 'weekly':
      return Math.floor((Math.floor(nowMs / DAY_MS) - FIRST_MONDAY_DAY) / 7);
    case 'monthly': {
      const date = new Date(nowMs);
      return (date.getUTCFullYear() - 1970) * 12 + date.getUTCMonth();
    }
    default:
      return 0;
  }
}

type Db = Kysely<GamerTables> | Transaction<GamerTables>;

/**
 * The board's current season. With `share` (inside a submission's transaction) its row is locked
 * against newSeason() until the submission commits, so a record lands in exactly one season and a
 * season that ended takes no more records.
 */
export async function currentSeason(db: Db, board: string, nowMs: number, share: boolean): Promise<number> {
  for (let attempt = 0; attempt < 8; attempt++) {
    let query = db
      .selectFrom('leaderboard_periods')
      .select('period')
      .where('board', '=', board)
      .where('ended_at', 'is', null);
    if (share) query = query.forShare();
    const row = await query.executeTakeFirst();
    if (row !== undefined) return row.period;
    // No season yet (the first use), or newSeason() just ended the one we waited for: a new
    // statement sees the season it started. Season 1 exists once any does, so this inserts only the first.
    await db
      .insertInto('leaderboard_periods')
      .values({ board, period: 1, started_at: nowMs, ended_at: null })
      .onConflict((oc) => oc.columns(['board', 'period']).doNothing())
      .execute();
  }
  throw new Error(`leaderboard ${board}: its current season could not be read`);
}

/** Ends the current season and starts the next, in one transaction. */
export async function advanceSeason(
  db: Kysely<GamerTables>,
  board: string,
  nowMs: number,
): Promise<{ ended: number; started: number }> {
  return db.transaction().execute(async (trx) => {
    let row: { period: number } | undefined;
    // Another newSeason() that ended the row we waited for: the next statement sees its successor.
    for (let attempt = 0; row === undefined && attempt < 8; attempt++) {
      await currentSeason(trx, board, nowMs, false);
      row = await trx
        .selectFrom('leaderboard_periods')
        .select('period')
        .where('board', '=', board)
        .where('ended_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
    }
    if (row === undefined) throw new Error(`leaderboard ${board}: its current season could not be locked`);
    await trx
      .updateTable('leaderboard_periods')
      .set({ ended_at: nowMs })
      .where('board', '=', board)
      .where('period', '=', row.period)
      .execute();
    await trx
      .insertInto('leaderboard_periods')
      .values({ board, period: row.period + 1, started_at: nowMs, ended_at: null })
      .execute();
    return { ended: row.period, started: row.period + 1 };
  });
}
