/**
 * Friends on both stores: requests, accept, remove, block (a blocked player is never told), the
 * caps and the rate, hostile requests refused with reasons, both sides written together (two
 * players befriending each other at once; PostgreSQL stopped mid-run leaves no half relation).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeOnGamerStores } from '../support/gamer-kit.js';
import { befriend, makePlayers, openEvents, openSocial } from '../support/gamer-social.js';

type Row = { account_id: string; other_id: string; state: number };

describeOnGamerStores('friends', (kit, store) => {
  async function rows(): Promise<Row[]> {
    const { rows } =
      await sql<Row>`select account_id, other_id, state from friends order by account_id, other_id`.execute(
        kit().database.db,
      );
    return rows;
  }

  it('a request, its acceptance, the lists with names and presence, and removal; each side told', async () => {
    const h = await openSocial(kit(), { social: { offlineGraceMs: 0 } });
    try {
      const [ann, bob] = await makePlayers(h, kit(), 2);
      const bobEvents = await openEvents(h, bob);
      const sent = await h.call('POST', `/friends/${bob.id}`, { session: ann.session });
      assert.deepEqual([sent.status, sent.body], [200, { state: 'sent' }]);
      assert.deepEqual(await rows(), [
        { account_id: ann.id, other_id: bob.id, state: 1 },
        { account_id: bob.id, other_id: ann.id, state: 2 },
      ]);
      const told = await bobEvents.next((e) => e.kind === 'friend');
      assert.deepEqual({ ...told, at: 0 }, { kind: 'friend', accountId: ann.id, state: 'received', at: 0 });
      const received = await h.call<{ items: { accountId: string; displayName: string }[] }>(
        'GET',
        '/friends?state=received',
        { session: bob.session },
      );
      assert.equal(received.status, 200);
      assert.deepEqual(
        received.body.items.map((f) => [f.accountId, f.displayName]),
        [[ann.id, `Name ${ann.id}`]],
      );
      const annEvents = await openEvents(h, ann);
      const accepted = await h.call('POST', `/friends/${ann.id}`, { session: bob.session });
      assert.deepEqual(accepted.body, { state: 'friends' });
      assert.deepEqual(await annEvents.next((e) => e.kind === 'friend' && e.state === 'friends'), {
        kind: 'friend',
        accountId: bob.id,
        state: 'friends',
        at: (annEvents.events.find((e) => e.kind === 'friend') as { at: number }).at,
      });
      assert.ok(await h.gamer.friends.areFriends(ann.id, bob.id));
      assert.deepEqual(
        (await h.gamer.friends.list(bob.id)).map((f) => f.accountId),
        [ann.id],
      );
      const list = await h.call<{ items: { accountId: string; presence: { state: string } }[] }>(
        'GET',
        '/friends',
        { session: bob.session },
      );
      assert.deepEqual(
        list.body.items.map((f) => [f.accountId, f.presence.state]),
        [[ann.id, 'online']],
      );
      // Asking again changes nothing.
      assert.deepEqual((await h.call('POST', `/friends/${bob.id}`, { session: ann.session })).body, {
        state: 'friends',
      });
      const removed = await h.call('DELETE', `/friends/${ann.id}`, { session: bob.session });
      assert.deepEqual([removed.status, removed.body], [200, { state: 'none' }]);
      assert.deepEqual(await rows(), []);
      await annEvents.next((e) => e.kind === 'friend' && e.state === 'none');
      assert.equal(await h.gamer.friends.areFriends(ann.id, bob.id), false);
      await Promise.all([annEvents.close(), bobEvents.close()]);
    } finally {
      await h.close();
    }
  });

  it('declining and cancelling take both rows away', async () => {
    const h = await openSocial(kit());
    try {
      const [ann, bob, cat] = await makePlayers(h, kit(), 3);
      await h.call('POST', `/friends/${bob.id}`, { session: ann.session });
      await h.call('POST', `/friends/${cat.id}`, { session: ann.session });
      assert.equal((await h.call('DELETE', `/friends/${ann.id}`, { session: bob.session })).status, 200);
      assert.equal((await h.call('DELETE', `/friends/${cat.id}`, { session: ann.session })).status, 200);
      assert.deepEqual(await rows(), []);
    } finally {
      await h.close();
    }
  });

  it('a blocked player is answered as any request, and nothing reaches the blocker', async () => {
    const h = await openSocial(kit());
    try {
      const [ann, bob] = await makePlayers(h, kit(), 2);
      await befriend(h, ann, bob);
      const annEvents = await openEvents(h, ann);
      assert.deepEqual((await h.call('POST', `/friends/${bob.id}/block`, { session: ann.session })).body, {
        state: 'blocked',
      });
      assert.deepEqual(await rows(), [{ account_id: ann.id, other_id: bob.id, state: 3 }]);
      assert.equal(await h.gamer.friends.areFriends(bob.id, ann.id), false);
      const again = await h.call('POST', `/friends/${ann.id}`, { session: bob.session });
      assert.deepEqual([again.status, again.body], [200, { state: 'sent' }]);
      const sentList = await h.call<{ items: unknown[] }>('GET', '/friends?state=sent', {
        session: bob.session,
      });
      assert.equal(sentList.body.items.length, 1, 'pending on their side, as any unanswered request');
      const annReceived = await h.call<{ items: unknown[] }>('GET', '/friends?state=received', {
        session: ann.session,
      });
      assert.deepEqual(annReceived.body.items, []);
      const blocked = await h.call<{ items: { accountId: string }[] }>('GET', '/friends?state=blocked', {
        session: ann.session,
      });
      assert.deepEqual(
        blocked.body.items.map((f) => f.accountId),
        [bob.id],
      );
      // The blocker cannot request until they unblock.
      assert.equal((await h.call('POST', `/friends/${bob.id}`, { session: ann.session })).status, 409);
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        annEvents.events.filter((e) => e.kind === 'friend'),
        [],
        'no request event reached the blocker',
      );
      assert.deepEqual((await h.call('DELETE', `/friends/${bob.id}/block`, { session: ann.session })).body, {
        state: 'none',
      });
      assert.deepEqual(await rows(), [], 'the request sent while blocked went with the block');
      await annEvents.close();
    } finally {
      await h.close();
    }
  });

  it('caps, the request rate and hostile requests are refused with reasons', async () => {
    const h = await openSocial(kit(), {
      social: { maxSentRequests: 2, maxFriends: 1, requestBurst: 6, requestsPerMinute: 1 },
    });
    try {
      const [ann, bob, cat, dan] = await makePlayers(h, kit(), 4);
      assert.equal((await h.call('POST', `/friends/${bob.id}`, { session: ann.session })).status, 200);
      assert.equal((await h.call('POST', `/friends/${cat.id}`, { session: ann.session })).status, 200);
      const third = await h.call('POST', `/friends/${dan.id}`, { session: ann.session });
      assert.equal(third.status, 409);
      assert.match(String(third.body.error), /too many requests pending.*\(2\)/);
      assert.equal(
        (await h.call('POST', `/friends/${ann.id}`, { session: bob.session })).body.state,
        'friends',
      );
      const full = await h.call('POST', `/friends/${ann.id}`, { session: cat.session });
      assert.equal(full.status, 409);
      assert.match(String(full.body.error), /most friends allowed \(1\)/);
      // ann has used 3 of 6, bob 1, cat 1: ann's next 3 pass the rate, then 429.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await h.call('POST', `/friends/${bob.id}`, { session: ann.session })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);

      const refusals: [string, string, string | undefined, number, RegExp][] = [
        ['POST', `/friends/${cat.id}`, cat.session, 400, /that is you/],
        ['POST', '/friends/nobody', cat.session, 404, /no such player/],
        ['POST', '/friends/..%2Fx', cat.session, 400, /accountId/],
        ['POST', `/friends/${'x'.repeat(65)}`, cat.session, 400, /accountId/],
        ['POST', `/friends/${ann.id}`, undefined, 401, /Bearer/],
        ['GET', '/friends?state=everyone', cat.session, 400, /state/],
        ['GET', '/friends?limit=1000', cat.session, 400, /limit/],
        ['GET', '/friends?owner=p0', cat.session, 400, /owner|Unrecognized/i],
      ];
      for (const [method, path, session, status, reason] of refusals) {
        const answer = await h.call(method, path, { session });
        assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
        assert.match(String(answer.body.error), reason, `${method} ${path}`);
      }
      // A session without an account (a game's own verify) is refused, not a 500.
      const stranger = await h.call<{ session: string }>('POST', '/auth', { body: { name: 'stranger' } });
      const noAccount = await h.call('POST', `/friends/${ann.id}`, { session: stranger.body.session });
      assert.equal(noAccount.status, 403);
      await assert.rejects(h.gamer.friends.list('bad id!'), /account id must be/);
    } finally {
      await h.close();
    }
  });

  it('a page at a time, in id order', async () => {
    const h = await openSocial(kit());
    try {
      const players = await makePlayers(h, kit(), 6);
      const [me, ...others] = players;
      for (const other of others) await befriend(h, me, other);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const path: string = `/friends?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`;
        const page = await h.call<{ items: { accountId: string }[]; cursor: string | null }>('GET', path, {
          session: me.session,
        });
        assert.ok(page.body.items.length <= 2);
        seen.push(...page.body.items.map((f) => f.accountId));
        cursor = page.body.cursor;
      } while (cursor !== null);
      assert.deepEqual(seen, others.map((p) => p.id).sort());
    } finally {
      await h.close();
    }
  });

  it('two players requesting each other at once end as friends, both rows', async () => {
    const h = await openSocial(kit());
    try {
      const players = await makePlayers(h, kit(), 8);
      const pairs = [0, 2, 4, 6].map((i) => [players[i], players[i + 1]] as const);
      await Promise.all(
        pairs.flatMap(([a, b]) => [
          h.call('POST', `/friends/${b.id}`, { session: a.session }),
          h.call('POST', `/friends/${a.id}`, { session: b.session }),
        ]),
      );
      const all = await rows();
      assert.equal(all.length, 8);
      assert.ok(
        all.every((r) => r.state === 0),
        JSON.stringify(all),
      );
    } finally {
      await h.close();
    }
  });

  if (store === 'postgres+redis')
    it('the database stopped mid-run: 503 with a reason, never half a relation, then works', async () => {
      const postgres = kit().postgres as NonNullable<ReturnType<typeof kit>['postgres']>;
      const h = await openSocial(kit());
      try {
        const players = await makePlayers(h, kit(), 20);
        const calls = players.flatMap((a, i) =>
          players.slice(i + 1, i + 4).map((b) => h.call('POST', `/friends/${b.id}`, { session: a.session })),
        );
        const stopping = postgres.stop();
        const answers = await Promise.all(calls);
        await stopping;
        const down = await h.call('POST', `/friends/${players[0].id}`, { session: players[19].session });
        assert.equal(down.status, 503);
        assert.match(String(down.body.error), /database unavailable/);
        for (const a of answers) assert.ok(a.status === 200 || a.status === 503, JSON.stringify(a));
        await postgres.startAgain();
        const all = await rows();
        const key = (r: Row) => `${r.account_id}>${r.other_id}`;
        const byKey = new Map(all.map((r) => [key(r), r.state]));
        for (const r of all) {
          const other = byKey.get(`${r.other_id}>${r.account_id}`);
          assert.ok(
            (r.state === 1 && other === 2) || (r.state === 2 && other === 1),
            `half relation ${key(r)}`,
          );
        }
        const after = await h.call('POST', `/friends/${players[0].id}`, { session: players[19].session });
        assert.equal(after.status, 200, JSON.stringify(after.body));
      } finally {
        await h.close();
      }
    });
});
