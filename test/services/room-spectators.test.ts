/**
 * Spectators of game rooms, through the backend and the room server over real UDP on loopback:
 * a room watched by id or a pool's running room, follow / camera, inputs and messages refused and
 * counted, seats apart (a room full of players still admits spectators up to spectators.max, and
 * no further, with a reason), token kinds that never cross, and a room that ends disconnecting
 * its spectators. The delay, the per-address cap and a Redis directory: room-spectators-delay-redis.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { MessageClient } from '../../src/channels/message-endpoints.js';
import { nodeDefaultAead } from '../../src/connection/aead-node-default.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { wiringOf } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { SpectatorRequestSender } from '../../src/game/spectator-channels.js';
import { registeredUdpOpener } from '../../src/game/transport-openers.js';
import { BackendClient } from '../../src/join/backend-client.js';
import { InputSender } from '../../src/latency/input-sender.js';
import { ClientMirror } from '../../src/replication/client-mirror.js';
import { spectatorStats } from '../../src/services/game-room.js';
import type { LocalFleet } from '../../src/services/local-fleet.js';
import type { Room } from '../../src/services/room.js';
import { encodeSeatUserData } from '../../src/services/seat-token.js';
import { toAddress } from '../../src/transport/address.js';
import { pumpClients as pump } from '../support/pump-clients.js';
import { field, type Log, markersSeen, startFleet } from '../support/room-spectate-game.js';
import { until } from '../support/until.js';

const roomOf = (fleet: LocalFleet, roomId: string): Room => {
  const room = fleet.servers[0].room(roomId);
  assert.ok(room !== undefined, `room ${roomId} is hosted`);
  return room;
};

/** A spectator's connection made by hand from the backend's spectator token: it sends game messages, then inputs. */
async function pushySpectator(
  fleet: LocalFleet,
  roomId: string,
): Promise<{ close(): void; connected(): boolean }> {
  const backend = new BackendClient({ url: fleet.url });
  await backend.auth({ name: 'pushy' });
  const seat = await backend.spectate({ roomId, transport: 'udp' });
  const wiring = wiringOf('test', field);
  const mirror = new ClientMirror({
    types: wiring.types,
    capacity: field.maxEntities,
    events: wiring.events,
  });
  const inputs = new InputSender<{ dx: number }>({ schema: field.input });
  const transport = await registeredUdpOpener()!(seat.serverAddress);
  const raw = new MessageClient({
    transport,
    factory: wiring.factory,
    channels: [
      mirror.channel,
      inputs.channel,
      { kind: 'reliable-ordered' },
      { kind: 'custom', create: () => new SpectatorRequestSender() },
    ],
  });
  raw.connect(seat.connectToken, performance.now() / 1000);
  let tick = 1;
  const timer = setInterval(() => {
    raw.update(performance.now() / 1000);
    if (!raw.connected) return;
    // Messages first (a packet carrying inputs is refused whole, messages and all), then inputs.
    if (tick <= 30) {
      if (tick % 3 === 0) raw.send(2, field.messageTypes.chat, { text: 'hi' });
    } else inputs.push(tick, { dx: 1 });
    tick++;
  }, 1000 / 60);
  return {
    connected: () => raw.connected,
    close: () => {
      clearInterval(timer);
      raw.disconnect();
      transport.close();
    },
  };
}

/** A connect token the backend would never mint: a claim and a client id of the test's choice. */
function forgedToken(
  fleet: LocalFleet,
  claim: { roomId: string; seatId: string; spectator?: boolean },
  clientId: bigint,
  serverAddress: string,
): Uint8Array {
  return generateConnectToken({
    protocolId: field.protocolId,
    privateKey: fleet.privateKey,
    clientId,
    serverAddresses: [toAddress(serverAddress)],
    now: Math.floor(Date.now() / 1000),
    expireSeconds: 15,
    timeoutSeconds: 5,
    userData: encodeSeatUserData(claim),
    aead: nodeDefaultAead,
  });
}

