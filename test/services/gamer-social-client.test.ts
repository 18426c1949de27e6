/**
 * The typed client over a real socket: GamerClient's friends, presence and events (fetch
 * streaming with the session header), its reconnection with backoff after a refusal, and giving
 * up on a refused session. On the embedded store: the routes' behaviour on both is tested apart.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';
import { newDeviceId } from '../../src/join/gamer/device-id.js';
import type { GamerEvent } from '../../src/join/gamer/social-types.js';
import { GamerClient } from '../../src/join/gamer-client.js';
import { type ServedBackend, serveBackend } from '../../src/services/backend.js';
import { describeOnGamerStores, type GamerHarness } from '../support/gamer-kit.js';
import { openSocial } from '../support/gamer-social.js';

function collector() {
  const events: GamerEvent[] = [];
  const waiters = new Set<() => void>();
  return {
    events,
    listener: (event: GamerEvent) => {
      events.push(event);
      for (const w of [...waiters]) w();
    },
    next(test: (e: GamerEvent) => boolean, timeoutMs = 3000): Promise<GamerEvent> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(test);
          if (found === undefined) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no such event; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
  };
}

describeOnGamerStores('gamer social client', (kit) => {
  let harness: GamerHarness;
  let served: ServedBackend;
  before(async () => {
    harness = await openSocial(kit(), {
      social: { offlineGraceMs: 0, presenceIntervalMs: 0, maxStreamsPerPlayer: 1 },
    });
    served = await serveBackend(harness.backend);
    await sql`insert into accounts (id, display_name, created_at, updated_at) values ('ann', 'Ann', 0, 0), ('bob', 'Bob', 0, 0)`.execute(
      kit().database.db,
    );
  });
  after(async () => {
    await served.close();
    await harness.close();
  });

  async function client(name: string): Promise<GamerClient> {
    const backend = new BackendClient({ url: served.url });
    await backend.auth({ name });
    return new GamerClient(backend);
  }

  it('friends, presence and events from the client', async () => {
    const [ann, bob] = await Promise.all([client('ann'), client('bob')]);
    const bobHears = collector();
    const stopBob = bob.events.subscribe(bobHears.listener);
    await new Promise((r) => setTimeout(r, 100)); // the stream is open
    assert.equal(await ann.friends.request('bob'), 'sent');
    await bobHears.next((e) => e.kind === 'friend' && e.accountId === 'ann' && e.state === 'received');
    assert.deepEqual(
      (await bob.friends.list('received')).items.map((f) => [f.accountId, f.displayName]),
      [['ann', 'Ann']],
    );
    assert.equal(await bob.friends.request('ann'), 'friends');
    const annHears = collector();
    let opened = 0;
    const stopAnn = ann.events.subscribe(annHears.listener, { onOpen: () => opened++ });
    await bobHears.next((e) => e.kind === 'presence' && e.accountId === 'ann' && e.state === 'online');
    assert.equal(opened, 1);
    const away = await ann.presence.set('away');
    assert.equal(away.state, 'away');
    await bobHears.next((e) => e.kind === 'presence' && e.state === 'away');
    const list = await bob.friends.list();
    assert.deepEqual(
      list.items.map((f) => [f.accountId, f.presence?.state]),
      [['ann', 'away']],
    );
    stopAnn();
    await bobHears.next((e) => e.kind === 'presence' && e.state === 'offline');
    await assert.rejects(ann.presence.set('in-match' as never), /online' or 'away/);
    await assert.rejects(
      ann.backend.request('POST', '/presence', { state: 'in-match', roomId: 'r' }),
      (e: unknown) => e instanceof BackendError && e.status === 400,
    );
    assert.equal(await ann.friends.remove('bob'), 'none');
    stopBob();
  });

  it('reconnects with backoff after a refusal, and gives up on a refused session', async () => {
    const ann = await client('ann');
    const first = ann.events.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 100));
    const errors: (number | null)[] = [];
    let opened = 0;
    const second = ann.events.subscribe(() => {}, {
      backoffMs: 50,
      maxBackoffMs: 100,
      onOpen: () => opened++,
      onError: (error, retryInMs) => {
        assert.ok(error instanceof BackendError && error.status === 429, String(error));
        errors.push(retryInMs);
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(errors.length >= 2, `retried: ${JSON.stringify(errors)}`);
    assert.ok(errors.every((ms) => ms !== null && ms <= 1000));
    assert.equal(opened, 0);
    first();
    for (let i = 0; i < 40 && opened === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(opened, 1, 'opened once the first stream closed');
    second();

    const forged = new GamerClient(new BackendClient({ url: served.url, session: 'forged' }));
    const gaveUp = await new Promise<number | null>((resolve) =>
      forged.events.subscribe(() => {}, { onError: (_e, retryInMs) => resolve(retryInMs) }),
    );
    assert.equal(gaveUp, null);
  });
});

describeOnGamerStores('gamer social client, signed in through the accounts', (kit) => {
  it('players signed in by device befriend by account id, see names and presence, and a ban shuts them out', async () => {
    const harness = await kit().open({
      social: { offlineGraceMs: 0, presenceIntervalMs: 0, presenceTtlMs: 3000 },
    });
    const served = await serveBackend(harness.backend);
    try {
      const player = async (name: string) => {
        const gamer = new GamerClient(new BackendClient({ url: served.url }));
        const { accountId } = await gamer.accounts.signIn({ device: newDeviceId() });
        await gamer.accounts.rename(name);
        return { gamer, accountId };
      };
      const ann = await player('Ann');
      const bob = await player('Bob');
      assert.equal(await ann.gamer.friends.request(bob.accountId), 'sent');
      assert.equal(await bob.gamer.friends.request(ann.accountId), 'friends');
      const bobHears = collector();
      const stopBob = bob.gamer.events.subscribe(bobHears.listener);
      let annOpened = 0;
      const annErrors: (number | null)[] = [];
      const stopAnn = ann.gamer.events.subscribe(() => {}, {
        onOpen: () => annOpened++,
        onError: (_e, retryInMs) => annErrors.push(retryInMs),
      });
      await bobHears.next(
        (e) => e.kind === 'presence' && e.accountId === ann.accountId && e.state === 'online',
      );
      const list = await bob.gamer.friends.list();
      assert.deepEqual(
        list.items.map((f) => [f.accountId, f.displayName, f.presence?.state]),
        [[ann.accountId, 'Ann', 'online']],
      );
      await harness.gamer.accounts.ban(ann.accountId, { reason: 'cheating' });
      await assert.rejects(
        ann.gamer.friends.list(),
        (e: unknown) => e instanceof BackendError && e.status === 403,
      );
      // The open stream ends within a renewal (1 s here), friends see ann offline, and the client
      // gives up on the refused session.
      await bobHears.next(
        (e) => e.kind === 'presence' && e.accountId === ann.accountId && e.state === 'offline',
      );
      for (let i = 0; i < 60 && !annErrors.includes(null); i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual([annOpened, annErrors.at(-1)], [1, null]);
      stopAnn();
      stopBob();
    } finally {
      await served.close();
      await harness.close();
    }
  });
});
