/** Stats and achievements on both stores: folds, atomic parallel updates, unlocks once, reads only for players. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type GamerServices, openGamerServices } from '../../src/services/gamer/gamer-services.js';
import type { GamerEvent, PlayerEvents } from '../../src/services/gamer/player-events.js';
import { describeOnGamerStores } from '../support/gamer-kit.js';
import { players, TRUSTING_AUTH } from '../support/progress-players.js';

const OPTIONS = {
  stats: { zaps: 'sum', bestStreak: 'max', fastestLapMs: 'min', rating: 'last' },
  achievements: {
    firstZap: { stat: 'zaps', atLeast: 1 },
    hundred: { stat: 'zaps', atLeast: 100 },
    secret: {},
  },
} as const;

/**
 * Every event the services publish while `body` runs, whatever bus carries them (in memory, or
 * Redis once several backends share one): the services' own bus, wrapped for the test.
 */
async function recordingEvents<T>(
  gamer: GamerServices,
  body: (events: [string, GamerEvent][]) => Promise<T>,
): Promise<T> {
  const events: [string, GamerEvent][] = [];
  const bus = (gamer.achievements as unknown as { context: { events: PlayerEvents } }).context.events;
  const original = bus.publish;
  bus.publish = async (accountId, event) => {
    events.push([accountId, event]);
    return original.call(bus, accountId, event);
  };
  try {
    return await body(events);
  } finally {
    bus.publish = original;
  }
}

it('refuses bad declarations at open, before touching a database', async () => {
  await assert.rejects(openGamerServices({ stats: { zaps: 'count' as never } }), /stat zaps must be one of/);
  await assert.rejects(
    openGamerServices({ stats: { zaps: 'sum' }, achievements: { a: { stat: 'zapz', atLeast: 1 } } }),
    /names stat zapz, which is not declared/,
  );
  await assert.rejects(
    openGamerServices({ stats: { zaps: 'sum' }, achievements: { a: { stat: 'zaps' } } }),
    /needs a finite atLeast/,
  );
  await assert.rejects(openGamerServices({ stats: { 'a b': 'sum' } }), /must match/);
  await assert.rejects(
    openGamerServices({ leaderboards: { zaps: { stat: 'zaps' } } }),
    /leaderboard zaps names stat zaps/,
  );
  await assert.rejects(
    openGamerServices({ leaderboards: { b: { reset: 'hourly' as never } } }),
    /reset must be one of/,
  );
});