describe('spectators of rooms', () => {
  const log: Log = { joins: 0, chat: 0, inputs: 0 };
  let fleet: LocalFleet;
  before(async () => {
    fleet = await startFleet(log);
  });
  after(() => fleet.close());

  it('a spectator watches a room by id: sees the players, follows one, takes no seat; a full quota refuses with a reason', async () => {
    const player = await GameClient.connect(field, fleet.url, { room: 'field', name: 'ada' });
    const clients: GameClient[] = [player];
    try {
      await pump(clients, 'the player in', 5000, () => player.me !== null);
      const roomId = fleet.servers[0].rooms[0].roomId;
      const room = roomOf(fleet, roomId);
      assert.equal(room.seats.size, 1, 'the room is full of players (maxClients 1)');
      const tv = await GameClient.connect(field, fleet.url, { room: roomId, spectate: true, name: 'tv' });
      clients.push(tv);
      await pump(clients, "the spectator to see the player's entity", 5000, () =>
        tv.entities.some((e) => e.id === player.me?.id),
      );
      assert.equal(tv.me, null, 'a spectator has no entity');
      assert.equal(room.seats.size, 1, 'the spectator took no seat');
      assert.equal((await fleet.directory.getRoom(roomId))?.seats, 1, 'nor a directory seat');
      assert.equal(log.joins, 1, 'no onJoin for the spectator');
      assert.equal(fleet.servers[0].stats().spectators, 1);

      tv.camera(-100, 0);
      await pump(clients, 'the west marker only', 5000, () => markersSeen(tv).join() === 'west');
      assert.ok(
        tv.entities.every((e) => e.type !== 'avatar'),
        'the player at x = 0 is out of range',
      );
      tv.follow(player.me!.id);
      await pump(
        clients,
        "the followed player's surroundings",
        5000,
        () => tv.entities.some((e) => e.id === player.me?.id) && markersSeen(tv).length === 0,
      );

      // Inputs and a game message from a spectator's connection: refused, counted, never applied.
      const inputsBefore = log.inputs;
      const pushy = await pushySpectator(fleet, roomId);
      try {
        await pump(clients, 'the spectator’s inputs refused', 5000, () => {
          const stats = spectatorStats(room);
          return (
            stats !== null &&
            stats.spectatorInputsRefused > 0 &&
            fleet.servers[0].stats().spectatorMessagesDropped > 0
          );
        });
        assert.equal(log.chat, 0, 'no message of a spectator reaches the game');
        assert.ok(log.inputs - inputsBefore < 200, 'the player’s inputs only');
        assert.equal(spectatorStats(room)?.spectators, 2);
        // spectators.max = 2: a third is refused, with the reason counted; the seat count never moved.
        await assert.rejects(
          GameClient.connect(field, fleet.url, { room: roomId, spectate: true, timeout: 3 }),
          /GameClient.connect/,
        );
        assert.equal(fleet.servers[0].stats().refused['spectators full (2)'], 1);
        assert.equal(spectatorStats(room)?.spectatorsOverMax, 1);
        assert.equal(room.seats.size, 1);
      } finally {
        pushy.close();
      }
      await pump(clients, 'the pushy spectator gone', 5000, () => spectatorStats(room)?.spectators === 1);
      // A player joining the full room by id is still refused: spectators never free nor take player seats.
      const backend = new BackendClient({ url: fleet.url });
      await backend.auth({ name: 'late' });
      await assert.rejects(backend.join(roomId, { transport: 'udp' }), /full|409/);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('token kinds never cross: a player token seats a player, a spectator claim never takes a seat, a forged kind is refused', async () => {
    const backend = new BackendClient({ url: fleet.url });
    await backend.auth({ name: 'bea' });
    const seat = await backend.create('field', { transport: 'udp' });
    const room = roomOf(fleet, seat.roomId);
    // The player's token, used by a client that says it spectates: the server seats a player.
    const transport = await registeredUdpOpener()!(seat.serverAddress);
    const asSpectator = await GameClient.connect(
      field,
      { token: seat.connectToken, transport },
      { spectate: true },
    );
    const clients = [asSpectator];
    try {
      await pump(clients, 'the token’s player seated', 5000, () => room.seats.size === 1);
      assert.equal(room.spectatorSlots.size, 0, 'not a spectator: the token says player');
      // A spectator's claim naming a reserved player seat: admitted as a spectator, the seat untouched.
      const other = new BackendClient({ url: fleet.url });
      await other.auth({ name: 'cy' });
      const spare = await fleet.directory.reserveSeat(seat.roomId, {
        seatId: 'spare-seat',
        userId: 'cy',
        clientId: '77',
        ttlMs: 10_000,
      });
      assert.ok(!spare.ok, 'the room is full of players (maxClients 1)');
      const watch = await other.spectate({ roomId: seat.roomId, transport: 'udp' });
      const seatBefore = await fleet.directory.getSeat(seat.seatId);
      const tvTransport = await registeredUdpOpener()!(watch.serverAddress);
      const tv = await GameClient.connect(field, { token: watch.connectToken, transport: tvTransport });
      clients.push(tv);
      await pump(clients, 'the spectator admitted', 5000, () => room.spectatorSlots.size === 1);
      assert.deepEqual(
        await fleet.directory.getSeat(seat.seatId),
        seatBefore,
        'the player seat is as it was',
      );
      assert.equal(room.seats.size, 1);
      // Forged by someone with the key: a spectator's claim with a player's client id is refused.
      const refusedBefore = fleet.servers[0].stats().refused['wrong token kind'] ?? 0;
      const forged = forgedToken(
        fleet,
        { roomId: seat.roomId, seatId: 'x', spectator: true },
        12345n,
        seat.serverAddress,
      );
      const forgedTransport = await registeredUdpOpener()!(seat.serverAddress);
      await assert.rejects(
        GameClient.connect(field, { token: forged, transport: forgedTransport }, { timeout: 3 }),
        /GameClient.connect/,
      );
      assert.equal(fleet.servers[0].stats().refused['wrong token kind'], refusedBefore + 1);
      // A spectator token's watch id is no player seat: it names nothing in the directory.
      assert.equal(await fleet.directory.getSeat(watch.seatId), null);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('a pool spectator watches the pool’s running room, and is refused with a reason when none runs', async () => {
    await until('no room left from the tests before', 5000, () => fleet.servers[0].rooms.length === 0);
    await assert.rejects(
      GameClient.connect(field, fleet.url, { pool: 'solo', spectate: true }),
      /no running room in pool solo to watch/,
    );
    await assert.rejects(
      GameClient.connect(field, fleet.url, { pool: 'nowhere', spectate: true }),
      /no pool nowhere of rooms to watch/,
    );
    assert.equal(fleet.servers[0].rooms.length, 0, 'no room was created to be watched');
    const player = await GameClient.connect(field, fleet.url, { pool: 'solo', name: 'dee' });
    const clients = [player];
    try {
      await pump(clients, 'the matched player in', 5000, () => player.me !== null);
      const tv = await GameClient.connect(field, fleet.url, { pool: 'solo', spectate: true });
      clients.push(tv);
      await pump(clients, 'the pool spectator to see the player', 5000, () =>
        tv.entities.some((e) => e.id === player.me?.id),
      );
      const [room] = fleet.servers[0].rooms;
      assert.equal(room.spectatorSlots.size, 1);
      assert.ok(room.isPrivate, 'a match room: private, yet watched through its pool');

      // The room ends (its player leaves, it is disposed): its spectator is disconnected.
      player.close();
      await pump(
        [tv],
        'the spectator disconnected as the room ends',
        8000,
        () => tv.status === 'disconnected',
      );
      assert.equal(fleet.servers[0].rooms.length, 0);
      assert.equal(fleet.servers[0].stats().spectators, 0);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('the spectate route checks its body, needs a session and is rate limited', async () => {
    const post = (body: unknown, session?: string) =>
      fetch(`${fleet.url}/spectate`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(session ? { authorization: `Bearer ${session}` } : {}),
        },
        body: JSON.stringify(body),
      });
    assert.equal((await post({ pool: 'solo', transport: 'udp' })).status, 401);
    const backend = new BackendClient({ url: fleet.url });
    const { session } = await backend.auth({ name: 'eve' });
    for (const body of [
      { transport: 'udp' },
      { roomId: 'a', pool: 'solo', transport: 'udp' },
      { roomId: 'a/../b', transport: 'udp' },
      { roomId: 'a', transport: 'carrier-pigeon' },
      { roomId: 'a', transport: 'udp', extra: 1 },
    ]) {
      const response = await post(body, session);
      assert.equal(response.status, 400, JSON.stringify(body));
    }
    await assert.rejects(
      GameClient.connect(field, fleet.url, { room: 'field', spectate: true }),
      /no such room \(with spectate, room is the id of a running room, not a room type\)/,
    );
    const missing = await post({ roomId: 'no-such-room', transport: 'udp' }, session);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: string }).error, /no such room/);
    // The backend's per-address rate limit (30 at once, then 10 a second) holds here too.
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => post({ pool: 'solo', transport: 'udp' }, session)),
    );
    const statuses = burst.map((r) => r.status);
    assert.ok(statuses.includes(429), `some refused with 429: ${statuses.join(' ')}`);
    assert.ok(
      statuses.every((status) => status === 429 || status === 404),
      'the rest answered (no room runs)',
    );
  });
});
