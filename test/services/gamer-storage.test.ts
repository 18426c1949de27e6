/** Player storage on both stores: versions, permissions, lists, limits, races and hostile bodies. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeOnGamerStores, type GamerHarness } from '../support/gamer-kit.js';

type Player = { session: string; userId: string };

async function player(harness: GamerHarness, device: string): Promise<Player> {
  const answer = await harness.call<Player>('POST', '/auth', { body: { device: device.padEnd(16, '0') } });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

describeOnGamerStores('gamer storage', (kit, store) => {
  it('writes with versions: create only, over a version, or whatever is there', async () => {
    const harness = await kit().open();
    try {
      const ann = await player(harness, 'ann');
      const put = (body: unknown) =>
        harness.call('PUT', '/storage/saves/slot-1', { session: ann.session, body });
      const created = await put({ value: { level: 3 }, version: 0 });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.version, 1);
      const again = await put({ value: { level: 4 }, version: 0 });
      assert.equal(again.status, 409, 'version 0 creates only');
      assert.equal(again.body.version, 1);
      assert.equal((await put({ value: { level: 4 }, version: 1 })).body.version, 2);
      const stale = await put({ value: { level: 5 }, version: 1 });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.version, 2, 'a stale write is told the current version');
      assert.match(String(stale.body.error), /version 2/);
      assert.equal((await put({ value: 'anything' })).body.version, 3, 'no version: write whatever is there');
      const read = await harness.call('GET', '/storage/saves/slot-1', { session: ann.session });
      assert.equal(read.status, 200);
      assert.deepEqual(
        { value: read.body.value, version: read.body.version, read: read.body.read, write: read.body.write },
        { value: 'anything', version: 3, read: 'owner', write: 'owner' },
      );
      const missingOver = await harness.call('PUT', '/storage/saves/none', {
        session: ann.session,
        body: { value: 1, version: 4 },
      });
      assert.equal(missingOver.status, 409);
      assert.equal(missingOver.body.version, 0);
      // Delete: with a stale version refused, with the current one done, then absent.
      assert.equal(
        (await harness.call('DELETE', '/storage/saves/slot-1?version=2', { session: ann.session })).status,
        409,
      );
      const deleted = await harness.call('DELETE', '/storage/saves/slot-1?version=3', {
        session: ann.session,
      });
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.version, 3);
      assert.equal(
        (await harness.call('GET', '/storage/saves/slot-1', { session: ann.session })).status,
        404,
      );
      assert.equal(
        (await harness.call('DELETE', '/storage/saves/slot-1', { session: ann.session })).status,
        404,
      );
    } finally {
      await harness.close();
    }
  });

  it('two writers on one key with one version: exactly one wins, the other is told the current version', async () => {
    const harness = await kit().open();
    try {
      const ann = await player(harness, 'ann');
      await harness.call('PUT', '/storage/saves/race', {
        session: ann.session,
        body: { value: 0, version: 0 },
      });
      for (let round = 1; round <= 5; round++) {
        const answers = await Promise.all(
          ['a', 'b', 'c', 'd'].map((writer) =>
            harness.call('PUT', '/storage/saves/race', {
              session: ann.session,
              body: { value: `${writer}${round}`, version: round },
            }),
          ),
        );
        const won = answers.filter((a) => a.status === 200);
        const lost = answers.filter((a) => a.status === 409);
        assert.equal(won.length, 1, `round ${round}: ${answers.map((a) => a.status)}`);
        assert.equal(lost.length, 3);
        for (const answer of lost) assert.equal(answer.body.version, round + 1);
      }
      const final = await harness.gamer.storage.read(ann.userId, 'saves', 'race');
      assert.equal(final?.version, 6);
      // The document count stays bounded under racing creates too.
      const { count } = (
        await sql<{ count: number }>`select count(*)::int as count from storage`.execute(kit().database.db)
      ).rows[0];
      assert.equal(count, 1);
    } finally {
      await harness.close();
    }
  });

  it("reads another player's public documents only, and nobody writes another's", async () => {
    const harness = await kit().open();
    try {
      const ann = await player(harness, 'ann');
      const bob = await player(harness, 'bob');
      await harness.call('PUT', '/storage/profile/card', {
        session: ann.session,
        body: { value: { motto: 'hi' }, read: 'public' },
      });
      await harness.call('PUT', '/storage/profile/secret', { session: ann.session, body: { value: 'mine' } });
      const card = await harness.call('GET', `/storage/profile/card?owner=${ann.userId}`, {
        session: bob.session,
      });
      assert.equal(card.status, 200);
      assert.deepEqual(card.body.value, { motto: 'hi' });
      const secret = await harness.call('GET', `/storage/profile/secret?owner=${ann.userId}`, {
        session: bob.session,
      });
      assert.equal(secret.status, 404, 'an owner-only document is not told to others');
      // Bob's writes land in Bob's own documents: no route takes an owner for writing.
      const sneaky = await harness.call('PUT', `/storage/profile/secret?owner=${ann.userId}`, {
        session: bob.session,
        body: { value: 'pwned' },
      });
      assert.equal(sneaky.status, 200);
      const withOwner = await harness.call('PUT', '/storage/profile/secret', {
        session: bob.session,
        body: { value: 'pwned', owner: ann.userId },
      });
      assert.equal(withOwner.status, 400);
      assert.equal((await harness.gamer.storage.read(ann.userId, 'profile', 'secret'))?.value, 'mine');
      const bobDelete = await harness.call('DELETE', `/storage/profile/card?owner=${ann.userId}`, {
        session: bob.session,
      });
      assert.equal(bobDelete.status, 404, 'Bob deletes only his own (he has no card)');
      assert.equal((await harness.gamer.storage.read(ann.userId, 'profile', 'card'))?.version, 1);
    } finally {
      await harness.close();
    }
  });

  it('a server document refuses player writes; the server-side API writes it', async () => {
    const harness = await kit().open();
    try {
      const ann = await player(harness, 'ann');
      const written = await harness.gamer.storage.write(ann.userId, 'wallet', 'coins', 100, {
        write: 'server',
        read: 'owner',
      });
      assert.deepEqual(written, { ok: true, version: 1 });
      const put = await harness.call('PUT', '/storage/wallet/coins', {
        session: ann.session,
        body: { value: 1e9 },
      });
      assert.equal(put.status, 403);
      assert.match(String(put.body.error), /server only/);
      const del = await harness.call('DELETE', '/storage/wallet/coins', { session: ann.session });
      assert.equal(del.status, 403);
      const make = await harness.call('PUT', '/storage/wallet/gems', {
        session: ann.session,
        body: { value: 5, write: 'server' },
      });
      assert.equal(make.status, 403, 'a player cannot make a server document either');
      const read = await harness.call('GET', '/storage/wallet/coins', { session: ann.session });
      assert.equal(read.body.value, 100);
      assert.deepEqual(await harness.gamer.storage.write(ann.userId, 'wallet', 'coins', 90, { version: 5 }), {
        ok: false,
        currentVersion: 1,
      });
      assert.deepEqual(await harness.gamer.storage.write(ann.userId, 'wallet', 'coins', 90, { version: 1 }), {
        ok: true,
        version: 2,
      });
      await assert.rejects(
        harness.gamer.storage.write(ann.userId, 'wallet', 'coins', () => 1),
        /not JSON: a function/,
      );
      await assert.rejects(harness.gamer.storage.write(ann.userId, '../x', 'k', 1), /collection must be/);
      await assert.rejects(harness.gamer.storage.write('nobody', 'c', 'k', 1), /no account nobody/);
    } finally {
      await harness.close();
    }
  });

  it('lists own documents by key, page by page, and bounds documents a player', async () => {
    const harness = await kit().open({ storage: { maxDocumentsPerPlayer: 7 } });
    try {
      const ann = await player(harness, 'ann');
      for (let i = 0; i < 7; i++) {
        const answer = await harness.call('PUT', `/storage/items/k${i}`, {
          session: ann.session,
          body: { value: i },
        });
        assert.equal(answer.status, 200);
      }
      const full = await harness.call('PUT', '/storage/other/k', {
        session: ann.session,
        body: { value: 0 },
      });
      assert.equal(full.status, 409);
      assert.match(String(full.body.error), /at most 7 documents/);
      const keys: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { documents: { key: string }[]; cursor: string | null } } =
          await harness.call('GET', `/storage/items?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`, {
            session: ann.session,
          });
        assert.equal(page.status, 200);
        assert.ok(page.body.documents.length <= 3);
        keys.push(...page.body.documents.map((d) => d.key));
        cursor = page.body.cursor;
      } while (cursor !== null);
      assert.deepEqual(keys, ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6']);
      assert.equal(
        (await harness.call('GET', '/storage/items?limit=1000', { session: ann.session })).status,
        400,
      );
      const bob = await player(harness, 'bob');
      const bobs = await harness.call('GET', '/storage/items', { session: bob.session });
      assert.deepEqual(bobs.body, { documents: [], cursor: null });
    } finally {
      await harness.close();
    }
  });

  it('refuses hostile bodies and names with a reason, cheaply', async () => {
    const harness = await kit().open();
    try {
      const ann = await player(harness, 'ann');
      let deep: unknown = 1;
      for (let i = 0; i < 40; i++) deep = [deep];
      const wide = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`${i}`, 0]));
      const cases: [string, unknown, number, RegExp][] = [
        ['deep', { value: deep }, 400, /nested deeper than 16/],
        ['wide', { value: Array(3000).fill(0) }, 400, /at most 2048 values/],
        ['many keys', { value: wide }, 413, /body over/],
        ['no value', {}, 400, /value/],
        ['NUL', { value: 'a\u0000b' }, 400, /NUL/],
        ['NUL key', { value: { 'a\u0000': 1 } }, 400, /NUL/],
        ['version type', { value: 1, version: '1' }, 400, /version/],
        ['negative version', { value: 1, version: -1 }, 400, /version/],
        ['read', { value: 1, read: 'everyone' }, 400, /read/],
        ['unknown key', { value: 1, owner: 'x' }, 400, /owner|Unrecognized/i],
        ['too big', { value: 'x'.repeat(17_000) }, 413, /body over/],
        ['array body', [1, 2], 400, /body/],
      ];
      for (const [name, body, status, reason] of cases) {
        const answer = await harness.call('PUT', '/storage/c/k', { session: ann.session, body });
        assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.body).slice(0, 200)}`);
        assert.match(String(answer.body.error), reason, name);
      }
      const notJson = await harness.call('PUT', '/storage/c/k', {
        session: ann.session,
        body: '{"value": 1',
      });
      assert.equal(notJson.status, 400);
      // 8000 levels inside the body limit: refused by the iterative walk, no stack overflow.
      const veryDeep = await harness.call('PUT', '/storage/c/k', {
        session: ann.session,
        body: `{"value":${'['.repeat(8000)}${']'.repeat(8000)}}`,
      });
      assert.equal(veryDeep.status, 400);
      assert.match(String(veryDeep.body.error), /nested deeper than 16/);
      for (const path of ['/storage/c/k%2F..', `/storage/${'c'.repeat(65)}/k`, '/storage/c/k%00']) {
        const answer = await harness.call('PUT', path, { session: ann.session, body: { value: 1 } });
        assert.equal(answer.status, 400, path);
      }
      assert.equal(
        (await harness.call('GET', '/storage/c/k?owner=../../x', { session: ann.session })).status,
        400,
      );
      assert.equal(
        (await harness.call('DELETE', '/storage/c/k?version=abc', { session: ann.session })).status,
        400,
      );
      assert.equal((await harness.call('PUT', '/storage/c/k', { body: { value: 1 } })).status, 401);
      const { count } = (
        await sql<{ count: number }>`select count(*)::int as count from storage`.execute(kit().database.db)
      ).rows[0];
      assert.equal(count, 0, 'nothing hostile was written');
      // The body limit of the backend and the value limit together: 16 KiB of value needs a larger body.
      const big = await kit().open({}, { maxBodyBytes: 64 * 1024 });
      try {
        const bigAnn = await player(big, 'ann');
        const atLimit = await big.call('PUT', '/storage/c/k', {
          session: bigAnn.session,
          body: { value: 'x'.repeat(16384 - 2) },
        });
        assert.equal(atLimit.status, 200);
        const over = await big.call('PUT', '/storage/c/k', {
          session: bigAnn.session,
          body: { value: 'x'.repeat(16384 - 1) },
        });
        assert.equal(over.status, 400);
        assert.match(String(over.body.error), /over the limit of 16384/);
      } finally {
        await big.close();
      }
    } finally {
      await harness.close();
    }
  });

  // The embedded store runs in this process: it has no server to stop.
  if (store === 'postgres+redis')
    it('answers 503 while PostgreSQL is down, writes nothing half, and works after it is back', async () => {
      const postgres = kit().postgres!;
      const harness = await kit().open();
      try {
        const ann = await player(harness, 'ann');
        assert.equal(
          (await harness.call('PUT', '/storage/c/k', { session: ann.session, body: { value: 1 } })).status,
          200,
        );
        // The test server runs with synchronous_commit=off: make what was answered durable before the crash.
        await sql`checkpoint`.execute(kit().database.db);
        // Writers racing while the server stops: each writes { n } as the version it makes, so a
        // document whose value and version disagree would be half a write.
        let stopping = false;
        const writer = async (key: string) => {
          let version = 0;
          const statuses = new Set<number>();
          for (let i = 0; i < 500 && !(stopping && statuses.has(503)); i++) {
            const answer = await harness.call('PUT', `/storage/race/${key}`, {
              session: ann.session,
              body: { value: { n: version + 1, pad: 'x'.repeat(200) }, version },
            });
            statuses.add(answer.status);
            if (answer.status === 200) version = answer.body.version as number;
            else if (answer.status !== 503 && answer.status !== 409)
              assert.fail(`${answer.status}: ${JSON.stringify(answer.body)}`);
            if (answer.status === 409) version = answer.body.version as number;
          }
          return statuses;
        };
        const writers = ['w1', 'w2', 'w3', 'w4'].map(writer);
        await new Promise((resolve) => setTimeout(resolve, 400)); // the WAL writer flushes each 200 ms
        stopping = true;
        await postgres.stop();
        let answered: Set<number>[];
        try {
          answered = await Promise.all(writers);
          const put = await harness.call('PUT', '/storage/c/k', { session: ann.session, body: { value: 2 } });
          assert.equal(put.status, 503, JSON.stringify(put.body));
          assert.match(String(put.body.error), /database unavailable/);
          const auth = await harness.call('POST', '/auth', { body: { device: 'newdevice0000000' } });
          assert.equal(auth.status, 503);
        } finally {
          await postgres.startAgain();
        }
        for (const statuses of answered) assert.ok(statuses.has(503), 'each writer met the stopped server');
        const read = await harness.call('GET', '/storage/c/k', { session: ann.session });
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.equal(read.body.value, 1, 'the refused write left nothing');
        assert.equal(read.body.version, 1);
        const { rows } = await sql<{ key: string; version: number; n: number; bytes: number; text: string }>`
        select key, version, (value->>'n')::int as n, bytes, value::text as text
        from storage where collection = 'race'`.execute(kit().database.db);
        assert.ok(rows.length > 0, 'some racing writes were kept');
        for (const row of rows)
          assert.equal(row.n, row.version, `race/${row.key}: value and version from one write`);
        const put = await harness.call('PUT', '/storage/c/k', {
          session: ann.session,
          body: { value: 3, version: 1 },
        });
        assert.equal(put.status, 200);
      } finally {
        await harness.close();
      }
    });
});
