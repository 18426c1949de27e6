/**
 * Presence and the event stream on both stores: a stream makes its player online to friends,
 * their own choice (online / away) and a server's in-match show, its close makes them offline; a
 * burst of changes reaches a friend in order; presence cannot be set for another or to in-match
 * by a player; streams are bounded (per player, a slow reader cut).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { GamerEvent } from '../../src/services/gamer/player-events.js';
import { describeOnGamerStores } from '../support/gamer-kit.js';
import { befriend, makePlayers, openEvents, openSocial } from '../support/gamer-social.js';

type PresenceEvent = Extract<GamerEvent, { kind: 'presence' }>;
const presenceOf =
  (accountId: string, state?: string) =>
  (e: GamerEvent): boolean =>
    e.kind === 'presence' && e.accountId === accountId && (state === undefined || e.state === state);

describeOnGamerStores('presence and events', (kit) => {
  it('a stream makes a player online to friends; away, in-match and offline follow', async () => {
    const h = await openSocial(kit(), { social: { offlineGraceMs: 0, presenceIntervalMs: 0 } });
    try {
      const [ann, bob, cat] = await makePlayers(h, kit(), 3);
      await befriend(h, ann, bob);
      const bobEvents = await openEvents(h, bob);
      const catEvents = await openEvents(h, cat);
      const annEvents = await openEvents(h, ann);
      const online = (await bobEvents.next(presenceOf(ann.id, 'online'))) as PresenceEvent;
      assert.equal(online.roomId, null);
      const away = await h.call('POST', '/presence', { session: ann.session, body: { state: 'away' } });
      assert.equal(away.status, 200);
      assert.equal((away.body.presence as { state: string }).state, 'away');
      await bobEvents.next(presenceOf(ann.id, 'away'));
      await h.gamer.presence.set(ann.id, { state: 'in-match', roomId: 'room-1' });
      const inMatch = (await bobEvents.next(presenceOf(ann.id, 'in-match'))) as PresenceEvent;
      assert.equal(inMatch.roomId, 'room-1');
      assert.deepEqual(
        { ...(await h.gamer.presence.get(ann.id)), seq: 0, at: 0 },
        { state: 'in-match', roomId: 'room-1', seq: 0, at: 0 },
      );
      await h.gamer.presence.clear(ann.id);
      const back = (await bobEvents.next(
        (e) => presenceOf(ann.id, 'away')(e) && (e as PresenceEvent).seq > inMatch.seq,
      )) as PresenceEvent;
      assert.ok(back.seq > inMatch.seq);
      await annEvents.close();
      await bobEvents.next(presenceOf(ann.id, 'offline'));
      assert.deepEqual(
        catEvents.events.filter((e) => e.kind === 'presence'),
        [],
        'not a friend: told nothing',
      );
      // Friends see each other's presence in the list; others see no presence field at all.
      const list = await h.call<{ items: { presence?: { state: string } }[] }>('GET', '/friends', {
        session: ann.session,
      });
      assert.equal(list.body.items[0].presence?.state, 'online');
      await Promise.all([bobEvents.close(), catEvents.close()]);
    } finally {
      await h.close();
    }
  });

  it('a burst of changes arrives at a friend in order, ending on the last', async () => {
    const h = await openSocial(kit(), { social: { presenceIntervalMs: 200, presenceBurst: 100 } });
    try {
      const [ann, bob] = await makePlayers(h, kit(), 2);
      await befriend(h, ann, bob);
      const bobEvents = await openEvents(h, bob);
      const annEvents = await openEvents(h, ann);
      await bobEvents.next(presenceOf(ann.id, 'online'));
      const states: ('online' | 'away')[] = [];
      for (let i = 0; i < 40; i++) {
        const state = i % 2 === 0 ? 'away' : 'online';
        states.push(state);
        const answer = await h.call('POST', '/presence', { session: ann.session, body: { state } });
        assert.equal(answer.status, 200);
        if (i % 8 === 0) await h.gamer.presence.set(ann.id, { state: 'in-match', roomId: `r${i}` });
        if (i % 8 === 4) await h.gamer.presence.clear(ann.id);
      }
      await h.gamer.presence.clear(ann.id);
      const last = states[states.length - 1];
      const final = await h.gamer.presence.get(ann.id);
      assert.equal(final.state, last);
      await bobEvents.next((e) => presenceOf(ann.id)(e) && (e as PresenceEvent).seq === final.seq, 5000);
      const seen = bobEvents.events.filter(presenceOf(ann.id)) as PresenceEvent[];
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i].seq > seen[i - 1].seq, 'in order');
      assert.ok(seen.length < 40, `coalesced: ${seen.length} pushes for 50 changes`);
      assert.equal(seen[seen.length - 1].state, last);
      await Promise.all([annEvents.close(), bobEvents.close()]);
    } finally {
      await h.close();
    }
  });

  it('a player sets only its own presence, never in-match', async () => {
    const h = await openSocial(kit());
    try {
      const [ann, bob] = await makePlayers(h, kit(), 2);
      const cases: [unknown, RegExp][] = [
        [{ state: 'in-match' }, /state/],
        [{ state: 'in-match', roomId: 'r' }, /state|roomId/],
        [{ state: 'online', accountId: bob.id }, /accountId|Unrecognized/i],
        [{ state: 'offline' }, /state/],
        [{}, /state/],
        [[1, 2], /body|expected object/i],
      ];
      for (const [body, reason] of cases) {
        const answer = await h.call('POST', '/presence', { session: ann.session, body });
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.match(String(answer.body.error), reason);
      }
      assert.equal((await h.call('POST', '/presence', { body: { state: 'away' } })).status, 401);
      assert.equal((await h.gamer.presence.get(bob.id)).state, 'offline');
      await assert.rejects(h.gamer.presence.set(ann.id, { state: 'in-match' } as never), /roomId/);
      await assert.rejects(h.gamer.presence.set(ann.id, { state: 'offline' } as never), /state must be/);
      await assert.rejects(h.gamer.presence.get('no spaces allowed'), /account id/);
    } finally {
      await h.close();
    }
  });

  it('streams are bounded: per player, and a reader that stalls is cut', async () => {
    const h = await openSocial(kit(), {
      social: { maxStreamsPerPlayer: 2, maxStreams: 3, maxQueuedEvents: 8, presenceIntervalMs: 0 },
    });
    try {
      const [ann, bob] = await makePlayers(h, kit(), 2);
      await befriend(h, ann, bob);
      const one = await openEvents(h, bob);
      const stalled = await openEvents(h, bob, { read: false });
      assert.equal(stalled.status, 200);
      const third = await openEvents(h, bob);
      assert.equal(third.status, 429);
      assert.match(String((third.body as { error: string }).error), /at most 2 event streams/);
      const annEvents = await openEvents(h, ann);
      const full = await openEvents(h, ann); // a fourth stream on this backend, over maxStreams
      assert.equal(full.status, 503);
      assert.match(String((full.body as { error: string }).error), /most event streams/);
      for (let i = 0; i < 12; i++) {
        await h.call('POST', '/presence', {
          session: ann.session,
          body: { state: i % 2 ? 'online' : 'away' },
        });
        await one.next((e) => presenceOf(ann.id)(e) && one.events.filter(presenceOf(ann.id)).length >= i + 2);
      }
      // The stalled stream was cut; its slot is free again.
      const again = await openEvents(h, bob);
      assert.equal(again.status, 200);
      assert.equal(one.ended, false, 'the reading stream goes on');
      await Promise.all([one.close(), again.close(), annEvents.close(), stalled.close()]);
    } finally {
      await h.close();
    }
  });
});

describeOnGamerStores('event stream upkeep', (kit) => {
  it('an idle stream gets heartbeat comments, and ends when its session expires', async () => {
    const h = await openSocial(kit(), { social: { heartbeatMs: 40 } }, { sessionSeconds: 0.6 });
    try {
      const [ann] = await makePlayers(h, kit(), 1);
      const response = await h.backend.app.request('/events', {
        headers: { Authorization: `Bearer ${ann.session}` },
      });
      assert.equal(response.status, 200);
      assert.match(String(response.headers.get('Content-Type')), /^text\/event-stream/);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      const started = Date.now();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const lasted = Date.now() - started;
      assert.ok(text.split(': heartbeat\n\n').length - 1 >= 3, text);
      assert.ok(lasted >= 300 && lasted < 3000, `ended after ${lasted} ms`);
      // The expired session cannot open another.
      const again = await h.backend.app.request('/events', {
        headers: { Authorization: `Bearer ${ann.session}` },
      });
      assert.equal(again.status, 401);
    } finally {
      await h.close();
    }
  });
});
