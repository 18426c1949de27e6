/**
 * Stats and leaderboards at size: a board of 1 M records (--quick: 20 k) seeded in SQL with
 * generate_series, then
 *   - the rank index rebuilt from SQL (what a start or a Redis restart costs),
 *   - leaderboard submissions (gamer.leaderboards.submit: best-of upsert, then the rank index),
 *   - around-me queries through the route (GET /leaderboards/:board?around=me, 5 each side),
 *   - stat updates (gamer.stats.update, one 'sum' stat),
 * each by one caller (the latency of one request alone) and by 16 at once (the rate under load);
 * rates and p50/p99 latencies. On the embedded default (PGlite in this
 * process, one connection; the rank index in memory) and on PostgreSQL + Redis on loopback
 * (10 connections; the rank index in a sorted set); where either is absent its rows are skipped
 * with the reason.
 */
import type { Backend } from '../../src/services/backend.js';
import { createBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { type GamerDatabase, openGamerDatabase } from '../../src/services/gamer/gamer-database.js';
import { openGamerServicesOn } from '../../src/services/gamer/gamer-services.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../../test/support/backend-fixture.js';
import { findPostgresBin, noPostgresReason, PostgresServer } from '../../test/support/postgres.js';
import { findRedisServer, noRedisReason, RedisServer } from '../../test/support/redis.js';
import { check, fmt, type SuiteContext } from '../harness.js';
import { type CallerFigures, runCallers } from '../support/callers.js';

const CALLERS = 16;

type Figures = CallerFigures;

const run = runCallers;

const accountId = (n: number) => `b${String(n).padStart(7, '0')}`;

/** N accounts and a record each on board 'score' (never resets: period 0), in SQL. */
async function seed(database: GamerDatabase, entries: number): Promise<void> {
  const { sql } = await import('kysely');
  await sql`truncate leaderboard_records, player_stats, achievements, accounts cascade`.execute(database.db);
  await sql`insert into accounts (id, display_name, created_at, updated_at)
    select 'b' || lpad(g::text, 7, '0'), 'player ' || g, 1, 1 from generate_series(0, ${entries - 1}) g`.execute(
    database.db,
  );
  await sql`insert into leaderboard_records (board, period, account_id, score, updated_at)
    select 'score', 0, 'b' || lpad(g::text, 7, '0'), floor(random() * 1000000), 1000 + g
    from generate_series(0, ${entries - 1}) g`.execute(database.db);
  await sql`analyze`.execute(database.db);
}

async function measureOn(
  ctx: SuiteContext,
  label: string,
  database: GamerDatabase,
  redisUrl: string | null,
): Promise<void> {
  const entries = ctx.options.quick ? 20_000 : 1_000_000;
  const each = ctx.options.quick ? 30 : 200;
  const seeding = performance.now();
  await seed(database, entries);
  ctx.note(`${label}: ${fmt(entries)} records seeded in ${fmt((performance.now() - seeding) / 1000)} s`);
  const gamer = await openGamerServicesOn(
    { kind: database.kind, db: database.db, close: async () => {} },
    {
      stats: { zaps: 'sum' },
      leaderboards: { score: {} },
      ...(redisUrl === null ? {} : { redis: { url: redisUrl } }),
    },
  );
  const backend: Backend = createBackend({
    directory: new EmbeddedDirectory(),
    privateKey: PRIVATE_KEY,
    protocolId: PROTOCOL_ID,
    rateLimit: false,
    sweepIntervalMs: 0,
    gamer,
    verify: async (body: { name: string }) => ({ userId: body.name }),
  } as Parameters<typeof createBackend>[0]);
  try {
    const rebuilding = performance.now();
    const top = await gamer.leaderboards.top('score', { limit: 1 });
    const rebuildSeconds = (performance.now() - rebuilding) / 1000;
    check(top.records.length === 1, 'the board has a top record');
    let random = 12345;
    const next = () => {
      random = (Math.imul(random, 1103515245) + 12345) >>> 0;
      return random;
    };
    const submitOne = async () => {
      await gamer.leaderboards.submit('score', accountId(next() % entries), next() % 1_100_000);
    };
    const sessions: string[] = [];
    for (let caller = 0; caller < CALLERS * 4; caller++) {
      const response = await backend.app.request('/auth', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: accountId(next() % entries) }),
      });
      sessions.push(((await response.json()) as { session: string }).session);
    }
    const aroundOne = async (caller: number, i: number) => {
      const response = await backend.app.request('/leaderboards/score?around=me', {
        headers: { Authorization: `Bearer ${sessions[(caller * 7 + i) % sessions.length]}` },
      });
      const body = (await response.json()) as { records: unknown[] };
      check(response.status === 200 && body.records.length >= 6, `around-me answered ${response.status}`);
    };
    const statOne = async () => {
      await gamer.stats.update(accountId(next() % entries), { zaps: 1 });
    };
    const rows: [string, string, Figures][] = [
      ['leaderboard submit, 1 at a time', 'submit1', await run(1, each, submitOne)],
      [`leaderboard submit, ${CALLERS} at once`, 'submit', await run(CALLERS, each, submitOne)],
      ['around-me (route), 1 at a time', 'around1', await run(1, each, aroundOne)],
      [`around-me (route), ${CALLERS} at once`, 'around', await run(CALLERS, each, aroundOne)],
      ['stat update, 1 at a time', 'stat1', await run(1, each, statOne)],
      [`stat update, ${CALLERS} at once`, 'stat', await run(CALLERS, each, statOne)],
    ];
    ctx.note(`  rank index rebuilt from SQL          ${fmt(rebuildSeconds)} s (${fmt(entries)} records)`);
    for (const [name, key, f] of rows) {
      ctx.note(
        `  ${name.padEnd(36)} ${fmt(f.perSecond).padStart(8)} /s   p50 ${fmt(f.p50)} ms   p99 ${fmt(f.p99)} ms`,
      );
      ctx.record(`${label} ${key} per second`, f.perSecond);
      ctx.record(`${label} ${key} p50 ms`, f.p50);
      ctx.record(`${label} ${key} p99 ms`, f.p99);
    }
    ctx.record(`${label} rebuild seconds`, rebuildSeconds);
    ctx.note(`  (${each} operations each caller)`);
  } finally {
    await backend.close();
    await gamer.close();
  }
}

export async function runGamerProgress(ctx: SuiteContext): Promise<void> {
  const embedded = await openGamerDatabase();
  try {
    await measureOn(ctx, 'embedded (PGlite, index in memory)', embedded, null);
  } finally {
    await embedded.close();
  }
  if (findPostgresBin() === null || findRedisServer() === null) {
    ctx.note(`postgres+redis: skipped: ${noPostgresReason() || noRedisReason()}`);
    return;
  }
  const [server, redis] = await Promise.all([PostgresServer.start(), RedisServer.start()]);
  try {
    const database = await openGamerDatabase({ postgres: server.url() });
    try {
      await measureOn(ctx, 'postgres + redis (loopback, 10 connections)', database, redis.url);
    } finally {
      await database.close();
    }
  } finally {
    await Promise.all([server.dispose(), redis.dispose()]);
  }
}
