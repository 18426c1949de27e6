/**
 * Friends: a relation is two rows, one from each side, each with that side's state: 0 friends,
 * 1 request sent, 2 request received, 3 blocked (the blocked side keeps no row).
 */
export const socialMigration: readonly string[] = [
  `create table friends (
    account_id text not null references accounts(id) on delete cascade,
    other_id text not null references accounts(id) on delete cascade,
    state smallint not null,
    updated_at bigint not null,
    primary key (account_id, other_id)
  )`,
  `create index friends_by_state on friends (account_id, state)`,
];
