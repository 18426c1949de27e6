/**
 * The HTTP backend over a real listening server, an EmbeddedDirectory and stand-in room processes:
 * authentication, room placement, seat reservation, the connect token's contents, reconnection
 * and rooms whose process stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeAead } from '../../src/connection/aead-node.js';
import {
  decryptConnectTokenPrivate,
  privateAssociatedData,
  readConnectToken,
  readConnectTokenPrivate,
} from '../../src/connection/connect-token.js';
import { createBackend } from '../../src/services/backend.js';
import { ROOM_GONE } from '../../src/services/backend-refusal.js';
import type { guestAuthSchema } from '../../src/services/backend-schemas.js';
import type { JoinAnswer } from '../../src/services/backend-seat-issuer.js';
import { SessionSigner } from '../../src/services/backend-session-signer.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { decodeSeatUserData } from '../../src/services/seat-token.js';
import {
  addressesOf,
  backendPerTest,
  call,
  FakeRoomProcess,
  guest,
  PRIVATE_KEY,
  PROTOCOL_ID,
} from '../support/backend-fixture.js';

const start = backendPerTest();

/** What a server sees in the token: its private part opened with the shared key. */
function openToken(answer: JoinAnswer) {
  const read = readConnectToken(new Uint8Array(Buffer.from(answer.connectToken, 'base64')));
  assert.ok(read.ok, 'the token reads');
  const { token } = read;
  const sealed = token.privateData.slice();
  assert.ok(
    decryptConnectTokenPrivate(
      sealed,
      privateAssociatedData(token.protocolId, token.expireTimestamp),
      token.nonce,
      PRIVATE_KEY,
      nodeAead,
    ),
    'the private part opens with the shared key',
  );
  const secret = readConnectTokenPrivate(sealed);
  assert.ok(secret !== null);
  return { token, secret, claim: decodeSeatUserData(secret.userData) };
}

describe('POST /auth and sessions', () => {
  it('lets a guest in with a session token the other routes accept', async () => {
    const { url } = await start();
    const answer = await call(url, 'POST', '/auth', { name: 'ada' });
    assert.equal(answer.status, 200);
    assert.match(String(answer.body.userId), /^guest-/);
    assert.ok(Number(answer.body.expiresAt) > Date.now() + 3500_000, 'a session lasts an hour by default');
    const joined = await call(
      url,
      'POST',
      '/rooms/join-or-create',
      { name: 'x', transport: 'udp' },
      String(answer.body.session),
    );
    assert.notEqual(joined.status, 401);
  });

  it('refuses missing, forged and expired sessions with 401 and a reason', async () => {
    const { url } = await start();
    const body = { name: 'arena', transport: 'udp' };
    const none = await call(url, 'POST', '/rooms/join-or-create', body);
    assert.equal(none.status, 401);
    assert.match(String(none.body.error), /Bearer/);
    const forged = new SessionSigner(new Uint8Array(32).fill(9)).sign({
      userId: 'eve',
      expiresAt: Date.now() + 60_000,
    });
    const wrong = await call(url, 'POST', '/rooms/join-or-create', body, forged);
    assert.deepEqual([wrong.status, wrong.body.error], [401, 'session token not signed here']);
    const junk = await call(url, 'POST', '/rooms/join-or-create', body, 'v1.abc.def');
    assert.deepEqual([junk.status, junk.body.error], [401, 'session token not signed here']);

    const secret = new Uint8Array(32).fill(3); // a second backend (start closes the first)
    let now = Date.now();
    const f = await start({ sessionSecret: secret, sessionSeconds: 10, nowMs: () => now });
    const { session } = await guest(f.url);
    now += 10_001;
    const expired = await call(f.url, 'POST', '/rooms/join-or-create', body, session);
    assert.deepEqual([expired.status, expired.body.error], [401, 'session expired']);
  });

  it('tells a game server who a session is: verifySession answers the user, or null for anything else', async () => {
    let now = Date.now();
    const f = await start({ sessionSeconds: 10, nowMs: () => now });
    const { session, userId } = await guest(f.url);
    assert.equal(f.backend.verifySession(session)?.userId, userId);
    assert.equal(f.backend.verifySession(`${session.slice(0, -2)}xx`), null, 'tampered');
    assert.equal(f.backend.verifySession('v1.abc.def'), null);
    assert.equal(f.backend.verifySession(42 as unknown as string), null);
    now += 10_001;
    assert.equal(f.backend.verifySession(session), null, 'expired');
  });

  it('checks the body with the game’s schema and answers the verifier’s refusal', async () => {
    const { z } = await import('zod');
    const { url } = await start({
      authSchema: z.object({ user: z.string(), password: z.string() }) as unknown as typeof guestAuthSchema,
      verify: async (body) => {
        const { user, password } = body as unknown as { user: string; password: string };
        if (user === 'nobody') return null;
        return password === 'sesame'
          ? { userId: `u:${user}`, data: { level: 3 } }
          : { refused: 'wrong password' };
      },
    });
    const ok = await call(url, 'POST', '/auth', { user: 'ada', password: 'sesame' });
    assert.deepEqual([ok.status, ok.body.userId], [200, 'u:ada']);
    const bad = await call(url, 'POST', '/auth', { user: 'ada', password: 'x' });
    assert.deepEqual([bad.status, bad.body.error], [401, 'wrong password']);
    const unknown = await call(url, 'POST', '/auth', { user: 'nobody', password: 'x' });
    assert.deepEqual([unknown.status, unknown.body.error], [401, 'credentials refused']);
    const shape = await call(url, 'POST', '/auth', { user: 'ada' });
    assert.equal(shape.status, 400);
    assert.match(String(shape.body.error), /^password: /);
    const guestBody = await call(url, 'POST', '/auth', { name: 'ada' });
    assert.equal(guestBody.status, 400, 'the default guest schema no longer applies');
  });
});

