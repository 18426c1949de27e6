/**
 * The gamer services' contract suites run twice: on the embedded default (PGlite in this process,
 * events in memory) and on a real PostgreSQL server with a real Redis, both started by the tests on
 * loopback. Each suite opens one store and empties it before every open(), so tests share its
 * start-up cost; open() mounts fresh services on a backend, reached without a socket
 * (app.request), with rate limits off unless a test asks for them.
 */
import { after, before, describe } from 'node:test';
import { sql } from 'kysely';
import { type Backend, type BackendOptions, createBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { type GamerDatabase, openGamerDatabase } from '../../src/services/gamer/gamer-database.js';
import { GAMER_MIGRATIONS } from '../../src/services/gamer/gamer-migrations.js';
import {
  type GamerServices,
  type GamerServicesOptions,
  openGamerServicesOn,
} from '../../src/services/gamer/gamer-services.js';
import { PRIVATE_KEY, PROTOCOL_ID } from './backend-fixture.js';
import { PostgresServer, postgresSkip } from './postgres.js';
import { RedisServer, redisSkip } from './redis.js';

export type KitOptions = Omit<GamerServicesOptions, 'database' | 'redis'>;

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

export interface GamerHarness {
  readonly gamer: GamerServices;
  readonly backend: Backend;
  /** One request to the backend; `session` goes in Authorization: Bearer. */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: { body?: unknown; session?: string; headers?: Record<string, string> },
  ): Promise<Answer<T>>;
  close(): Promise<void>;
}

export interface GamerKit {
  readonly name: 'embedded' | 'postgres+redis';
  /** Present on the postgres+redis kit: to stop and restart them mid-test. */
  readonly postgres: PostgresServer | null;
  readonly redis: RedisServer | null;
  /** The store itself (for checks in SQL). */
  readonly database: GamerDatabase;
  /** Fresh services on the emptied store, mounted on a backend. */
  open(options?: KitOptions, backend?: Partial<BackendOptions>): Promise<GamerHarness>;
}

/** Every table the migrations make, emptied between opens. */
async function empty(database: GamerDatabase): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_name not like 'ghostwire_migration%'`.execute(database.db);
  if (rows.length < Object.keys(GAMER_MIGRATIONS).length) throw new Error('the store has too few tables');
  await sql.raw(`truncate ${rows.map((r) => `"${r.name}"`).join(', ')} cascade`).execute(database.db);
}

function kitOn(
  name: GamerKit['name'],
  database: GamerDatabase,
  postgres: PostgresServer | null,
  redis: RedisServer | null,
): GamerKit {
  return {
    name,
    postgres,
    redis,
    database,
    async open(options = {}, backendOptions = {}) {
      await empty(database);
      if (redis !== null) {
        const { Redis } = await import('ioredis');
        const flush = new Redis(redis.url, { maxRetriesPerRequest: 0 });
        await flush.flushall();
        flush.disconnect();
      }
      // The shared store outlives each open: the services' close() leaves it open.
      const shared: GamerDatabase = { kind: database.kind, db: database.db, close: async () => {} };
      const gamer = await openGamerServicesOn(shared, {
        ...options,
        ...(redis === null ? {} : { redis: { url: redis.url } }),
      });
      const backend = createBackend({
        directory: new EmbeddedDirectory(),
        privateKey: PRIVATE_KEY,
        protocolId: PROTOCOL_ID,
        rateLimit: false,
        sweepIntervalMs: 0,
        gamer,
        onError: (error) => {
          throw error;
        },
        ...backendOptions,
      });
      return {
        gamer,
        backend,
        async call(method, path, { body, session, headers = {} } = {}) {
          const init: RequestInit = { method, headers: { ...headers } };
          if (body !== undefined) {
            (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
            init.body = typeof body === 'string' ? body : JSON.stringify(body);
          }
          if (session !== undefined)
            (init.headers as Record<string, string>).Authorization = `Bearer ${session}`;
          const response = await backend.app.request(path, init);
          const text = await response.text();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: the text as it is
          }
          return { status: response.status, body: parsed as never };
        },
        async close() {
          await backend.close();
          await gamer.close();
        },
      };
    },
  };
}

/**
 * Runs `body` as two suites, `<title> (embedded)` and `<title> (postgres+redis)`; `kit()` gives the
 * suite's kit inside its tests, and `store` which suite it is (a test that stops a server is
 * declared for the postgres+redis store only, rather than skipped on the other). The second is skipped with the reason where PostgreSQL or Redis is
 * not installed (and fails where they are required: CI).
 */
export function describeOnGamerStores(
  title: string,
  body: (kit: () => GamerKit, store: GamerKit['name']) => void,
): void {
  describe(`${title} (embedded)`, () => {
    let kit: GamerKit | null = null;
    before(async () => {
      kit = kitOn('embedded', await openGamerDatabase(), null, null);
    });
    after(async () => {
      await kit?.database.close();
    });
    body(() => {
      if (kit === null) throw new Error('the embedded store did not open');
      return kit;
    }, 'embedded');
  });
  const skip = postgresSkip() || redisSkip();
  describe(`${title} (postgres+redis)`, { skip }, () => {
    let kit: GamerKit | null = null;
    let postgres: PostgresServer | null = null;
    let redis: RedisServer | null = null;
    before(async () => {
      [postgres, redis] = await Promise.all([PostgresServer.start(), RedisServer.start()]);
      kit = kitOn('postgres+redis', await openGamerDatabase({ postgres: postgres.url() }), postgres, redis);
    });
    after(async () => {
      await kit?.database.close();
      await Promise.all([postgres?.dispose(), redis?.dispose()]);
    });
    body(() => {
      if (kit === null) throw new Error('PostgreSQL and Redis did not start');
      return kit;
    }, 'postgres+redis');
  });
}
