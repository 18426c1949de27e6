/**
 * Player storage: JSON documents by (player, collection, key), each with a version that every
 * write raises (a write naming an older version is refused), who may read it (owner or public) and
 * who may write it (owner or server).
 */
export const storageMigration: readonly string[] = [
  `create table storage (
    account_id text not null references accounts(id) on delete cascade,
    collection text not null,
    key text not null,
    value jsonb not null,
    version bigint not null,
    read text not null,
    write text not null,
    bytes integer not null,
    updated_at bigint not null,
    primary key (account_id, collection, key)
  )`,
  `create index storage_public on storage (collection, key) where read = 'public'`,
];
