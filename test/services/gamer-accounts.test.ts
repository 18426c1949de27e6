/** Accounts on both stores: sign-in by device and identity, names, links, bans, hostile bodies. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnGamerStores, type GamerHarness } from '../support/gamer-kit.js';

const DEVICE_A = 'deviceAAAAAAAAAAAAAAAA';
const DEVICE_B = 'deviceBBBBBBBBBBBBBBBB';
const DEVICE_C = 'deviceCCCCCCCCCCCCCCCC';

/** Steam stand-in: a token "ok:<id>" is that player; anything else is refused. */
const identities = {
  steam: async (token: string) => (token.startsWith('ok:') ? { externalId: token.slice(3) } : null),
  down: async (): Promise<{ externalId: string } | null> => {
    throw new Error('steam is down');
  },
};

async function signIn(harness: GamerHarness, body: unknown) {
  const answer = await harness.call<{ session: string; userId: string; error?: string }>('POST', '/auth', {
    body,
  });
  return answer;
}

describeOnGamerStores('gamer accounts', (kit) => {
  it('signs a device in as a guest, the same account each time', async () => {
    const harness = await kit().open({ identities });
    try {
      const first = await signIn(harness, { device: DEVICE_A });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const again = await signIn(harness, { device: DEVICE_A });
      assert.equal(again.body.userId, first.body.userId);
      const other = await signIn(harness, { device: DEVICE_B });
      assert.notEqual(other.body.userId, first.body.userId);
      const me = await harness.call('GET', '/account', { session: first.body.session });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, first.body.userId);
      assert.equal(me.body.registered, false);
      assert.equal(me.body.displayName, null);
      assert.deepEqual(
        (me.body.devices as { hint: string }[]).map((d) => d.hint),
        ['devi…'],
        'a device id is shown by its first characters only',
      );
      assert.ok(!JSON.stringify(me.body).includes(DEVICE_A), 'the whole device id is never answered');
      // The same new device signing in twice at once makes one account.
      const [x, y] = await Promise.all([
        signIn(harness, { device: DEVICE_C }),
        signIn(harness, { device: DEVICE_C }),
      ]);
      assert.equal(x.status, 200);
      assert.equal(x.body.userId, y.body.userId);
    } finally {
      await harness.close();
    }
  });

  it('signs an outside identity in as a registered account; a refused token is 401', async () => {
    const harness = await kit().open({ identities });
    try {
      const steam = await signIn(harness, { provider: 'steam', token: 'ok:765' });
      assert.equal(steam.status, 200);
      const me = await harness.call('GET', '/account', { session: steam.body.session });
      assert.equal(me.body.registered, true);
      assert.deepEqual(
        (me.body.identities as { provider: string }[]).map((i) => i.provider),
        ['steam'],
      );
      assert.equal(
        (await signIn(harness, { provider: 'steam', token: 'ok:765' })).body.userId,
        steam.body.userId,
      );
      const refused = await signIn(harness, { provider: 'steam', token: 'forged' });
      assert.equal(refused.status, 401);
      assert.match(String(refused.body.error), /steam refused the token/);
      const down = await signIn(harness, { provider: 'down', token: 'ok:1' });
      assert.equal(down.status, 503);
      assert.match(String(down.body.error), /down could not check the token: steam is down/);
      const unknown = await signIn(harness, { provider: 'epic', token: 'ok:1' });
      assert.equal(unknown.status, 400);
      assert.match(String(unknown.body.error), /no identity provider "epic"/);
    } finally {
      await harness.close();
    }
  });

  it('upgrades a guest by linking an identity; refuses links owned by another account', async () => {
    const harness = await kit().open({ identities });
    try {
      const guest = (await signIn(harness, { device: DEVICE_A })).body;
      const other = (await signIn(harness, { provider: 'steam', token: 'ok:other' })).body;
      const linked = await harness.call('POST', '/account/link', {
        session: guest.session,
        body: { provider: 'steam', token: 'ok:mine' },
      });
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      assert.equal(linked.body.registered, true);
      assert.equal(
        (await signIn(harness, { provider: 'steam', token: 'ok:mine' })).body.userId,
        guest.userId,
      );
      const taken = await harness.call('POST', '/account/link', {
        session: guest.session,
        body: { provider: 'steam', token: 'ok:other' },
      });
      assert.equal(taken.status, 409);
      const stolenDevice = await harness.call('POST', '/account/link', {
        session: other.session,
        body: { device: DEVICE_A },
      });
      assert.equal(stolenDevice.status, 409);
      assert.match(String(stolenDevice.body.error), /linked to another account/);
      // A second device, then unlink: never the last way in.
      const second = await harness.call('POST', '/account/link', {
        session: other.session,
        body: { device: DEVICE_B },
      });
      assert.equal(second.status, 200);
      assert.equal((await signIn(harness, { device: DEVICE_B })).body.userId, other.userId);
      const off = await harness.call('POST', '/account/unlink', {
        session: other.session,
        body: { provider: 'steam' },
      });
      assert.equal(off.status, 200);
      assert.equal(off.body.registered, false, 'no outside identity left: a guest again');
      const last = await harness.call('POST', '/account/unlink', {
        session: other.session,
        body: { device: DEVICE_B },
      });
      assert.equal(last.status, 409);
      assert.match(String(last.body.error), /last way to sign in/);
      const notMine = await harness.call('POST', '/account/unlink', {
        session: other.session,
        body: { device: DEVICE_A },
      });
      assert.equal(notMine.status, 404);
    } finally {
      await harness.close();
    }
  });

  it('keeps display names unique by their folded form and valid', async () => {
    const harness = await kit().open({ identities });
    try {
      const a = (await signIn(harness, { device: DEVICE_A })).body;
      const b = (await signIn(harness, { device: DEVICE_B })).body;
      const named = await harness.call('PATCH', '/account', {
        session: a.session,
        body: { displayName: 'Ann Lee' },
      });
      assert.equal(named.status, 200);
      assert.equal(named.body.displayName, 'Ann Lee');
      for (const clash of ['ann lee', 'ANN LEE', 'Ａｎｎ Ｌｅｅ']) {
        const answer = await harness.call('PATCH', '/account', {
          session: b.session,
          body: { displayName: clash },
        });
        assert.equal(answer.status, 409, clash);
        assert.match(String(answer.body.error), /taken/);
      }
      for (const bad of [
        'ab',
        'x'.repeat(25),
        ' Ann',
        'Ann ',
        'An\u200bn',
        'An\u0007n',
        'a  b',
        'Ann!',
        '<b>x</b>',
        42,
      ]) {
        const answer = await harness.call('PATCH', '/account', {
          session: b.session,
          body: { displayName: bad },
        });
        assert.equal(answer.status, 400, String(bad));
        assert.match(String(answer.body.error), /displayName/);
      }
      const accepted = await harness.call('PATCH', '/account', {
        session: b.session,
        body: { displayName: 'Zoë_the-2.0' },
      });
      assert.equal(accepted.status, 200);
      assert.equal((await harness.gamer.accounts.findByDisplayName('ANN lee'))?.id, a.userId);
      assert.equal(await harness.gamer.accounts.findByDisplayName('nobody'), null);
      assert.equal(
        (await harness.call('PATCH', '/account', { session: a.session, body: { displayName: 'Straße' } }))
          .status,
        200,
      );
      const folded = await harness.call('PATCH', '/account', {
        session: b.session,
        body: { displayName: 'STRASSE' },
      });
      assert.equal(folded.status, 409, 'ß folds as ss');
      // Renaming frees the old name.
      await harness.call('PATCH', '/account', { session: a.session, body: { displayName: 'Ann2' } });
      const freed = await harness.call('PATCH', '/account', {
        session: b.session,
        body: { displayName: 'ann lee' },
      });
      assert.equal(freed.status, 200);
    } finally {
      await harness.close();
    }
  });

  it('refuses a banned account at /auth and on every route, until unbanned or lapsed', async () => {
    let now = 1_000_000;
    const harness = await kit().open({ identities, nowMs: () => now }, { nowMs: () => now });
    try {
      const a = (await signIn(harness, { device: DEVICE_A })).body;
      await harness.gamer.accounts.ban(a.userId, { reason: 'cheating', untilMs: now + 60_000 });
      const auth = await signIn(harness, { device: DEVICE_A });
      assert.equal(auth.status, 403);
      assert.match(String(auth.body.error), /banned: cheating/);
      assert.equal((auth.body as unknown as { until: number }).until, now + 60_000);
      const route = await harness.call('GET', '/account', { session: a.session });
      assert.equal(route.status, 403);
      const storage = await harness.call('PUT', '/storage/c/k', { session: a.session, body: { value: 1 } });
      assert.equal(storage.status, 403, 'every gamer route checks the ban');
      assert.equal(route.body.until, now + 60_000);
      // A session already held cannot take a seat, a ticket or a spectator's place either.
      for (const [path, body] of [
        ['/rooms/join-or-create', { name: 'arena', transport: 'udp' }],
        ['/rooms/some-room/join', { transport: 'udp' }],
        ['/spectate', { roomId: 'some-room', transport: 'udp' }],
      ] as const) {
        const seat = await harness.call('POST', path, { session: a.session, body });
        assert.equal(seat.status, 403, `${path}: ${JSON.stringify(seat.body)}`);
        assert.match(String(seat.body.error), /banned: cheating/);
      }
      assert.deepEqual((await harness.gamer.accounts.get(a.userId))?.ban, {
        untilMs: now + 60_000,
        reason: 'cheating',
      });
      now += 60_001;
      assert.equal((await harness.call('GET', '/account', { session: a.session })).status, 200);
      await harness.gamer.accounts.ban(a.userId, { reason: 'for good' });
      const forever = await harness.call('GET', '/account', { session: a.session });
      assert.equal(forever.status, 403);
      assert.equal(forever.body.until, null);
      await harness.gamer.accounts.unban(a.userId);
      assert.equal((await signIn(harness, { device: DEVICE_A })).status, 200);
      await assert.rejects(harness.gamer.accounts.ban('nobody', { reason: 'x' }), /no account nobody/);
      await assert.rejects(harness.gamer.accounts.ban(a.userId, { reason: '' }), /reason must be/);
    } finally {
      await harness.close();
    }
  });

  it('refuses hostile and malformed bodies with a reason', async () => {
    const harness = await kit().open({ identities });
    try {
      for (const body of [
        {},
        { device: 'short' },
        { device: 'x'.repeat(129) },
        { device: 'has spaces in it ......' },
        { device: DEVICE_A, accountId: 'someone' },
        { provider: 'Steam!', token: 'ok:1' },
        { provider: 'steam', token: '' },
        { device: 1234567890123456 },
        { name: 'guest' },
      ]) {
        const answer = await signIn(harness, body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(typeof answer.body.error, 'string');
      }
      const huge = await harness.call('POST', '/auth', {
        body: { device: DEVICE_A, pad: 'x'.repeat(40_000) },
      });
      assert.equal(huge.status, 413);
      const noSession = await harness.call('GET', '/account');
      assert.equal(noSession.status, 401);
      const a = (await signIn(harness, { device: DEVICE_A })).body;
      const spoof = await harness.call('PATCH', '/account', {
        session: a.session,
        body: { displayName: 'Mallory', id: 'someone-else' },
      });
      assert.equal(spoof.status, 400, 'no route takes an account id');
    } finally {
      await harness.close();
    }
  });
});
