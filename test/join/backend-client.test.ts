/**
 * The browser-safe BackendClient against a served backend, and the matchmaking routes (with a
 * stand-in matchmaker: queued, matched with this player's seat, cancelled, someone else's ticket).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { readConnectToken } from '../../src/connection/connect-token.js';
import { BackendClient, BackendError } from '../../src/join/backend-client.js';
import { matchSeatId } from '../../src/services/backend-matchmake-routes.js';
import type { JoinAnswer } from '../../src/services/backend-seats.js';
import { backendPerTest, call, FakeRoomProcess, guest } from '../support/backend-fixture.js';
import { until as waitFor } from '../support/directory-contract.js';

const SECRET = new Uint8Array(32).fill(5);
const start = backendPerTest((f) => FakeRoomProcess.start(f.directory, { processId: 'p1', maxClients: 4 }));

describe('BackendClient', () => {
  it('authenticates, joins, creates and reconnects, with the token as bytes', async () => {
    const f = await start();
    const client = new BackendClient({ url: `${f.url}/` });
    await assert.rejects(client.joinOrCreate('arena', { transport: 'udp' }), { status: 401 });
    const me = await client.auth({ name: 'ada' });
    assert.match(me.userId, /^guest-/);
    const first = await client.joinOrCreate('arena', { transport: 'websocket' });
    assert.ok(first.connectToken instanceof Uint8Array);
    assert.equal(first.connectToken.length, 2048);
    assert.ok(readConnectToken(first.connectToken).ok);
    // Other players join by id (a player holds one seat per room).
    const player = async (name: string) => {
      const other = new BackendClient({ url: f.url });
      await other.auth({ name });
      return other;
    };
    const second = await (await player('bob')).join(first.roomId, { transport: 'udp' });
    assert.equal(second.roomId, first.roomId);
    const other = await client.create('arena', { transport: 'webrtc', options: { map: 'dust' } });
    assert.notEqual(other.roomId, first.roomId);
    assert.equal(typeof other.signalingUrl, 'string');
    assert.deepEqual((await f.directory.getSeat(other.seatId))?.options, { map: 'dust' }, 'join options');
    await f.directory.consumeSeat(other.seatId, other.roomId);
    await f.directory.holdSeat(other.seatId, 10_000);
    const back = await client.reconnect();
    assert.deepEqual([back.seatId, back.transport], [other.seatId, 'webrtc']);
    const refused = await client.reconnect(first.seatId, { transport: 'udp' }).catch((e: unknown) => e);
    assert.ok(refused instanceof BackendError);
    assert.deepEqual(
      [refused.status, refused.reason],
      [409, 'the seat is reserved, not held for a reconnection'],
    );
    const third = await (await player('cy')).join(first.roomId, {
      transport: 'udp',
      options: { team: 'red' },
    });
    assert.deepEqual((await f.directory.getSeat(third.seatId))?.options, { team: 'red' });
  });

  it('stays browser-safe: no node: imports, no Buffer', () => {
    const source = readFileSync(new URL('../../../src/join/backend-client.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(source, /from 'node:/);
    for (const line of source.split('\n').filter((l) => l.startsWith('import')))
      assert.match(line, /^import type /);
    assert.doesNotMatch(source, /\bBuffer\b/);
  });
});

describe('matchmaking routes', () => {
  it('polls a party’s ticket to a match with each member’s own seat, the same seat on every poll', async () => {
    const f = await start({ sessionSecret: SECRET });
    const ada = await guest(f.url, 'ada');
    const bob = await guest(f.url, 'bob');
    const eve = await guest(f.url, 'eve');
    // A party is queued by the game's server (HTTP queues its caller alone); each member polls.
    const ticketId = await f.matchmaker.enqueue({
      userIds: [ada.userId, bob.userId],
      pool: 'duel/eu',
      skill: 1500,
    });
    const ticket = await f.directory.ticketStatus(ticketId);
    assert.ok(ticket.state === 'queued');
    assert.deepEqual([ticket.ticket.userIds, ticket.ticket.skill], [[ada.userId, bob.userId], 1500]);
    const poll = (session: string) =>
      call(f.url, 'GET', `/matchmake/${ticketId}?transport=udp`, undefined, session);
    assert.equal((await poll(ada.session)).body.state, 'queued');
    assert.equal((await poll(eve.session)).body.state, 'unknown', 'someone else’s ticket');

    const roomId = await f.matchmaker.match('duel/eu', 'duel');
    const matched = await poll(ada.session);
    assert.equal(matched.body.state, 'matched');
    const join = matched.body.join as JoinAnswer;
    assert.equal(join.roomId, roomId);
    const room = await f.directory.getRoom(roomId);
    assert.equal(room?.private, true, 'a match room is private');
    const again = (await poll(ada.session)).body.join as JoinAnswer;
    assert.equal(again.seatId, join.seatId, 'polling again gives the same seat');
    const partner = (await poll(bob.session)).body.join as JoinAnswer;
    assert.notEqual(partner.seatId, join.seatId, 'the party member gets a seat of its own');
    assert.equal((await f.directory.getRoom(roomId))?.seats, 2);
    assert.equal(partner.seatId, matchSeatId(SECRET, ticketId, bob.userId));
    await f.directory.consumeSeat(join.seatId, roomId);
    const used = await poll(ada.session);
    assert.deepEqual([used.status, used.body.error], [409, 'the seat is already used']);
  });

  it('queues its caller alone: a party named over HTTP is refused, the matchmaker’s refusals are 400', async () => {
    const f = await start();
    const ada = await guest(f.url, 'ada');
    const bob = await guest(f.url, 'bob');
    const party = await call(f.url, 'POST', '/matchmake', { pool: 'duel', party: [bob.userId] }, ada.session);
    assert.equal(party.status, 400);
    assert.match(String(party.body.error), /party/);
    const solo = await call(f.url, 'POST', '/matchmake', { pool: 'duel', skill: 3 }, ada.session);
    const ticket = await f.directory.ticketStatus(String(solo.body.ticketId));
    assert.ok(ticket.state === 'queued');
    assert.deepEqual(ticket.ticket.userIds, [ada.userId]);
    const refused = await call(f.url, 'POST', '/matchmake', { pool: 'no-rules' }, ada.session);
    assert.deepEqual([refused.status, refused.body.error], [400, 'pool "no-rules" has no match rules']);
  });

  it('answers unknown, and no seat, to a player polling someone else’s matched ticket', async () => {
    const f = await start({ sessionSecret: SECRET });
    const ada = await guest(f.url, 'ada');
    const eve = await guest(f.url, 'eve');
    const ticketId = await f.matchmaker.enqueue({ userIds: [ada.userId], pool: 'duel/eu', skill: 1 });
    const roomId = await f.matchmaker.match('duel/eu', 'duel');
    const stranger = await call(f.url, 'GET', `/matchmake/${ticketId}?transport=udp`, undefined, eve.session);
    assert.deepEqual([stranger.status, stranger.body], [200, { state: 'unknown' }]);
    assert.equal((await f.directory.getRoom(roomId))?.seats, 0, 'no seat reserved for the stranger');
    const own = await call(f.url, 'GET', `/matchmake/${ticketId}?transport=udp`, undefined, ada.session);
    assert.equal(own.body.state, 'matched');
  });

  it('cancels a queued ticket once; refuses to cancel another player’s', async () => {
    const f = await start();
    const ada = await guest(f.url, 'ada');
    const eve = await guest(f.url, 'eve');
    const { ticketId } = (await call(f.url, 'POST', '/matchmake', { pool: 'duel' }, ada.session)).body as {
      ticketId: string;
    };
    const theirs = await call(f.url, 'DELETE', `/matchmake/${ticketId}`, undefined, eve.session);
    assert.deepEqual([theirs.status, theirs.body.error], [409, 'ticket is not queued (unknown)']);
    const cancel = await call(f.url, 'DELETE', `/matchmake/${ticketId}`, undefined, ada.session);
    assert.deepEqual([cancel.status, cancel.body.state], [200, 'cancelled']);
    const twice = await call(f.url, 'DELETE', `/matchmake/${ticketId}`, undefined, ada.session);
    assert.deepEqual([twice.status, twice.body.error], [409, 'ticket is not queued (cancelled)']);
    const poll = await call(f.url, 'GET', `/matchmake/${ticketId}?transport=udp`, undefined, ada.session);
    assert.equal(poll.body.state, 'cancelled');
    const stranger = await call(f.url, 'GET', `/matchmake/${ticketId}?transport=udp`, undefined, eve.session);
    assert.equal(stranger.body.state, 'unknown', 'whether another player’s ticket was cancelled is not told');
    const theirsAgain = await call(f.url, 'DELETE', `/matchmake/${ticketId}`, undefined, eve.session);
    assert.deepEqual([theirsAgain.status, theirsAgain.body.error], [409, 'ticket is not queued (unknown)']);
    assert.equal(
      (await call(f.url, 'GET', '/matchmake/nope?transport=udp', undefined, ada.session)).body.state,
      'unknown',
    );
  });

  it('client.matchmake polls until matched, and an abort cancels the ticket', async () => {
    const f = await start();
    const client = new BackendClient({ url: f.url });
    const me = await client.auth({ name: 'ada' });
    let ticket = '';
    const seated = client.matchmake({
      pool: 'duel',
      transport: 'udp',
      pollMs: 20,
      onTicket: (id) => (ticket = id),
    });
    await waitFor(() => ticket.length > 0, 'the ticket');
    const roomId = await f.matchmaker.match('duel', 'duel');
    const seat = await seated;
    assert.deepEqual([seat.roomId, seat.connectToken.length], [roomId, 2048]);
    assert.ok(ticket.length > 0);

    const first = ticket;
    const abort = new AbortController();
    const waiting = client.matchmake({
      pool: 'duel',
      transport: 'udp',
      pollMs: 20,
      signal: abort.signal,
      onTicket: (id) => (ticket = id),
    });
    await waitFor(() => ticket !== first, 'the second ticket');
    abort.abort(new Error('player left the queue'));
    await assert.rejects(waiting, /player left the queue/);
    // The cancel is sent as the poll stops: wait for it to land.
    const cancelled = { state: 'cancelled', userIds: [me.userId] };
    for (let i = 0; i < 200; i++) {
      if ((await f.directory.ticketStatus(ticket)).state === 'cancelled') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(await f.directory.ticketStatus(ticket), cancelled);
  });
});
