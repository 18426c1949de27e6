/**
 * Leaderboards on both stores: stat-fed and submitted boards, best-of by order, ties by the
 * earliest, cursor pages, around-me and friends-only, clock periods and seasons with their
 * archive, a season reset racing submissions, the rank index rebuilt after a restart, and hostile
 * queries refused.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openGamerServicesOn } from '../../src/services/gamer/gamer-services.js';
import type { LeaderboardRecords } from '../../src/services/gamer/progress/leaderboards.js';
import { describeOnGamerStores } from '../support/gamer-kit.js';
import { addAccounts, players, signIn, TRUSTING_AUTH } from '../support/progress-players.js';

/** Monday 2 November 2026, 00:00 UTC. */
const MONDAY_MS = Date.UTC(2026, 10, 2);
const DAY_MS = 86_400_000;

const OPTIONS = {
  stats: { zaps: 'sum', lapMs: 'min' },
  leaderboards: {
    zaps: { stat: 'zaps' },
    laps: { stat: 'lapMs' },
    dailyZaps: { stat: 'zaps', reset: 'daily' },
    weekly: { reset: 'weekly' },
    monthly: { reset: 'monthly' },
    season: { reset: 'season' },
  },
} as const;

const ids = (page: { records: { accountId: string }[] }) => page.records.map((r) => r.accountId);

