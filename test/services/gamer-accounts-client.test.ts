/** GamerClient's accounts and storage against a real backend (its routes, without a socket), on both stores. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';
import { newDeviceId, storedDeviceId } from '../../src/join/gamer/device-id.js';
import { GamerClient } from '../../src/join/gamer-client.js';
import { describeOnGamerStores, type GamerHarness } from '../support/gamer-kit.js';

function client(harness: GamerHarness): GamerClient {
  const backend = new BackendClient({
    url: 'http://backend.test',
    fetch: (url, init) =>
      Promise.resolve(harness.backend.app.request(url.replace('http://backend.test', ''), init)),
  });
  return new GamerClient(backend);
}

function memoryStore() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  };
}

it('makes random device ids the backend accepts, and keeps one per store', () => {
  const ids = new Set(Array.from({ length: 200 }, () => newDeviceId()));
  assert.equal(ids.size, 200);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{22}$/);
  const store = memoryStore();
  const first = storedDeviceId(store);
  assert.equal(storedDeviceId(store), first);
  store.items.set('ghostwire.deviceId', 'tampered value!');
  const replaced = storedDeviceId(store);
  assert.notEqual(replaced, first);
  assert.match(replaced, /^[A-Za-z0-9_-]{22}$/);
  assert.throws(() => storedDeviceId(undefined), /no localStorage here/);
});

describeOnGamerStores('gamer accounts client', (kit) => {
  it('signs in with a device, renames, links and reads its account', async () => {
    const identities = { steam: async (token: string) => (token === 'good' ? { externalId: '42' } : null) };
    const harness = await kit().open({ identities });
    try {
      const gamer = client(harness);
      const device = storedDeviceId(memoryStore());
      const signed = await gamer.accounts.signIn({ device });
      assert.equal(gamer.backend.session, signed.session);
      const renamed = await gamer.accounts.rename('Ann');
      assert.equal(renamed.displayName, 'Ann');
      assert.equal(renamed.id, signed.accountId);
      const linked = await gamer.accounts.link({ provider: 'steam', token: 'good' });
      assert.equal(linked.registered, true);
      const me = await gamer.accounts.get();
      assert.deepEqual(
        me.identities.map((i) => i.provider),
        ['steam'],
      );
      const other = client(harness);
      await other.accounts.signIn({ device: newDeviceId() });
      await assert.rejects(other.accounts.rename('ANN'), (error: unknown) => {
        assert.ok(error instanceof BackendError);
        assert.equal(error.status, 409);
        return true;
      });
      await assert.rejects(gamer.accounts.unlink({ device: newDeviceId() }), /404/);
      await harness.gamer.accounts.ban(signed.accountId, { reason: 'spam', untilMs: Date.now() + 60_000 });
      await assert.rejects(gamer.accounts.get(), (error: unknown) => {
        assert.ok(error instanceof BackendError);
        assert.equal(error.status, 403);
        assert.equal(typeof error.details.until, 'number');
        return true;
      });
    } finally {
      await harness.close();
    }
  });

  it('gets, puts with versions, lists and deletes documents', async () => {
    const harness = await kit().open();
    try {
      const gamer = client(harness);
      await gamer.accounts.signIn({ device: newDeviceId() });
      assert.equal(await gamer.storage.get('saves', 'slot-1'), null);
      assert.deepEqual(await gamer.storage.put('saves', 'slot-1', { level: 1 }, { version: 0 }), {
        ok: true,
        version: 1,
      });
      assert.deepEqual(await gamer.storage.put('saves', 'slot-1', { level: 2 }, { version: 0 }), {
        ok: false,
        currentVersion: 1,
      });
      const save = await gamer.storage.get('saves', 'slot-1');
      assert.deepEqual(save?.value, { level: 1 });
      await gamer.storage.put('saves', 'slot-2', 'b', { read: 'public' });
      const page = await gamer.storage.list('saves', { limit: 1 });
      assert.deepEqual(
        page.documents.map((d) => d.key),
        ['slot-1'],
      );
      const rest = await gamer.storage.list('saves', { cursor: page.cursor ?? undefined });
      assert.deepEqual(
        rest.documents.map((d) => d.key),
        ['slot-2'],
      );
      const me = await gamer.accounts.get();
      const other = client(harness);
      await other.accounts.signIn({ device: newDeviceId() });
      assert.equal((await other.storage.get('saves', 'slot-2', { owner: me.id }))?.value, 'b');
      assert.equal(await other.storage.get('saves', 'slot-1', { owner: me.id }), null);
      assert.deepEqual(await gamer.storage.delete('saves', 'slot-1', { version: 7 }), {
        ok: false,
        currentVersion: 1,
      });
      assert.deepEqual(await gamer.storage.delete('saves', 'slot-1', { version: 1 }), {
        ok: true,
        version: 1,
      });
      await assert.rejects(gamer.storage.put('bad/name', 'k', 1), /400/);
    } finally {
      await harness.close();
    }
  });
});
