/**
 * Presence fan-out: one player with 200 friends, each friend holding an open event stream over
 * loopback HTTP (fetch streaming, in this process); the player's presence changes (a server sets
 * them in a match, then clears it), and each change is timed from the call to its arrival at
 * every friend. Per-friend arrival p50/p99, and the time until the last of the 200 has it. Once
 * on the embedded default (PGlite, events in memory), once on PostgreSQL + Redis (the friends
 * query on PostgreSQL, one pipelined PUBLISH batch, a SUBSCRIBE per friend), both started here;
 * where they are absent those rows are skipped with the reason.
 */
import { sql } from 'kysely';
import { createBackend, serveBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { type GamerDatabase, openGamerDatabase } from '../../src/services/gamer/gamer-database.js';
import { openGamerServicesOn } from '../../src/services/gamer/gamer-services.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../../test/support/backend-fixture.js';
import { PostgresServer, postgresSkip } from '../../test/support/postgres.js';
import { RedisServer, redisSkip } from '../../test/support/redis.js';
import { fail, fmt, type SuiteContext } from '../harness.js';

const FRIENDS = 200;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

interface Figures {
  perFriend: number[];
  lastFriend: number[];
}

async function fanOut(database: GamerDatabase, redisUrl: string | null, changes: number): Promise<Figures> {
  const gamer = await openGamerServicesOn(
    { ...database, close: async () => {} },
    {
      ...(redisUrl === null ? {} : { redis: { url: redisUrl } }),
      social: { presenceIntervalMs: 0, offlineGraceMs: 0, maxFriends: FRIENDS, maxStreams: 1000 },
    },
  );
  const backend = createBackend({
    directory: new EmbeddedDirectory(),
    privateKey: PRIVATE_KEY,
    protocolId: PROTOCOL_ID,
    rateLimit: false,
    sweepIntervalMs: 0,
    gamer,
    verify: async (body: { name: string }) => ({ userId: body.name }),
  });
  const served = await serveBackend(backend);
  const controller = new AbortController();
  try {
    const ids = ['star', ...Array.from({ length: FRIENDS }, (_, i) => `f${i}`)];
    await sql`truncate friends, accounts cascade`.execute(database.db);
    await sql`insert into accounts (id, created_at, updated_at) select unnest(${ids}::text[]), 0, 0`.execute(
      database.db,
    );
    await sql`insert into friends (account_id, other_id, state, updated_at)
      select 'star', f, 0, 0 from unnest(${ids.slice(1)}::text[]) f
      union all select f, 'star', 0, 0 from unnest(${ids.slice(1)}::text[]) f`.execute(database.db);
    const sessions = await Promise.all(
      ids.map(async (name) => {
        const r = await fetch(`${served.url}/auth`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        return ((await r.json()) as { session: string }).session;
      }),
    );
    /** Arrival times (performance.now) of each seq at each friend. */
    const arrivals = new Map<number, number[]>();
    let waiting: { seq: number; resolve: () => void } | null = null;
    const open = async (session: string, listen: boolean) => {
      const response = await fetch(`${served.url}/events`, {
        headers: { Authorization: `Bearer ${session}` },
        signal: controller.signal,
      });
      if (response.status !== 200 || response.body === null) fail(`stream refused: ${response.status}`);
      if (!listen) return;
      void (async () => {
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        const decoder = new TextDecoder();
        let pending = '';
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            pending += decoder.decode(value, { stream: true });
            let cut = pending.indexOf('\n\n');
            while (cut >= 0) {
              const line = pending.slice(0, cut);
              pending = pending.slice(cut + 2);
              cut = pending.indexOf('\n\n');
              if (!line.startsWith('data: ')) continue;
              const event = JSON.parse(line.slice(6)) as { kind: string; accountId: string; seq: number };
              if (event.kind !== 'presence' || event.accountId !== 'star') continue;
              const times = arrivals.get(event.seq) ?? [];
              times.push(performance.now());
              arrivals.set(event.seq, times);
              if (waiting !== null && event.seq === waiting.seq && times.length === FRIENDS)
                waiting.resolve();
            }
          }
        } catch {
          // aborted at the end
        }
      })();
    };
    await Promise.all(sessions.slice(1).map((s) => open(s, true)));
    await open(sessions[0], false);
    await new Promise((r) => setTimeout(r, 200)); // the star's own "online" reaches everyone
    const figures: Figures = { perFriend: [], lastFriend: [] };
    for (let i = 0; i < changes; i++) {
      const started = performance.now();
      const view =
        i % 2 === 0
          ? await gamer.presence.set('star', { state: 'in-match', roomId: `room-${i}` })
          : await gamer.presence.clear('star');
      const all = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`change ${i} did not reach every friend`)), 10_000);
        waiting = {
          seq: view.seq,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        if ((arrivals.get(view.seq)?.length ?? 0) === FRIENDS) waiting.resolve();
      });
      await all;
      const times = arrivals.get(view.seq) as number[];
      for (const t of times) figures.perFriend.push(t - started);
      figures.lastFriend.push(Math.max(...times) - started);
      arrivals.delete(view.seq);
    }
    return figures;
  } finally {
    controller.abort();
    await served.close();
    await gamer.close();
  }
}

function report(ctx: SuiteContext, name: string, f: Figures): void {
  const per = [...f.perFriend].sort((a, b) => a - b);
  const last = [...f.lastFriend].sort((a, b) => a - b);
  ctx.note(
    `${name}: ${f.lastFriend.length} changes to ${FRIENDS} friends — per friend p50 ${fmt(percentile(per, 50))} ms, p99 ${fmt(percentile(per, 99))} ms; all ${FRIENDS} reached p50 ${fmt(percentile(last, 50))} ms, p99 ${fmt(percentile(last, 99))} ms`,
  );
  ctx.record(`${name}.perFriendMs`, { p50: percentile(per, 50), p99: percentile(per, 99) });
  ctx.record(`${name}.allFriendsMs`, { p50: percentile(last, 50), p99: percentile(last, 99) });
}

export async function runGamerSocial(ctx: SuiteContext): Promise<void> {
  const changes = ctx.options.quick ? 20 : 100;
  const embedded = await openGamerDatabase();
  try {
    await fanOut(embedded, null, 4); // warm-up
    report(ctx, 'embedded', await fanOut(embedded, null, changes));
  } finally {
    await embedded.close();
  }
  const skip = postgresSkip() || redisSkip();
  if (skip) {
    ctx.note(`postgres+redis: skipped (${skip})`);
    return;
  }
  const [postgres, redis] = await Promise.all([PostgresServer.start(), RedisServer.start()]);
  const database = await openGamerDatabase({ postgres: postgres.url() });
  try {
    await fanOut(database, redis.url, 4);
    report(ctx, 'postgres+redis', await fanOut(database, redis.url, changes));
  } finally {
    await database.close();
    await Promise.all([postgres.dispose(), redis.dispose()]);
  }
}
