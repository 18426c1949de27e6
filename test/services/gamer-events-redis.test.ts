/**
 * Events and presence across backends on Redis: two backends on one PostgreSQL and one Redis, a
 * player streaming on each; and a Redis restart mid-run (streams end cleanly, their clients
 * reconnect, presence is re-established). On the postgres+redis store only: the embedded one has
 * one backend and no Redis.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { openGamerServicesOn } from '../../src/services/gamer/gamer-services.js';
import type { GamerEvent } from '../../src/services/gamer/player-events.js';
import { PRIVATE_KEY, PROTOCOL_ID } from '../support/backend-fixture.js';
import { describeOnGamerStores, type GamerHarness } from '../support/gamer-kit.js';
import { befriend, makePlayers, openEvents, openSocial, signInAsName } from '../support/gamer-social.js';

const presenceOf =
  (accountId: string, state?: string) =>
  (e: GamerEvent): boolean =>
    e.kind === 'presence' && e.accountId === accountId && (state === undefined || e.state === state);

describeOnGamerStores('events across backends', (kit, store) => {
  if (store !== 'postgres+redis') return; // one backend, no Redis: nothing to test
  it('a player on one backend hears a friend on another', async () => {
    const redis = kit().redis as NonNullable<ReturnType<typeof kit>['redis']>;
    const social = { offlineGraceMs: 0, presenceIntervalMs: 0 };
    const sessionSecret = new Uint8Array(32).fill(7); // both backends accept each other's sessions
    const a = await openSocial(kit(), { social }, { sessionSecret });
    const shared = { kind: kit().database.kind, db: kit().database.db, close: async () => {} };
    const gamerB = await openGamerServicesOn(shared, { redis: { url: redis.url }, social });
    const backendB = createBackend({
      directory: new EmbeddedDirectory(),
      privateKey: PRIVATE_KEY,
      protocolId: PROTOCOL_ID,
      rateLimit: false,
      sweepIntervalMs: 0,
      gamer: gamerB,
      ...signInAsName,
      sessionSecret,
    });
    const b: GamerHarness = { ...a, gamer: gamerB, backend: backendB };
    try {
      const [ann, bob] = await makePlayers(a, kit(), 2);
      await befriend(a, ann, bob);
      const bobOnB = await openEvents(b, bob);
      const annOnA = await openEvents(a, ann);
      await bobOnB.next(presenceOf(ann.id, 'online'));
      await a.call('POST', '/presence', { session: ann.session, body: { state: 'away' } });
      await bobOnB.next(presenceOf(ann.id, 'away'));
      await gamerB.presence.set(ann.id, { state: 'in-match', roomId: 'r1' });
      await bobOnB.next(presenceOf(ann.id, 'in-match'));
      // ann holds a stream on B too: closing the one on A keeps them online.
      const annOnB = await openEvents(b, ann);
      await gamerB.presence.clear(ann.id);
      await annOnA.close();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await a.gamer.presence.get(ann.id)).state, 'away');
      await annOnB.close();
      await bobOnB.next(presenceOf(ann.id, 'offline'));
      const seqs = bobOnB.events.filter(presenceOf(ann.id)).map((e) => (e as { seq: number }).seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
      );
      await bobOnB.close();
    } finally {
      await backendB.close();
      await gamerB.close();
      await a.close();
    }
  });

  it('Redis restarted mid-run: streams end, clients reconnect, presence comes back', async () => {
    const redis = kit().redis as NonNullable<ReturnType<typeof kit>['redis']>;
    const h = await openSocial(kit(), { social: { presenceIntervalMs: 0 } });
    try {
      const [ann, bob, cat] = await makePlayers(h, kit(), 3);
      await befriend(h, ann, bob);
      const bobEvents = await openEvents(h, bob);
      const annEvents = await openEvents(h, ann);
      const catEvents = await openEvents(h, cat); // does not come back
      await bobEvents.next(presenceOf(ann.id, 'online'));
      await redis.restart();
      await Promise.all([bobEvents.end(), annEvents.end(), catEvents.end()]);
      const reopen = async (player: typeof ann) => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const reader = await openEvents(h, player);
          if (reader.status === 200) return reader;
          assert.equal(reader.status, 503, JSON.stringify(reader.body));
          assert.match(String((reader.body as { error: string }).error), /redis unavailable/);
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('no stream after the restart');
      };
      const bobAgain = await reopen(bob);
      const annAgain = await reopen(ann);
      await bobAgain.next(presenceOf(ann.id, 'online'));
      const list = await h.call<{ items: { presence: { state: string } }[] }>('GET', '/friends', {
        session: bob.session,
      });
      assert.equal(list.body.items[0].presence.state, 'online');
      await h.call('POST', '/presence', { session: ann.session, body: { state: 'away' } });
      await bobAgain.next(presenceOf(ann.id, 'away'));
      await Promise.all([bobAgain.close(), annAgain.close()]);
      // No subscription is left behind: not bob's nor ann's, nor cat's (subscribed again by the
      // reconnection though its stream had ended).
      const { Redis } = await import('ioredis');
      const probe = new Redis(redis.url, { maxRetriesPerRequest: 0 });
      try {
        let channels: string[] = [];
        for (let i = 0; i < 40; i++) {
          channels = (await probe.pubsub('CHANNELS', '*events:*')) as string[];
          if (channels.length === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.deepEqual(channels, []);
      } finally {
        probe.disconnect();
      }
    } finally {
      await h.close();
    }
  });
});
