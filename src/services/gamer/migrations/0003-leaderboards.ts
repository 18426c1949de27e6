/**
 * Leaderboards: every record of every period is kept (the archive); a period is a day, a week, a
 * month or a season of its board. The records are the truth: a rank index (Redis sorted sets, or
 * one in memory) is rebuilt from them when lost. Ties rank by who reached the score first.
 */
export const leaderboardsMigration: readonly string[] = [
  `create table leaderboard_records (
    board text not null,
    period bigint not null,
    account_id text not null references accounts(id) on delete cascade,
    score double precision not null,
    updated_at bigint not null,
    primary key (board, period, account_id)
  )`,
  `create index leaderboard_records_by_rank on leaderboard_records (board, period, score, updated_at)`,
  `create table leaderboard_periods (
    board text not null,
    period bigint not null,
    started_at bigint not null,
    ended_at bigint,
    primary key (board, period)
  )`,
];
