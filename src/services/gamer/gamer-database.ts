/**
 * The gamer services' database: a real PostgreSQL server through node-postgres, or PostgreSQL
 * compiled to WebAssembly (PGlite) inside this process when no server is given, so one machine
 * runs everything with nothing installed. Both speak the same SQL through one Kysely instance;
 * the migrations (migrations/) are applied at open. Each package loads only when its kind is used.
 */
import type { Kysely } from 'kysely';
import { importOptional } from '../../transport/optional-dependency.js';
import { migrateGamerDatabase } from './gamer-migrations.js';
import type { GamerTables } from './gamer-tables.js';

export type GamerDatabaseOptions =
  | {
      /** A PostgreSQL connection string: postgres://user:password@host:port/database */
      postgres: string;
      /** The most connections this process opens (default 10). */
      maxConnections?: number;
    }
  | {
      /**
       * PostgreSQL inside this process (PGlite): `directory` keeps the data in that folder across
       * restarts; without it the data lives in memory and ends with the process.
       */
      embedded: { directory?: string };
    };

export interface GamerDatabase {
  readonly kind: 'postgres' | 'embedded';
  readonly db: Kysely<GamerTables>;
  close(): Promise<void>;
}

const NEEDED_BY = 'ghostwire gamer services';

/** PostgreSQL's int8 (bigint) and numeric as JS numbers: every one we store is a safe integer or a double. */
const INT8_OID = 20;

export async function openGamerDatabase(
  options: GamerDatabaseOptions = { embedded: {} },
): Promise<GamerDatabase> {
  const { Kysely, PostgresDialect, PGliteDialect } = await importOptional(
    'kysely',
    NEEDED_BY,
    () => import('kysely'),
  );
  let database: GamerDatabase;
  if ('postgres' in options) {
    if (typeof options.postgres !== 'string' || !/^postgres(ql)?:\/\//.test(options.postgres))
      throw new TypeError('openGamerServices: database.postgres must be a postgres:// connection string');
    const max = options.maxConnections ?? 10;
    if (!Number.isInteger(max) || max < 1 || max > 1000)
      throw new RangeError(`openGamerServices: database.maxConnections must be 1..1000, got ${max}`);
    const pg = await importOptional('pg', NEEDED_BY, () => import('pg'));
    const pool = new pg.default.Pool({
      connectionString: options.postgres,
      max,
      // A down server must answer a request quickly (503), not after the OS's connect timeout.
      connectionTimeoutMillis: 2000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID
            ? (value: string) => Number(value)
            : pg.default.types.getTypeParser(oid, format)) as typeof pg.default.types.getTypeParser,
      },
    });
    // An idle client whose server went away emits 'error' on the pool: without a listener Node
    // would end the process. The next query gets a fresh connection or a 503.
    pool.on('error', () => {});
    // A client checked out between two statements of a transaction when the server goes away
    // emits 'error' on itself, where the pool listens no more: without this the process would end
    // too. Its next statement rejects (503) and the transaction is rolled back by the server.
    pool.on('connect', (client) => client.on('error', () => {}));
    database = {
      kind: 'postgres',
      db: new Kysely<GamerTables>({ dialect: new PostgresDialect({ pool }) }),
      close,
    };
  } else {
    const directory = options.embedded?.directory;
    if (directory !== undefined && (typeof directory !== 'string' || directory === ''))
      throw new TypeError('openGamerServices: database.embedded.directory must be a folder path');
    const { PGlite } = await importOptional(
      '@electric-sql/pglite',
      NEEDED_BY,
      () => import('@electric-sql/pglite'),
    );
    const pglite = await PGlite.create(directory ?? 'memory://', {
      parsers: { [INT8_OID]: (value: string) => Number(value) },
    });
    database = {
      kind: 'embedded',
      db: new Kysely<GamerTables>({ dialect: new PGliteDialect({ pglite }) }),
      close,
    };
  }
  let closed: Promise<void> | null = null;
  function close(): Promise<void> {
    closed ??= database.db.destroy();
    return closed;
  }
  try {
    await migrateGamerDatabase(database.db);
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return database;
}
