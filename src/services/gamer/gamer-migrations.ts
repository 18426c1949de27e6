/**
 * The gamer services' schema, versioned: each migration (migrations/) runs once, in name order,
 * inside a transaction, under the migrator's lock, so several backends starting on one database
 * apply each exactly once. A database newer than this code (a migration we do not know) is refused.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { importOptional } from '../../transport/optional-dependency.js';
import type { GamerTables } from './gamer-tables.js';
import { accountsMigration } from './migrations/0001-accounts.js';
import { statsMigration } from './migrations/0002-stats.js';
import { leaderboardsMigration } from './migrations/0003-leaderboards.js';
import { socialMigration } from './migrations/0004-social.js';
import { storageMigration } from './migrations/0005-storage.js';

/** Every migration by name (its SQL statements, in order); names sort in the order they apply. */
export const GAMER_MIGRATIONS: Readonly<Record<string, readonly string[]>> = {
  '0001-accounts': accountsMigration,
  '0002-stats': statsMigration,
  '0003-leaderboards': leaderboardsMigration,
  '0004-social': socialMigration,
  '0005-storage': storageMigration,
};

/** The migrator's own tables, apart from the game's. */
const MIGRATION_TABLE = 'ghostwire_migration';
const MIGRATION_LOCK_TABLE = 'ghostwire_migration_lock';

export async function migrateGamerDatabase(db: Kysely<GamerTables>): Promise<string[]> {
  const { sql } = await importOptional('kysely', 'ghostwire gamer services', () => import('kysely'));
  const { Migrator } = await importOptional(
    'kysely',
    'ghostwire gamer services',
    () => import('kysely/migration'),
  );
  const migrations: Record<string, Migration> = {};
  for (const [name, statements] of Object.entries(GAMER_MIGRATIONS))
    migrations[name] = {
      async up(on: Kysely<unknown>) {
        for (const statement of statements) await sql.raw(statement).execute(on);
      },
    };
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(
      `gamer services: the database's schema could not be brought up to date${failed === undefined ? '' : ` (migration ${failed})`}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