describeOnGamerStores('gamer stats', (kit, store) => {
  it('folds each stat by its kind, in one call, and players read them', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      const [ann, bob] = await players(harness, kit(), ['ann', 'bob']);
      const { stats } = harness.gamer;
      assert.deepEqual(await stats.update('ann', { zaps: 2, bestStreak: 5, fastestLapMs: 900, rating: 10 }), {
        values: { bestStreak: 5, fastestLapMs: 900, rating: 10, zaps: 2 },
        unlocked: ['firstZap'],
      });
      const second = await stats.update('ann', { zaps: 3, bestStreak: 4, fastestLapMs: 950, rating: 7.5 });
      assert.deepEqual(second.values, { bestStreak: 5, fastestLapMs: 900, rating: 7.5, zaps: 5 });
      assert.deepEqual(second.unlocked, [], 'firstZap unlocks once');
      const third = await stats.update('ann', { bestStreak: 9, fastestLapMs: 800 });
      assert.deepEqual(third.values, { bestStreak: 9, fastestLapMs: 800 });
      const own = await harness.call('GET', '/stats', { session: ann.session });
      assert.equal(own.status, 200);
      assert.deepEqual(own.body, {
        accountId: 'ann',
        stats: { bestStreak: 9, fastestLapMs: 800, rating: 7.5, zaps: 5 },
      });
      const other = await harness.call('GET', '/stats/ann', { session: bob.session });
      assert.equal(other.status, 200, 'stats are public to signed-in players');
      assert.deepEqual(other.body, own.body);
      assert.deepEqual((await harness.call('GET', '/stats/nobody', { session: bob.session })).body, {
        accountId: 'nobody',
        stats: {},
      });
      assert.equal((await harness.call('GET', '/stats')).status, 401, 'a session is needed');
      assert.equal(
        (await harness.call('GET', `/stats/${'x'.repeat(200)}`, { session: bob.session })).status,
        400,
      );
    } finally {
      await harness.close();
    }
  });

  it('refuses misuse at the call: unknown stats, non-finite values, a missing account', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      await players(harness, kit(), ['ann']);
      const { stats, achievements } = harness.gamer;
      await assert.rejects(stats.update('ann', { zapz: 1 }), /no stat zapz/);
      await assert.rejects(stats.update('ann', { zaps: Number.NaN }), /zaps must be a finite number/);
      await assert.rejects(stats.update('ann', { zaps: Number.POSITIVE_INFINITY }), /finite/);
      await assert.rejects(stats.update('ann', { zaps: '1' as never }), /finite/);
      await assert.rejects(stats.update('ann', {}), /names no stat/);
      await assert.rejects(stats.update('', { zaps: 1 }), /accountId must be/);
      await assert.rejects(stats.update('ghost', { zaps: 1 }), /no account ghost/);
      await assert.rejects(achievements.unlock('ann', 'nope'), /no achievement nope/);
      await assert.rejects(achievements.unlock('ghost', 'secret'), /no account ghost/);
      // One bad stat in a call: nothing of it written.
      await assert.rejects(stats.update('ann', { zaps: 1, rating: Number.NaN }));
      assert.deepEqual(await stats.get('ann'), {});
      // A sum overflowing the doubles: refused, the transaction rolled back.
      await stats.update('ann', { zaps: 1e308, rating: 1 });
      await assert.rejects(stats.update('ann', { rating: 2, zaps: 1e308 }));
      assert.deepEqual(await stats.get('ann'), { rating: 1, zaps: 1e308 });
    } finally {
      await harness.close();
    }
  });

  it('100 parallel increments sum to exactly 100 and unlock `hundred` once, with one event', async () => {
    const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
    try {
      const [ann] = await players(harness, kit(), ['ann']);
      const results = await recordingEvents(harness.gamer, async (events) => {
        const updates = await Promise.all(
          Array.from({ length: 100 }, () => harness.gamer.stats.update('ann', { zaps: 1 })),
        );
        const hundredEvents = events.filter(
          ([who, e]) => who === 'ann' && e.kind === 'achievement' && e.id === 'hundred',
        );
        assert.equal(hundredEvents.length, 1, 'one unlock event');
        assert.equal(events.filter(([, e]) => e.kind === 'achievement' && e.id === 'firstZap').length, 1);
        return updates;
      });
      assert.deepEqual(
        results.map((r) => r.values.zaps).sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i + 1),
        'each update saw its own total',
      );
      assert.equal(results.filter((r) => r.unlocked.includes('hundred')).length, 1);
      assert.equal(results.find((r) => r.unlocked.includes('hundred'))?.values.zaps, 100);
      assert.deepEqual(await harness.gamer.stats.get('ann'), { zaps: 100 });
      const listed = await harness.call<{ achievements: { id: string; at: number }[] }>(
        'GET',
        '/achievements',
        {
          session: ann.session,
        },
      );
      assert.deepEqual(
        listed.body.achievements.map((a) => a.id),
        ['firstZap', 'hundred'],
      );
      assert.ok(listed.body.achievements.every((a) => Number.isInteger(a.at) && a.at > 0));
    } finally {
      await harness.close();
    }
  });

  it('unlocks explicit achievements once, told to the player, listed only to its owner', async () => {
    let now = 1_000;
    const harness = await kit().open({ ...OPTIONS, nowMs: () => now }, TRUSTING_AUTH);
    try {
      const [ann, bob] = await players(harness, kit(), ['ann', 'bob']);
      await recordingEvents(harness.gamer, async (events) => {
        assert.equal(await harness.gamer.achievements.unlock('ann', 'secret'), true);
        now = 2_000;
        assert.equal(await harness.gamer.achievements.unlock('ann', 'secret'), false, 'once');
        assert.deepEqual(events, [['ann', { kind: 'achievement', id: 'secret', at: 1_000 }]]);
      });
      assert.deepEqual(await harness.gamer.achievements.list('ann'), [{ id: 'secret', at: 1_000 }]);
      assert.deepEqual((await harness.call('GET', '/achievements', { session: bob.session })).body, {
        achievements: [],
      });
      assert.equal((await harness.call('GET', '/achievements/ann', { session: bob.session })).status, 404);
      assert.deepEqual((await harness.call('GET', '/achievements', { session: ann.session })).body, {
        achievements: [{ id: 'secret', at: 1_000 }],
      });
    } finally {
      await harness.close();
    }
  });

  it('no route writes a stat, an achievement or a score, whatever the method or path', async () => {
    const harness = await kit().open({ ...OPTIONS, leaderboards: { zaps: { stat: 'zaps' } } }, TRUSTING_AUTH);
    try {
      const [ann] = await players(harness, kit(), ['ann']);
      const paths = [
        '/stats',
        '/stats/ann',
        '/stats/ann/zaps',
        '/stats/ann/../ann',
        '/stats/%2e%2e/stats',
        '/achievements',
        '/achievements/secret',
        '/leaderboards/zaps',
        '/leaderboards/zaps/ann',
        '/leaderboards/zaps/scores',
      ];
      const body = { zaps: 1000, name: 'zaps', value: 1000, score: 1000, id: 'secret', accountId: 'ann' };
      for (const path of paths)
        for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
          const answer = await harness.call(method, path, { session: ann.session, body });
          assert.ok([404, 405].includes(answer.status), `${method} ${path} answered ${answer.status}`);
        }
      assert.deepEqual(await harness.gamer.stats.get('ann'), {});
      assert.deepEqual(await harness.gamer.achievements.list('ann'), []);
      assert.deepEqual((await harness.gamer.leaderboards.top('zaps')).records, []);
    } finally {
      await harness.close();
    }
  });
  // The embedded store runs in this process: it cannot go down alone.
  if (store === 'postgres+redis')
    it('a database that went down answers 503 with the reason, loses nothing committed, and serves again', async () => {
      const postgres = kit().postgres as NonNullable<ReturnType<typeof kit>['postgres']>;
      const harness = await kit().open(OPTIONS, TRUSTING_AUTH);
      try {
        const [ann] = await players(harness, kit(), ['ann']);
        await harness.gamer.stats.update('ann', { zaps: 3 });
        await postgres.stop();
        const down = await harness.call('GET', '/stats', { session: ann.session });
        assert.equal(down.status, 503, JSON.stringify(down.body));
        assert.match(String(down.body.error), /database unavailable/);
        await assert.rejects(harness.gamer.stats.update('ann', { zaps: 1 }));
        await postgres.startAgain();
        let answer = await harness.call('GET', '/stats', { session: ann.session });
        for (let i = 0; i < 50 && answer.status === 503; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          answer = await harness.call('GET', '/stats', { session: ann.session });
        }
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.stats, { zaps: 3 }, 'the update made while down took no effect');
        assert.equal((await harness.gamer.stats.update('ann', { zaps: 1 })).values.zaps, 4);
      } finally {
        await harness.close();
      }
    });
});