describe('rooms: join-or-create, create, join by id', () => {
  it('creates a room on a process, then fills it before creating another', async () => {
    const f = await start();
    const p = await FakeRoomProcess.start(f.directory, { processId: 'p1', maxClients: 2 });
    const session = async () => (await guest(f.url)).session; // a player each
    const body = { name: 'arena', options: { map: 'dust' }, transport: 'udp' };
    const first = await call(f.url, 'POST', '/rooms/join-or-create', body, await session());
    assert.equal(first.status, 200, String(first.body.error));
    assert.equal(p.requests.length, 1);
    assert.deepEqual(p.requests[0].options, { map: 'dust' });
    assert.equal(p.requests[0].name, 'arena');
    const second = await call(f.url, 'POST', '/rooms/join-or-create', body, await session());
    assert.equal(second.body.roomId, first.body.roomId, 'the second player joins the same room');
    assert.equal(p.requests.length, 1);
    const third = await call(f.url, 'POST', '/rooms/join-or-create', body, await session());
    assert.notEqual(third.body.roomId, first.body.roomId, 'the full room is passed over');
    assert.equal(p.requests.length, 2);
    const room = await f.directory.getRoom(String(first.body.roomId));
    assert.equal(room?.seats, 2);
  });

  it('creates concurrent join-or-creates’ room once', async () => {
    const f = await start();
    const p = await FakeRoomProcess.start(f.directory, { processId: 'p1', maxClients: 4 });
    const sessions = await Promise.all([1, 2, 3, 4].map(async () => (await guest(f.url)).session));
    const body = { name: 'arena', transport: 'udp' };
    const answers = await Promise.all(
      sessions.map((session) => call(f.url, 'POST', '/rooms/join-or-create', body, session)),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200],
    );
    assert.equal(new Set(answers.map((a) => a.body.roomId)).size, 1);
    assert.equal(p.requests.length, 1);
  });

  it('seats a burst bigger than a room: the first room’s size decides how many rooms are made next', async () => {
    const directory = new EmbeddedDirectory();
    const p = await FakeRoomProcess.start(directory, { processId: 'p1', maxClients: 10, maxRooms: 100 });
    const backend = createBackend({
      directory,
      privateKey: PRIVATE_KEY,
      protocolId: PROTOCOL_ID,
      sweepIntervalMs: 0,
      rateLimit: false,
    });
    const post = async (path: string, body: unknown, session?: string) => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (session !== undefined) headers.Authorization = `Bearer ${session}`;
      const response = await backend.app.fetch(
        new Request(`http://backend${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const sessions = await Promise.all(
      Array.from(
        { length: 100 },
        async () => ((await post('/auth', { name: 'ada' })).body as { session: string }).session,
      ),
    );
    // All in one tick: the first creation seats 10; the 90 others learn that and make 9 rooms at once.
    const answers = await Promise.all(
      sessions.map((session) => post('/rooms/join-or-create', { name: 'arena', transport: 'udp' }, session)),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
    assert.equal(p.requests.length, 10);
    const rooms = await directory.findRooms({ name: 'arena' });
    assert.deepEqual(
      rooms.map((room) => room.seats),
      new Array(10).fill(10),
    );
    await backend.close();
    await directory.close();
  });

  it('places new rooms on the least loaded ready process serving the transport', async () => {
    const f = await start();
    const busy = await FakeRoomProcess.start(f.directory, { processId: 'busy', rooms: 8, maxRooms: 10 });
    const idle = await FakeRoomProcess.start(f.directory, {
      processId: 'idle',
      rooms: 1,
      maxRooms: 10,
      addresses: addressesOf(1),
    });
    const draining = await FakeRoomProcess.start(f.directory, {
      processId: 'draining',
      addresses: addressesOf(2),
    });
    await f.directory.heartbeat(
      'draining',
      'draining',
      { rooms: 0, clients: 0, tickMs: 0, tickMaxMs: 0 },
      60_000,
    );
    const noWs = await FakeRoomProcess.start(f.directory, {
      processId: 'udp-only',
      addresses: { udp: '127.0.0.1:45000' },
    });
    const { session } = await guest(f.url);
    const created = await call(
      f.url,
      'POST',
      '/rooms/create',
      { name: 'arena', transport: 'websocket' },
      session,
    );
    assert.equal(created.status, 200, String(created.body.error));
    assert.deepEqual([created.body.processId, created.body.serverAddress], ['idle', '127.0.0.1:42001']);
    assert.deepEqual([busy.requests.length, idle.requests.length, noWs.requests.length], [0, 1, 0]);
    assert.equal(draining.requests.length, 0, 'a draining process takes no new rooms');
    // Rooms placed since the last heartbeat count: a burst fills the idle one up to the busy one's
    // load (0.8), then alternates, instead of piling all on the process that looked emptiest.
    for (let i = 0; i < 8; i++) {
      const player = (await guest(f.url)).session; // one creator each: three seats per player at most
      await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'websocket' }, player);
    }
    assert.deepEqual([busy.requests.length, idle.requests.length], [1, 8]);
    const udp = (await guest(f.url)).session;
    const create = await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'udp' }, udp);
    assert.equal(create.status, 200);
  });

  it('answers 503 with a reason when no process can take a room or none replies', async () => {
    const f = await start({ createTimeoutMs: 150 });
    const { session } = await guest(f.url);
    const body = { name: 'arena', transport: 'udp' };
    const none = await call(f.url, 'POST', '/rooms/create', body, session);
    assert.deepEqual(
      [none.status, none.body.error],
      [503, 'no server process serving udp can take a room now'],
    );
    await FakeRoomProcess.start(f.directory, { processId: 'mute', mode: 'silent' });
    const silent = await call(f.url, 'POST', '/rooms/join-or-create', body, session);
    assert.deepEqual([silent.status, silent.body.error], [503, 'server process mute did not answer in time']);
  });

  it('answers 400 when the process refuses the options or the room type is not known', async () => {
    const f = await start({ roomTypes: ['arena'] });
    await FakeRoomProcess.start(f.directory, { processId: 'picky', mode: 'refuse' });
    const { session } = await guest(f.url);
    const refused = await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'udp' }, session);
    assert.deepEqual([refused.status, refused.body.error], [400, 'room not created: bad options']);
    const unknown = await call(f.url, 'POST', '/rooms/create', { name: 'lobby', transport: 'udp' }, session);
    assert.deepEqual([unknown.status, unknown.body.error], [400, 'no room type lobby']);
  });

  it('joins a room by id, private ones too, and refuses unknown, locked and full rooms with 409', async () => {
    const f = await start();
    await FakeRoomProcess.start(f.directory, { processId: 'p1', addresses: { udp: '127.0.0.1:45000' } });
    const base = { processId: 'p1', maxClients: 1, locked: false, metadata: {} };
    await f.directory.createRoom({ ...base, roomId: 'secret', name: 'duel', private: true });
    await f.directory.createRoom({ ...base, roomId: 'shut', name: 'duel', private: false, locked: true });
    const { session } = await guest(f.url);
    const join = (roomId: string, transport = 'udp') =>
      call(f.url, 'POST', `/rooms/${roomId}/join`, { transport }, session);
    const ok = await join('secret');
    assert.deepEqual([ok.status, ok.body.roomId], [200, 'secret']);
    assert.deepEqual([(await join('secret')).status, (await join('secret')).body.error], [409, 'full']);
    assert.deepEqual((await join('shut')).body.error, 'locked');
    const unknown = await join('nowhere');
    assert.deepEqual([unknown.status, unknown.body.error], [409, 'no such room']);
    await f.directory.updateRoom('secret', { maxClients: 5 });
    const ws = await join('secret', 'websocket');
    assert.deepEqual([ws.status, ws.body.error], [409, "the room's server does not serve websocket"]);
    const joinable = await call(
      f.url,
      'POST',
      '/rooms/join-or-create',
      { name: 'duel', transport: 'udp' },
      session,
    );
    assert.notEqual(joinable.body.roomId, 'secret', 'a private room is never found by a query');
  });
});

describe('the join answer and its connect token', () => {
  it('names the seat in the token’s sealed user data, for the transport asked', async () => {
    const f = await start();
    await FakeRoomProcess.start(f.directory, { processId: 'p1', addresses: addressesOf(3) });
    const { session, userId } = await guest(f.url);
    for (const transport of ['udp', 'websocket', 'webrtc'] as const) {
      const before = Math.floor(Date.now() / 1000);
      const answer = (await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport }, session))
        .body as unknown as JoinAnswer;
      const address = addressesOf(3)[transport];
      assert.deepEqual(
        [answer.transport, answer.serverAddress, answer.processId],
        [transport, address, 'p1'],
      );
      assert.equal(answer.signalingUrl, transport === 'webrtc' ? addressesOf(3).signalingUrl : undefined);
      const { token, secret, claim } = openToken(answer);
      assert.equal(token.protocolId, PROTOCOL_ID);
      assert.deepEqual(token.serverAddresses, [address]);
      assert.deepEqual(secret.serverAddresses, [address]);
      assert.equal(token.expireTimestamp - token.createTimestamp, 15, 'the token lives as long as the seat');
      assert.ok(token.createTimestamp >= before);
      assert.deepEqual(claim, { roomId: answer.roomId, seatId: answer.seatId });
      const seat = await f.directory.getSeat(answer.seatId);
      assert.ok(seat !== null);
      assert.deepEqual(
        [seat.state, seat.userId, seat.clientId],
        ['reserved', userId, secret.clientId.toString()],
      );
      assert.equal(seat.expiresAt, answer.expiresAt);
      assert.ok(Math.abs(answer.expiresAt - (Date.now() + 15_000)) < 2000, 'the seat waits 15 s');
    }
  });
});

describe('POST /reconnect', () => {
  it('gives a fresh token for the same seat only while it is held for the same player', async () => {
    const f = await start();
    await FakeRoomProcess.start(f.directory, { processId: 'p1' });
    const ada = await guest(f.url, 'ada');
    const eve = await guest(f.url, 'eve');
    const joined = (
      await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'udp' }, ada.session)
    ).body as unknown as JoinAnswer;
    const again = (session: string, seatId = joined.seatId) =>
      call(f.url, 'POST', '/reconnect', { seatId, transport: 'websocket', roomId: joined.roomId }, session);
    const reserved = await again(ada.session);
    assert.deepEqual(
      [reserved.status, reserved.body.error],
      [409, 'the seat is reserved, not held for a reconnection'],
    );
    await f.directory.consumeSeat(joined.seatId, joined.roomId);
    assert.equal((await again(ada.session)).body.error, 'the seat is taken, not held for a reconnection');
    await f.directory.holdSeat(joined.seatId, 30_000);
    const stranger = await again(eve.session);
    assert.deepEqual([stranger.status, stranger.body.error], [403, 'the seat belongs to another player']);
    const back = await again(ada.session);
    assert.equal(back.status, 200, String(back.body.error));
    const answer = back.body as unknown as JoinAnswer;
    assert.deepEqual(
      [answer.seatId, answer.roomId, answer.transport],
      [joined.seatId, joined.roomId, 'websocket'],
    );
    const first = openToken(joined);
    const fresh = openToken(answer);
    assert.deepEqual(fresh.claim, first.claim);
    assert.equal(fresh.secret.clientId, first.secret.clientId, 'the same netcode client id');
    assert.notDeepEqual(fresh.secret.clientToServerKey, first.secret.clientToServerKey, 'fresh keys');
    const unknown = await again(ada.session, 'no-such-seat');
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'no such seat (expired or released)']);
  });
});

describe('a server process that stopped', () => {
  it('answers 410 for a join or reconnect to its rooms after PROCESS_GONE', async () => {
    const f = await start();
    await FakeRoomProcess.start(f.directory, { processId: 'doomed' });
    const { session } = await guest(f.url);
    const joined = (await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'udp' }, session))
      .body as unknown as JoinAnswer;
    await f.directory.removeProcess('doomed');
    await new Promise((resolve) => setTimeout(resolve, 10)); // PROCESS_GONE arrives on a later microtask
    const join = await call(f.url, 'POST', `/rooms/${joined.roomId}/join`, { transport: 'udp' }, session);
    assert.deepEqual([join.status, join.body.error], [410, ROOM_GONE]);
    const back = await call(
      f.url,
      'POST',
      '/reconnect',
      { seatId: joined.seatId, roomId: joined.roomId, transport: 'udp' },
      session,
    );
    assert.deepEqual([back.status, back.body.error], [410, ROOM_GONE]);
  });

  it('sweeps a process whose heartbeats stopped, then answers 410 for its rooms', async () => {
    const f = await start({ sweepIntervalMs: 50 });
    await FakeRoomProcess.start(f.directory, { processId: 'crashy', ttlMs: 300 });
    const { session } = await guest(f.url);
    const joined = (await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'udp' }, session))
      .body as unknown as JoinAnswer;
    assert.ok(joined.roomId !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await f.directory.getProcess('crashy'), null);
    const join = await call(f.url, 'POST', `/rooms/${joined.roomId}/join`, { transport: 'udp' }, session);
    assert.deepEqual([join.status, join.body.error], [410, ROOM_GONE]);
    const create = await call(
      f.url,
      'POST',
      '/rooms/join-or-create',
      { name: 'arena', transport: 'udp' },
      session,
    );
    assert.equal(create.status, 503, 'no process left for new rooms');
  });
});
