/**
 * The join path end to end, with real parts: the HTTP backend on a loopback port, BackendClient,
 * room servers on UDP, netcode clients mirroring their room (room-scene.ts's TestRoom), over a
 * directory chosen by the caller (embedded, or a real redis-server). test/services/services-e2e.test.ts runs
 * it on both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { BackendClient, BackendError } from '../../src/services/index.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import { roomChannel } from '../../src/services/room-channels.js';
import { encodeSeatUserData } from '../../src/services/seat-token.js';
import { toAddress } from '../../src/transport/address.js';
import { factory, PROTOCOL_ID, Score, TestRoom } from './room-scene.js';
import { connected, mirroredPlayers, Players, sleep, stateOf, until } from './services-players.js';

/** Short enough for a test, long enough for a loaded machine. */
export const WINDOW_MS = 2500;
const ROOMS = ['lobby', 'match', 'expiry', 'reuse', 'resume'] as const;

export function joinPathSuite(
  name: string,
  options: { skip?: string | false; redis?: () => Promise<{ url: string; close(): Promise<void> }> },
): void {
  describe(`the join path end to end: ${name}`, { skip: options.skip ?? false }, () => {
    let fleet: LocalFleet;
    let redis: { url: string; close(): Promise<void> } | null = null;
    const errors: string[] = [];
    let players: Players;

    before(async () => {
      players = new Players();
      redis = (await options.redis?.()) ?? null;
      const defaults = { maxClients: 4, tickRate: 20, reconnectWindowMs: WINDOW_MS, emptyDisposeMs: 10_000 };
      fleet = await startLocalFleet({
        rooms: Object.fromEntries(ROOMS.map((room) => [room, { type: TestRoom, defaults }])),
        protocolId: PROTOCOL_ID,
        factory,
        channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
        ...(redis === null ? {} : { redis: redis.url }),
        matchmaking: {
          room: 'match',
          rules: {
            minPlayers: 3,
            maxPlayers: 3,
            fillWaitMs: 60_000,
            skillWindow: { initial: 1000, perSecond: 0, max: 1000 },
          },
          intervalMs: 100,
        },
        server: {
          heartbeatMs: 250,
          ttlMs: 2000,
          onError: (error, where) => errors.push(`${where}: ${error}`),
        },
        backend: { rateLimit: false, timeoutSeconds: 1, tokenSeconds: 2, sweepIntervalMs: 500 },
      });
    });
    after(async () => {
      players?.close();
      await fleet?.close();
      await redis?.close();
    });

    const player = async (who: string) => {
      const client = new BackendClient({ url: fleet.url });
      const me = await client.auth({ name: who });
      return { client, userId: me.userId };
    };
    const server = () => fleet.servers[0];

    it('auth → joinOrCreate → connect → the room’s replicated world, with the join options in the room', async () => {
      const ada = await player('ada');
      const seat = await ada.client.joinOrCreate('lobby', { transport: 'udp', options: { tag: 'lob' } });
      assert.equal(seat.connectToken.length, 2048);
      assert.equal(seat.serverAddress, (await fleet.directory.getProcess(server().processId))?.addresses.udp);
      assert.equal((await fleet.directory.getSeat(seat.seatId))?.state, 'reserved');
      const a = await players.connect(seat.connectToken);
      await until('ada to mirror the banner and her player', 5000, () => mirroredPlayers(a).length === 1);
      assert.deepEqual(mirroredPlayers(a), [{ room: 'lob', seat: 0, score: 0 }]);
      assert.equal((await fleet.directory.getSeat(seat.seatId))?.state, 'taken');
      assert.deepEqual((await fleet.directory.getSeat(seat.seatId))?.options, { tag: 'lob' });
      // A second player is put in the same room, and both see each other; ada's input moves her score.
      const bob = await player('bob');
      const bobSeat = await bob.client.joinOrCreate('lobby', { transport: 'udp' });
      assert.equal(bobSeat.roomId, seat.roomId);
      const b = await players.connect(bobSeat.connectToken);
      a.messages.send(1, Score, { add: 9 });
      await until('both to mirror both players, ada’s score 9', 5000, () =>
        [a, b].every((p) => mirroredPlayers(p).some((g) => g.score === 9) && mirroredPlayers(p).length === 2),
      );
      assert.equal((await fleet.directory.getRoom(seat.roomId))?.seats, 2);
      await until('the heartbeat to report 2 clients', 3000, async () => {
        return (await fleet.directory.getProcess(server().processId))?.load.clients === 2;
      });
    });

    it('matchmaking puts three players into one private room, each on its own seat', async () => {
      const trio = await Promise.all(['cy', 'di', 'ed'].map(player));
      const seats = await Promise.all(
        trio.map((p) => p.client.matchmake({ pool: 'duel', transport: 'udp', pollMs: 50 })),
      );
      assert.equal(new Set(seats.map((s) => s.roomId)).size, 1, 'one room');
      assert.equal(new Set(seats.map((s) => s.seatId)).size, 3, 'three seats');
      assert.equal((await fleet.directory.getRoom(seats[0].roomId))?.private, true);
      const ends = await Promise.all(seats.map((s) => players.connect(s.connectToken)));
      await until('each to mirror all three', 5000, () => ends.every((p) => mirroredPlayers(p).length === 3));
      assert.equal(fleet.matchmaker?.metrics().matches, 1);
      // The real Matchmaker's refusals reach the player as 400 with the reason, never a 500.
      const zed = await player('zed');
      const queue = (pool: string) =>
        fetch(`${fleet.url}/matchmake`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${zed.client.session}` },
          body: JSON.stringify({ pool }),
        });
      assert.equal((await queue('quiet')).status, 200);
      const twice = await queue('quiet');
      assert.deepEqual(
        [twice.status, await twice.json()],
        [400, { error: `user ${zed.userId} already has 1 queued ticket(s)` }],
      );
    });

    it('a reservation that lapses unused is refused: its token expires, and the process refuses its seat', async () => {
      const fay = await player('fay');
      const seat = await fay.client.joinOrCreate('expiry', { transport: 'udp' });
      await sleep(2600); // the seat and the token live tokenSeconds = 2
      const late = await players.connect(seat.connectToken);
      await until('the late client to give up', 5000, () => stateOf(late) < 0);
      assert.equal(connected(late), false);
      // A token that outlives its seat (minted by hand: the backend never does) gets past netcode,
      // and the process refuses the lapsed seat (expired, or already swept: unknown) and disconnects it.
      const refusedBefore = refusedFor(fleet, 'expired') + refusedFor(fleet, 'unknown seat');
      const stale = await players.connect(tokenFor(fleet, seat, 777n));
      await until(
        'the process to refuse the lapsed seat',
        5000,
        () => refusedFor(fleet, 'expired') + refusedFor(fleet, 'unknown seat') > refusedBefore,
      );
      await until('the stale client to be disconnected', 5000, () => stateOf(stale) <= 0);
      assert.equal(await fleet.directory.getSeat(seat.seatId), null);
    });

    it('a seat is used once: its token again from another address, a fresh token for it, the token after a leave', async () => {
      const gus = await player('gus');
      const seat = await gus.client.joinOrCreate('reuse', { transport: 'udp' });
      const first = await players.connect(seat.connectToken);
      await until('the first use to join', 5000, () => mirroredPlayers(first).length === 1);
      // The same token from another address: netcode itself turns it away (a token is bound to
      // the first address that used it).
      const again = await players.connect(seat.connectToken);
      await until('the second use to be turned away', 5000, () => stateOf(again) < 0);
      // A fresh token for the same seat (a replayed backend answer): past netcode, the process
      // refuses the seat as already used.
      const before = refusedFor(fleet, 'already used');
      const copy = await players.connect(tokenFor(fleet, seat, 778n));
      await until(
        'the process to refuse the used seat',
        5000,
        () => refusedFor(fleet, 'already used') > before,
      );
      await until('the copy to be disconnected', 5000, () => stateOf(copy) <= 0);
      assert.ok(connected(first), 'the first use plays on');
      // The player leaves for good (consented): the seat is released; the token, though still
      // within its lifetime, takes nobody in again.
      first.messages.disconnect();
      await until(
        'the seat to be released',
        3000,
        async () => (await fleet.directory.getSeat(seat.seatId)) === null,
      );
      const third = await players.connect(seat.connectToken);
      await until('the third use to be turned away', 5000, () => stateOf(third) < 0);
      assert.equal((await fleet.directory.getRoom(seat.roomId))?.seats, 0);
    });

    it('a dropped player reconnects within the window to the same player state (full resync); after it the seat is gone', async () => {
      const hal = await player('hal');
      const seat = await hal.client.joinOrCreate('resume', { transport: 'udp', options: { tag: 'res' } });
      const h = await players.connect(seat.connectToken);
      await until('hal to join', 5000, () => mirroredPlayers(h).length === 1);
      h.messages.send(1, Score, { add: 7 });
      await until('his score to reach him', 3000, () => mirroredPlayers(h)[0]?.score === 7);
      const before = mirroredPlayers(h)[0];
      players.silence(h); // the link dies: the server times him out (token timeout 1 s)
      await until(
        'the seat to be held',
        5000,
        async () => (await fleet.directory.getSeat(seat.seatId))?.state === 'held',
      );
      const back = await hal.client.reconnect();
      assert.equal(back.seatId, seat.seatId);
      const h2 = await players.connect(back.connectToken);
      await until(
        'the new connection to mirror the room again',
        5000,
        () => mirroredPlayers(h2).length === 1,
      );
      assert.deepEqual(mirroredPlayers(h2), [before], 'the same player entity, score kept, sent whole');
      assert.equal((await fleet.directory.getSeat(seat.seatId))?.state, 'taken');
      // Dropped again, and this time the window passes: the seat is released for good.
      players.silence(h2);
      await until(
        'the seat to be held again',
        5000,
        async () => (await fleet.directory.getSeat(seat.seatId))?.state === 'held',
      );
      await sleep(WINDOW_MS + 500);
      const late = await hal.client.reconnect().catch((error: unknown) => error);
      assert.ok(late instanceof BackendError, String(late));
      assert.deepEqual([late.status, late.roomGone], [404, false]);
      assert.equal(await fleet.directory.getSeat(seat.seatId), null);
      assert.deepEqual(errors, []);
    });
  });
}

/** Connections the fleet's processes refused for `reason`. */
function refusedFor(fleet: LocalFleet, reason: string): number {
  let n = 0;
  for (const server of fleet.servers) n += server.stats.refused[reason] ?? 0;
  return n;
}

/** A fresh connect token for a seat, valid 30 s whatever the seat's state (the backend never mints these). */
function tokenFor(
  fleet: LocalFleet,
  seat: { roomId: string; seatId: string; serverAddress: string },
  clientId: bigint,
) {
  return generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey: fleet.privateKey,
    clientId,
    serverAddresses: [toAddress(seat.serverAddress)],
    now: Math.floor(Date.now() / 1000),
    timeoutSeconds: 1,
    userData: encodeSeatUserData({ roomId: seat.roomId, seatId: seat.seatId }),
  });
}
