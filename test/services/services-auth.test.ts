/**
 * The verifier's data reaches the room, end to end: a game's own verifier on the HTTP backend, the
 * session it signs, the seat the backend reserves (join-or-create, create, join by id, a match),
 * the room's onAuth and onJoin reading RoomClient.auth, over real UDP on loopback (embedded
 * directory; the Redis directory keeps auth data by the directory contract).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seatHolder } from '../../src/services/backend-seats.js';
import { BackendClient } from '../../src/services/index.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import type { RoomClient } from '../../src/services/room.js';
import { roomChannel } from '../../src/services/room-channels.js';
import { factory, PROTOCOL_ID, TestRoom } from '../support/room-scene.js';
import { connected, mirroredPlayers, Players, stateOf, until } from '../support/services-players.js';

/** TestRoom, admitting by what the verifier said (not by join options) and noting who joined as whom. */
class VerifiedRoom extends TestRoom {
  static joins: { userId: string; name: unknown; rank: unknown }[] = [];

  override onAuth(client: RoomClient): boolean | string {
    return client.auth.banned === true ? 'banned' : true;
  }

  override onJoin(client: RoomClient): void {
    VerifiedRoom.joins.push({ userId: client.userId, name: client.auth.name, rank: client.auth.rank });
    super.onJoin(client);
  }
}

/** The game's verifier: a fixed table of players (a real one asks its account service). */
const ACCOUNTS: Record<string, { name: string; rank: number; banned?: boolean }> = {
  ada: { name: 'Ada Lovelace', rank: 12 },
  bob: { name: 'Bob', rank: 3 },
  cy: { name: 'Cy', rank: 7 },
  di: { name: 'Di', rank: 8 },
  ed: { name: 'Ed', rank: 9 },
  eve: { name: 'Eve', rank: 1, banned: true },
};

describe('auth data from the verifier to the room, through the backend', () => {
  let fleet: LocalFleet;
  let players: Players;
  const errors: string[] = [];

  before(async () => {
    players = new Players();
    VerifiedRoom.joins = [];
    const defaults = { maxClients: 4, tickRate: 20, emptyDisposeMs: 10_000 };
    fleet = await startLocalFleet({
      rooms: { arena: { type: VerifiedRoom, defaults }, match: { type: VerifiedRoom, defaults } },
      protocolId: PROTOCOL_ID,
      factory,
      channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
      matchmaking: {
        room: 'match',
        rules: {
          minPlayers: 2,
          maxPlayers: 2,
          fillWaitMs: 60_000,
          skillWindow: { initial: 1000, perSecond: 0, max: 1000 },
        },
        intervalMs: 100,
      },
      server: { onError: (error, where) => errors.push(`${where}: ${error}`) },
      backend: {
        rateLimit: false,
        timeoutSeconds: 2,
        verify: async ({ name }) => {
          const account = ACCOUNTS[name];
          return account === undefined
            ? { refused: 'no such account' }
            : { userId: `id-${name}`, data: account };
        },
      },
    });
  });
  after(async () => {
    players?.close();
    await fleet?.close();
  });

  const login = async (name: string) => {
    const client = new BackendClient({ url: fleet.url });
    await client.auth({ name });
    return client;
  };
  const joinsOf = (userId: string) => VerifiedRoom.joins.filter((j) => j.userId === userId);
  const refused = () => fleet.servers[0].stats.refused['auth refused'] ?? 0;

  it('join-or-create, create and join by id: each seat carries the session’s data to onJoin', async () => {
    const ada = await login('ada');
    const seat = await ada.joinOrCreate('arena', { transport: 'udp', options: { name: 'Admin', rank: 99 } });
    // The seat in the directory holds the verifier's data beside (and apart from) the join options.
    const reserved = await fleet.directory.getSeat(seat.seatId);
    assert.deepEqual(reserved?.auth, ACCOUNTS.ada);
    assert.deepEqual(reserved?.options, { name: 'Admin', rank: 99 });
    const a = await players.connect(seat.connectToken);
    await until('ada to join', 5000, () => mirroredPlayers(a).length === 1);
    assert.deepEqual(joinsOf('id-ada'), [{ userId: 'id-ada', name: 'Ada Lovelace', rank: 12 }]);

    const bob = await login('bob');
    const own = await bob.create('arena', { transport: 'udp' });
    assert.notEqual(own.roomId, seat.roomId);
    const cy = await login('cy');
    const byId = await cy.join(own.roomId, { transport: 'udp' });
    const ends = await Promise.all([own, byId].map((s) => players.connect(s.connectToken)));
    await until('bob and cy to join', 5000, () => ends.every((p) => mirroredPlayers(p).length === 2));
    assert.deepEqual(
      [...joinsOf('id-bob'), ...joinsOf('id-cy')],
      [
        { userId: 'id-bob', name: 'Bob', rank: 3 },
        { userId: 'id-cy', name: 'Cy', rank: 7 },
      ],
    );
    assert.deepEqual(errors, []);
  });

  it('a player the verifier marked banned is refused by onAuth: disconnected, counted, seat released', async () => {
    const eve = await login('eve');
    const before = refused();
    // Her own join options say otherwise; the room goes by the signed session.
    const seat = await eve.joinOrCreate('arena', { transport: 'udp', options: { banned: false } });
    const e = await players.connect(seat.connectToken);
    await until('the room to refuse eve', 5000, () => refused() === before + 1);
    await until('eve to be disconnected', 5000, () => stateOf(e) <= 0);
    assert.equal(connected(e), false);
    assert.equal(await fleet.directory.getSeat(seat.seatId), null);
    assert.deepEqual(joinsOf('id-eve'), []);
  });

  it('matchmaking: each matched player’s seat carries their own data', async () => {
    const [di, ed] = await Promise.all([login('di'), login('ed')]);
    const seats = await Promise.all(
      [di, ed].map((p) => p.matchmake({ pool: 'duel', transport: 'udp', pollMs: 50 })),
    );
    assert.equal(seats[0].roomId, seats[1].roomId);
    const ends = await Promise.all(seats.map((s) => players.connect(s.connectToken)));
    await until('both to join the match', 5000, () => ends.every((p) => mirroredPlayers(p).length === 2));
    assert.deepEqual(
      [...joinsOf('id-di'), ...joinsOf('id-ed')],
      [
        { userId: 'id-di', name: 'Di', rank: 8 },
        { userId: 'id-ed', name: 'Ed', rank: 9 },
      ],
    );
    assert.deepEqual(errors, []);
  });
});

describe('seatHolder: the session data a seat carries', () => {
  it('carries a JSON object as the seat’s auth; other JSON stays in the session only', () => {
    const session = { userId: 'u1', expiresAt: 1 };
    assert.deepEqual(seatHolder({ ...session, data: { name: 'Ada' } }), {
      userId: 'u1',
      auth: { name: 'Ada' },
    });
    for (const data of ['gold', 7, null, ['a', 'b'], undefined])
      assert.deepEqual(seatHolder({ ...session, data }), { userId: 'u1' }, JSON.stringify(data));
  });
});
