/**
 * The gamer services' database: the same migrations on the embedded database (PGlite) and on a
 * real PostgreSQL server, applied once however many processes open it at once, and a database
 * newer than the code refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openGamerDatabase } from '../../src/services/gamer/gamer-database.js';
import { GAMER_MIGRATIONS, migrateGamerDatabase } from '../../src/services/gamer/gamer-migrations.js';
import { PostgresServer, postgresSkip } from '../support/postgres.js';

const TABLES = [
  'account_devices',
  'account_identities',
  'accounts',
  'achievements',
  'friends',
  'leaderboard_periods',
  'leaderboard_records',
  'player_stats',
  'storage',
];

async function tables(db: Parameters<typeof migrateGamerDatabase>[0]): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_name not like 'ghostwire_migration%' order by 1`.execute(db);
  return rows.map((r) => r.name);
}

describe('gamer database: embedded', () => {
  it('opens in memory with every table, and again with nothing left to apply', async () => {
    const database = await openGamerDatabase();
    try {
      assert.equal(database.kind, 'embedded');
      assert.deepEqual(await tables(database.db), TABLES);
      assert.deepEqual(await migrateGamerDatabase(database.db), [], 'nothing applied twice');
      const { rows } = await sql<{ big: number }>`select 9007199254740991::bigint as big`.execute(
        database.db,
      );
      assert.equal(rows[0]!.big, Number.MAX_SAFE_INTEGER, 'bigint read as a number');
    } finally {
      await database.close();
    }
  });

  it('refuses misuse at the call', async () => {
    await assert.rejects(openGamerDatabase({ postgres: 'mysql://x' }), /postgres:\/\/ connection string/);
    await assert.rejects(
      openGamerDatabase({ postgres: 'postgres://x', maxConnections: 0 }),
      /maxConnections must be 1..1000/,
    );
    await assert.rejects(openGamerDatabase({ embedded: { directory: '' } }), /folder path/);
  });
});

describe('gamer database: PostgreSQL', { skip: postgresSkip() }, () => {
  let server: PostgresServer;
  before(async () => {
    server = await PostgresServer.start();
  });
  after(async () => {
    await server?.dispose();
  });

  it('migrates once when four processes open it at once', async () => {
    const opened = await Promise.all([1, 2, 3, 4].map(() => openGamerDatabase({ postgres: server.url() })));
    try {
      assert.ok(opened.every((d) => d.kind === 'postgres'));
      assert.deepEqual(await tables(opened[0]!.db), TABLES);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ghostwire_migration`.execute(
        opened[0]!.db,
      );
      assert.equal(rows[0]!.n, Object.keys(GAMER_MIGRATIONS).length);
      const big = await sql<{ big: number }>`select 9007199254740991::bigint as big`.execute(opened[1]!.db);
      assert.equal(big.rows[0]!.big, Number.MAX_SAFE_INTEGER, 'bigint read as a number, not a string');
    } finally {
      await Promise.all(opened.map((d) => d.close()));
    }
  });

  it('refuses a database newer than the code, naming why', async () => {
    const database = await openGamerDatabase({ postgres: server.url() });
    await sql`insert into ghostwire_migration (name, timestamp) values ('9999-from-the-future', now()::text)`.execute(
      database.db,
    );
    await database.close();
    await assert.rejects(
      openGamerDatabase({ postgres: server.url() }),
      /schema could not be brought up to date/,
    );
    const again = await openGamerDatabase({ postgres: server.url() }).catch(() => null);
    assert.equal(again, null);
  });

  it('fails fast with the reason when the server is down', async () => {
    await server.stop();
    const started = Date.now();
    await assert.rejects(openGamerDatabase({ postgres: server.url() }), /ECONNREFUSED|connect/);
    assert.ok(Date.now() - started < 5000);
    await server.startAgain();
  });
});
