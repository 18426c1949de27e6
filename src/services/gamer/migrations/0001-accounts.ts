/**
 * Accounts: one row a player, with the devices and outside identities that sign in as it. A guest
 * has devices only; linking an outside identity registers it. Display names are unique by their
 * folded form (display_key: case and width folded), so "Ann" and "ANN" cannot both exist.
 */
export const accountsMigration: readonly string[] = [
  `create table accounts (
    id text primary key,
    display_name text,
    display_key text unique,
    registered boolean not null default false,
    banned_until bigint,
    ban_reason text,
    created_at bigint not null,
    updated_at bigint not null
  )`,
  `create table account_devices (
    device_id text primary key,
    account_id text not null references accounts(id) on delete cascade,
    created_at bigint not null
  )`,
  `create index account_devices_by_account on account_devices (account_id)`,
  `create table account_identities (
    provider text not null,
    external_id text not null,
    account_id text not null references accounts(id) on delete cascade,
    created_at bigint not null,
    primary key (provider, external_id)
  )`,
  `create index account_identities_by_account on account_identities (account_id)`,
];
