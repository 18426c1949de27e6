/** GamerClient's stats, achievements and leaderboards against a real backend (its routes, without a socket), on both stores. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';
import { GamerClient } from '../../src/join/gamer-client.js';
import { describeOnGamerStores, type GamerHarness } from '../support/gamer-kit.js';
import { addAccounts, TRUSTING_AUTH } from '../support/progress-players.js';

async function client(harness: GamerHarness, name: string): Promise<GamerClient> {
  const backend = new BackendClient({
    url: 'http://backend.test',
    fetch: (url, init) =>
      Promise.resolve(harness.backend.app.request(url.replace('http://backend.test', ''), init)),
  });
  await backend.auth({ name });
  return new GamerClient(backend);
}

describeOnGamerStores('gamer progress client', (kit) => {
  it('reads stats, achievements and every kind of leaderboard query', async () => {
    const harness = await kit().open(
      {
        stats: { zaps: 'sum' },
        achievements: { firstZap: { stat: 'zaps', atLeast: 1 } },
        leaderboards: { zaps: { stat: 'zaps' }, season: { reset: 'season' } },
      },
      TRUSTING_AUTH,
    );
    try {
      const names = ['ann', 'bob', 'cat', 'dan', 'eve'];
      await addAccounts(kit(), names);
      for (const [i, id] of names.entries()) await harness.gamer.stats.update(id, { zaps: (i + 1) * 10 });
      await harness.gamer.leaderboards.submit('season', 'cat', 7);
      await harness.gamer.leaderboards.newSeason('season');
      const gamer = await client(harness, 'cat');
      assert.deepEqual(await gamer.stats.mine(), { zaps: 30 });
      assert.deepEqual(await gamer.stats.of('eve'), { zaps: 50 });
      assert.deepEqual(
        (await gamer.achievements.mine()).map((a) => a.id),
        ['firstZap'],
      );
      const first = await gamer.leaderboards.top('zaps', { limit: 2 });
      assert.deepEqual(
        first.records.map((r) => [r.rank, r.accountId, r.score, r.displayName]),
        [
          [1, 'eve', 50, 'name-eve'],
          [2, 'dan', 40, 'name-dan'],
        ],
      );
      assert.notEqual(first.next, null);
      const second = await gamer.leaderboards.top('zaps', { limit: 2, cursor: first.next as string });
      assert.deepEqual(
        second.records.map((r) => r.rank),
        [3, 4],
      );
      assert.deepEqual(
        (await gamer.leaderboards.around('zaps', { limit: 1 })).records.map((r) => r.accountId),
        ['dan', 'cat', 'bob'],
      );
      assert.deepEqual(
        (await gamer.leaderboards.friends('zaps')).records.map((r) => [r.rank, r.accountId]),
        [[3, 'cat']],
      );
      const archived = await gamer.leaderboards.top('season', { period: 'previous' });
      assert.equal(archived.period, 1);
      assert.deepEqual(
        archived.records.map((r) => [r.accountId, r.score]),
        [['cat', 7]],
      );
      assert.deepEqual((await gamer.leaderboards.top('season')).records, []);
      await assert.rejects(
        gamer.leaderboards.top('nope'),
        (error) =>
          error instanceof BackendError && error.status === 404 && /no leaderboard/.test(error.reason),
      );
      await assert.rejects(
        gamer.leaderboards.top('zaps', { limit: 1000 }),
        (error) => error instanceof BackendError && error.status === 400,
      );
      assert.throws(() => gamer.leaderboards.top(''), /board must be a non-empty string/);
    } finally {
      await harness.close();
    }
  });
});
