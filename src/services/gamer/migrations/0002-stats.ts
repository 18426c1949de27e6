/**
 * Stats and achievements: one row a (player, stat) with its aggregated value, one row a (player,
 * achievement) unlocked. Values are doubles: exact for integers up to 2^53.
 */
export const statsMigration: readonly string[] = [
  `create table player_stats (
    account_id text not null references accounts(id) on delete cascade,
    name text not null,
    value double precision not null,
    updated_at bigint not null,
    primary key (account_id, name)
  )`,
  `create table achievements (
    account_id text not null references accounts(id) on delete cascade,
    id text not null,
    unlocked_at bigint not null,
    primary key (account_id, id)
  )`,
];