describeOnGamerStores('gamer leaderboards', (kit, store) => {
  it('ranks best-of by the board order, ties by who reached the score first, pages by cursor', async () => {
    let now = MONDAY_MS;
    const harness = await kit().open({ ...OPTIONS, nowMs: () => now }, TRUSTING_AUTH);
    try {
      const names = Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      const [first] = await players(harness, kit(), names);
      const { stats, leaderboards } = harness.gamer;
      // p00..p24 score i % 5 zaps, one a millisecond: ties broken by time (p00 before p05 ...).
      for (const [i, id] of names.entries()) {
        now = MONDAY_MS + i;
        if (i % 5 > 0) await stats.update(id, { zaps: i % 5 });
        await stats.update(id, { lapMs: 1000 + (i % 7) });
      }
      now = MONDAY_MS + 100;
      await stats.update('p24', { zaps: 0 }); // same total: its time stays the one it reached 4 at
      const expected = [...names.entries()]
        .filter(([i]) => i % 5 > 0)
        .sort(([a], [b]) => (b % 5) - (a % 5) || a - b)
        .map(([, id]) => id);
      const all: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const answer = await harness.call<LeaderboardRecords>(
          'GET',
          `/leaderboards/zaps?limit=7${cursor === undefined ? '' : `&cursor=${cursor}`}`,
          { session: first.session },
        );
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        for (const [i, r] of answer.body.records.entries()) assert.equal(r.rank, all.length + i + 1);
        all.push(...ids(answer.body));
        cursor = answer.body.next ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 10);
      assert.deepEqual(all, expected);
      const top = await leaderboards.top('zaps', { limit: 2 });
      assert.deepEqual(top.records[0], {
        rank: 1,
        accountId: 'p04',
        displayName: 'name-p04',
        score: 4,
        at: MONDAY_MS + 4,
      });
      // An asc board fed by a 'min' stat: lowest first.
      const laps = await leaderboards.top('laps', { limit: 3 });
      assert.deepEqual(
        laps.records.map((r) => [r.accountId, r.score]),
        [
          ['p00', 1000],
          ['p07', 1000],
          ['p14', 1000],
        ],
      );
      // submit(): best-of only.
      // Week 2965: the 2965th Monday after Monday 5 January 1970.
      assert.deepEqual(await leaderboards.submit('weekly', 'p01', 50), { period: 2965, improved: true });
      assert.equal((await leaderboards.submit('weekly', 'p01', 40)).improved, false);
      assert.equal(
        (await leaderboards.submit('weekly', 'p01', 50)).improved,
        false,
        'a tie keeps the earlier time',
      );
      assert.equal((await leaderboards.top('weekly')).records[0].score, 50);
      await assert.rejects(leaderboards.submit('weekly', 'p01', Number.NaN), /finite/);
      await assert.rejects(leaderboards.submit('nope', 'p01', 1), /no leaderboard nope/);
      await assert.rejects(leaderboards.submit('weekly', 'ghost', 1), /no account ghost/);
      await assert.rejects(leaderboards.newSeason('weekly'), /not by season/);
    } finally {
      await harness.close();
    }
  });

  it('answers around the player and among its friends, with ranks on the whole board', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      const names = Array.from({ length: 30 }, (_, i) => `q${String(i).padStart(2, '0')}`);
      const [, , , , , , , , , , me] = await players(harness, kit(), names);
      for (const [i, id] of names.entries()) await harness.gamer.leaderboards.submit('weekly', id, 100 - i);
      const around = await harness.call<LeaderboardRecords>('GET', '/leaderboards/weekly?around=me&limit=3', {
        session: me.session,
      });
      assert.equal(around.status, 200);
      assert.deepEqual(
        around.body.records.map((r) => [r.rank, r.accountId]),
        [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17].slice(0, 7).map((rank) => [rank + 1, names[rank]]),
      );
      const top = await harness.call<LeaderboardRecords>('GET', '/leaderboards/weekly?around=me', {
        session: (await signIn(harness, 'q00')).session,
      });
      assert.deepEqual(ids(top.body), names.slice(0, 6), 'the first has none above');
      await addAccounts(kit(), ['lonely']);
      const none = await harness.call<LeaderboardRecords>('GET', '/leaderboards/weekly?around=me', {
        session: (await signIn(harness, 'lonely')).session,
      });
      assert.deepEqual(none.body.records, []);
      // Friends: state 0 only (not a request sent, received, nor a block).
      const at = 1;
      await kit()
        .database.db.insertInto('friends')
        .values([
          { account_id: 'q10', other_id: 'q20', state: 0, updated_at: at },
          { account_id: 'q10', other_id: 'q03', state: 0, updated_at: at },
          { account_id: 'q10', other_id: 'q01', state: 1, updated_at: at },
          { account_id: 'q10', other_id: 'q02', state: 2, updated_at: at },
          { account_id: 'q10', other_id: 'q04', state: 3, updated_at: at },
          { account_id: 'q10', other_id: 'lonely', state: 0, updated_at: at },
        ])
        .execute();
      const friends = await harness.call<LeaderboardRecords>('GET', '/leaderboards/weekly?friends=1', {
        session: me.session,
      });
      assert.equal(friends.status, 200);
      assert.deepEqual(
        friends.body.records.map((r) => [r.rank, r.accountId, r.score]),
        [
          [4, 'q03', 97],
          [11, 'q10', 90],
          [21, 'q20', 80],
        ],
      );
    } finally {
      await harness.close();
    }
  });

  it('starts clock periods over and keeps the archive readable', async () => {
    let now = MONDAY_MS + 3 * DAY_MS + 1000; // Thursday
    const harness = await kit().open({ ...OPTIONS, nowMs: () => now }, TRUSTING_AUTH);
    try {
      const [ann] = await players(harness, kit(), ['ann', 'bob']);
      const { stats, leaderboards } = harness.gamer;
      await stats.update('ann', { zaps: 5 });
      await leaderboards.submit('weekly', 'ann', 10);
      await leaderboards.submit('monthly', 'bob', 3);
      const thursday = await leaderboards.currentPeriod('dailyZaps');
      now += DAY_MS; // Friday: a new day, the same week
      await stats.update('bob', { zaps: 2 });
      await stats.update('ann', { zaps: 1 });
      assert.equal(await leaderboards.currentPeriod('dailyZaps'), thursday + 1);
      assert.deepEqual(
        (await leaderboards.top('dailyZaps')).records.map((r) => [r.accountId, r.score]),
        [
          ['ann', 6],
          ['bob', 2],
        ],
        "a stat-fed daily board takes the stat's total when it is updated that day",
      );
      const previous = await harness.call<LeaderboardRecords>(
        'GET',
        '/leaderboards/dailyZaps?period=previous',
        {
          session: ann.session,
        },
      );
      assert.equal(previous.status, 200);
      assert.equal(previous.body.period, thursday);
      assert.deepEqual(
        previous.body.records.map((r) => [r.rank, r.accountId, r.score]),
        [[1, 'ann', 5]],
      );
      const byNumber = await harness.call<LeaderboardRecords>(
        'GET',
        `/leaderboards/dailyZaps?period=${thursday}`,
        {
          session: ann.session,
        },
      );
      assert.deepEqual(byNumber.body, previous.body);
      now = MONDAY_MS + 7 * DAY_MS - 1; // Sunday 23:59:59.999: still the week
      assert.equal((await leaderboards.top('weekly')).records.length, 1);
      now = MONDAY_MS + 7 * DAY_MS; // Monday 00:00 UTC: a new week
      assert.deepEqual((await leaderboards.top('weekly')).records, []);
      assert.deepEqual(ids(await leaderboards.top('weekly', { period: 'previous' })), ['ann']);
      now = Date.UTC(2026, 11, 1); // December
      assert.deepEqual((await leaderboards.top('monthly')).records, []);
      assert.deepEqual(ids(await leaderboards.top('monthly', { period: 'previous' })), ['bob']);
      const future = await harness.call('GET', `/leaderboards/weekly?period=${thursday * 10}`, {
        session: ann.session,
      });
      assert.equal(future.status, 400);
      assert.match(String(future.body.error), /has periods/);
      const never = await harness.call('GET', '/leaderboards/zaps?period=previous', { session: ann.session });
      assert.equal(never.status, 400);
      assert.match(String(never.body.error), /never resets/);
    } finally {
      await harness.close();
    }
  });

  it('a season reset under load: each submission lands in exactly one season, the archive is final', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      const names = Array.from({ length: 120 }, (_, i) => `s${i}`);
      await addAccounts(kit(), names);
      const { leaderboards } = harness.gamer;
      await leaderboards.submit('season', 's0', 1);
      assert.equal(await leaderboards.currentPeriod('season'), 1);
      // Three waves: before the reset, racing it (queued behind it for a connection, some taking the
      // season's row first), and after it committed.
      const submit = (i: number) => leaderboards.submit('season', names[i], 1000 + i);
      const before = names.slice(0, 40).map((_, i) => submit(i));
      const reset = leaderboards.newSeason('season');
      const racing = names.slice(40, 80).map((_, i) => submit(40 + i));
      assert.deepEqual(await reset, { ended: 1, started: 2 });
      const after = names.slice(80).map((_, i) => submit(80 + i));
      const landed = await Promise.all([...before, ...racing, ...after]);
      assert.ok(
        landed.slice(80).every((l) => l.period === 2),
        'after the reset: the new season',
      );
      assert.ok(landed.some((l) => l.period === 1));
      const rows = await kit()
        .database.db.selectFrom('leaderboard_records')
        .select(['account_id', 'period', 'score'])
        .where('board', '=', 'season')
        .execute();
      for (const [i, id] of names.entries()) {
        const mine = rows.filter((r) => r.account_id === id && r.score === 1000 + i);
        assert.equal(mine.length, 1, `${id}'s submission is in exactly one season`);
        assert.equal(mine[0].period, landed[i].period, `${id} landed where submit said`);
      }
      const archived = await leaderboards.top('season', { period: 1, limit: 100 });
      const archivedAgain = async () =>
        (await leaderboards.top('season', { period: 'previous', limit: 100 })).records;
      await Promise.all(names.map((id) => leaderboards.submit('season', id, 5000)));
      assert.deepEqual(
        await archivedAgain(),
        archived.records,
        'no submission after the reset reaches the archive',
      );
      const current = await leaderboards.top('season', { limit: 100 });
      assert.equal(current.period, 2);
      assert.equal(current.records.length, 100);
      assert.ok(current.records.every((r) => r.score === 5000));
      // The archive by pages: the same records and ranks as one page.
      const paged: [number, string][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 30; i++) {
        const page = await leaderboards.top('season', { period: 1, limit: 7, cursor });
        paged.push(...page.records.map((r): [number, string] => [r.rank, r.accountId]));
        if (page.next === null) break;
        cursor = page.next;
      }
      assert.deepEqual(
        paged,
        archived.records.map((r) => [r.rank, r.accountId]),
      );
      // Friends in the archive: ranked on the whole archived season, as its top ranks them.
      await kit()
        .database.db.insertInto('friends')
        .values(
          ['s3', 's50', 's99'].map((other_id) => ({ account_id: 's7', other_id, state: 0, updated_at: 1 })),
        )
        .execute();
      const archivedRanks = new Map(archived.records.map((r) => [r.accountId, r.rank]));
      const friends = await leaderboards.friends('season', 's7', { period: 1 });
      assert.ok(friends.records.length >= 1);
      for (const r of friends.records) assert.equal(r.rank, archivedRanks.get(r.accountId), r.accountId);
      assert.deepEqual(await leaderboards.newSeason('season'), { ended: 2, started: 3 });
    } finally {
      await harness.close();
    }
  });

  it('rebuilds its rank index from the records when the services start', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      const names = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, '0')}`);
      await players(harness, kit(), names);
      for (const [i, id] of names.entries()) await harness.gamer.stats.update(id, { zaps: i });
      const before = await harness.gamer.leaderboards.top('zaps', { limit: 100 });
      assert.equal(before.records.length, 40);
      // Fresh services on the same store (a restarted backend): their index starts empty.
      const shared = { kind: kit().database.kind, db: kit().database.db, close: async () => {} };
      const again = await openGamerServicesOn(shared, {
        ...OPTIONS,
        ...(kit().redis === null ? {} : { redis: { url: (kit().redis as { url: string }).url } }),
      });
      try {
        assert.deepEqual(await again.leaderboards.top('zaps', { limit: 100 }), before);
      } finally {
        await again.close();
      }
    } finally {
      await harness.close();
    }
  });

  if (store === 'postgres+redis')
    it('rebuilds the Redis rank index after Redis restarted empty, meanwhile 503 with the reason', async () => {
      const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
      try {
        const names = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, '0')}`);
        const [ann] = await players(harness, kit(), names);
        for (const [i, id] of names.entries()) await harness.gamer.stats.update(id, { zaps: i });
        assert.equal((await harness.gamer.leaderboards.top('zaps', { limit: 100 })).records.length, 40);
        const redis = kit().redis as NonNullable<ReturnType<typeof kit>['redis']>;
        await redis.stop();
        const down = await harness.call('GET', '/leaderboards/zaps', { session: ann.session });
        assert.equal(down.status, 503, JSON.stringify(down.body));
        assert.match(String(down.body.error), /redis unavailable/);
        // A stat update while Redis is down: written to SQL, the index catches up later.
        await harness.gamer.stats.update('r00', { zaps: 100 });
        await redis.restart(); // empty: every key lost
        let answer = await harness.call<LeaderboardRecords>('GET', '/leaderboards/zaps?limit=100', {
          session: ann.session,
        });
        for (let i = 0; i < 50 && answer.status === 503; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          answer = await harness.call<LeaderboardRecords>('GET', '/leaderboards/zaps?limit=100', {
            session: ann.session,
          });
        }
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(ids(answer.body), ['r00', ...names.slice(1).reverse()]);
        assert.equal(answer.body.records[0].score, 100);
      } finally {
        await harness.close();
      }
    });

  it('refuses hostile queries with a reason', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      const [ann] = await players(harness, kit(), ['ann']);
      const refused = async (path: string, status: number, reason: RegExp) => {
        const answer = await harness.call('GET', path, { session: ann.session });
        assert.equal(answer.status, status, `${path}: ${JSON.stringify(answer.body)}`);
        assert.match(String(answer.body.error), reason, path);
      };
      await refused('/leaderboards/nope', 404, /no leaderboard nope/);
      await refused(`/leaderboards/${'x'.repeat(100)}`, 400, /board/);
      await refused('/leaderboards/zaps?limit=0', 400, /limit/);
      await refused('/leaderboards/zaps?limit=101', 400, /limit/);
      await refused('/leaderboards/zaps?limit=abc', 400, /limit/);
      await refused('/leaderboards/zaps?period=-1', 400, /period/);
      await refused('/leaderboards/zaps?period=1e400', 400, /period/);
      await refused('/leaderboards/zaps?cursor=AAAA', 400, /cursor/);
      await refused(`/leaderboards/zaps?cursor=${'A'.repeat(500)}`, 400, /cursor/);
      await refused('/leaderboards/zaps?around=you', 400, /around/);
      await refused('/leaderboards/zaps?around=me&friends=1', 400, /not both/);
      await refused('/leaderboards/zaps?around=me&limit=80', 400, /1..50/);
      await refused('/leaderboards/zaps?friends=1&cursor=AAAA', 400, /top only/);
      await refused('/leaderboards/zaps?admin=1', 400, /admin/);
      assert.equal((await harness.call('GET', '/leaderboards/zaps')).status, 401);
      const fine = await harness.call('GET', '/leaderboards/zaps?limit=100', { session: ann.session });
      assert.equal(fine.status, 200);
    } finally {
      await harness.close();
    }
  });
});
