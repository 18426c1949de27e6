/**
 * Gamer accounts and player storage through the backend's routes (the hono app's fetch, no
 * sockets, rate limit off): a device sign-in of an existing account (POST /auth: one read, a
 * session signed), a first sign-in (an account and its device made in one transaction), a
 * versioned storage write (PUT with the version read: a transaction locking the account row) and
 * a storage read (GET), each by 16 players at once. On the embedded default (PGlite in this
 * process: one connection, so writes queue) and on a PostgreSQL server on loopback (node-postgres,
 * 10 connections); where postgres is absent its rows are skipped with the reason.
 */
import type { Backend } from '../../src/services/backend.js';
import { createBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { type GamerDatabase, openGamerDatabase } from '../../src/services/gamer/gamer-database.js';
import { type GamerServices, openGamerServicesOn } from '../../src/services/gamer/gamer-services.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../../test/support/backend-fixture.js';
import { findPostgresBin, noPostgresReason, PostgresServer } from '../../test/support/postgres.js';
import { check, fmt, median, type SuiteContext } from '../harness.js';
import { type CallerFigures, runCallers } from '../support/callers.js';

const PLAYERS = 16;

async function call(
  app: Backend['app'],
  method: string,
  path: string,
  body?: unknown,
  session?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (session !== undefined) headers.Authorization = `Bearer ${session}`;
  const response = await app.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

type Figures = CallerFigures;

/** `PLAYERS` callers at once, `each` operations each. */
const run = (each: number, op: (player: number, i: number) => Promise<void>) => runCallers(PLAYERS, each, op);

async function measureOn(ctx: SuiteContext, label: string, database: GamerDatabase): Promise<void> {
  const rounds = ctx.options.quick ? 2 : 5;
  const each = ctx.options.quick ? 20 : 60;
  const results: Record<string, Figures[]> = { first: [], signIn: [], put: [], get: [] };
  for (let round = 0; round < rounds; round++) {
    const gamer: GamerServices = await openGamerServicesOn(
      { kind: database.kind, db: database.db, close: async () => {} },
      {},
    );
    const backend = createBackend({
      directory: new EmbeddedDirectory(),
      privateKey: PRIVATE_KEY,
      protocolId: PROTOCOL_ID,
      rateLimit: false,
      sweepIntervalMs: 0,
      gamer,
    });
    const device = (player: number, i: number) => `bench${round}p${player}d${i}`.padEnd(16, '0');
    results.first.push(
      await run(each, async (player, i) => {
        const answer = await call(backend.app, 'POST', '/auth', { device: device(player, i) });
        check(answer.status === 200, `first sign-in answered ${answer.status}`);
      }),
    );
    const sessions: string[] = [];
    results.signIn.push(
      await run(each, async (player) => {
        const answer = await call(backend.app, 'POST', '/auth', { device: device(player, 0) });
        check(answer.status === 200, `sign-in answered ${answer.status}`);
        sessions[player] = answer.body.session as string;
      }),
    );
    const versions = new Array<number>(PLAYERS).fill(0);
    const value = { level: 12, inventory: Array.from({ length: 20 }, (_, i) => ({ item: i, count: 3 })) };
    results.put.push(
      await run(each, async (player) => {
        const answer = await call(
          backend.app,
          'PUT',
          '/storage/saves/slot-1',
          { value, version: versions[player] },
          sessions[player],
        );
        check(answer.status === 200, `versioned write answered ${answer.status}`);
        versions[player] = answer.body.version as number;
      }),
    );
    results.get.push(
      await run(each, async (player) => {
        const answer = await call(backend.app, 'GET', '/storage/saves/slot-1', undefined, sessions[player]);
        check(answer.status === 200 && answer.body.version === versions[player], 'read its own last write');
      }),
    );
    await backend.close();
    await gamer.close();
  }
  const rows: [string, string, Figures[]][] = [
    ['first sign-in (makes the account)', 'first', results.first],
    ['sign-in, existing device', 'signIn', results.signIn],
    ['storage write with its version', 'put', results.put],
    ['storage read', 'get', results.get],
  ];
  ctx.note(`${label}: ${PLAYERS} players at once, ${each} each, median of ${rounds} rounds`);
  for (const [name, key, figures] of rows) {
    const rate = median(figures.map((f) => f.perSecond));
    const p50 = median(figures.map((f) => f.p50));
    const p99 = median(figures.map((f) => f.p99));
    ctx.note(`  ${name.padEnd(36)} ${fmt(rate).padStart(8)} /s   p50 ${fmt(p50)} ms   p99 ${fmt(p99)} ms`);
    ctx.record(`${label} ${key} per second`, { median: rate, samples: figures.map((f) => f.perSecond) });
    ctx.record(`${label} ${key} p50 ms`, p50);
    ctx.record(`${label} ${key} p99 ms`, p99);
  }
}

export async function runGamerAccounts(ctx: SuiteContext): Promise<void> {
  const embedded = await openGamerDatabase();
  try {
    await measureOn(ctx, 'embedded (PGlite)', embedded);
  } finally {
    await embedded.close();
  }
  if (findPostgresBin() === null) {
    ctx.note(`postgres: skipped: ${noPostgresReason()}`);
    return;
  }
  const server = await PostgresServer.start();
  try {
    const database = await openGamerDatabase({ postgres: server.url() });
    try {
      await measureOn(ctx, 'postgres (loopback, 10 connections)', database);
    } finally {
      await database.close();
    }
  } finally {
    await server.dispose();
  }
}
