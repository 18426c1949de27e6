/**
 * Issue 23 item 1(b): a room whose own code or a layer under it throws is isolated. A fleet on
 * real UDP on loopback (backend, one room server, netcode clients) hosts three rooms; one room's
 * onTick throws, then a layer under another (its replication channel, written inside the
 * process's MessageServer.update) throws. Each broken room is disposed — its client disconnected
 * at once, the error reported to onError and onRoomFailed, a join or reconnect answered 410 with
 * why — while the calm room's player keeps playing and the process keeps serving new rooms.
 * A per-client hook that throws on what a player sent (its join options) costs that player only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CustomChannel } from '../../src/channels/channel.js';
import { ClientState } from '../../src/connection/client.js';
import { ROOM_FAILED } from '../../src/services/backend-refusal.js';
import { BackendClient, BackendError } from '../../src/services/index.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import type { RoomClient } from '../../src/services/room.js';
import { roomChannel } from '../../src/services/room-channels.js';
import type { RoomFailure } from '../../src/services/room-server-options.js';
import { factory, PROTOCOL_ID, Score, TestRoom } from '../support/room-scene.js';
import { connected, mirroredPlayers, Players, sleep, stateOf, until } from '../support/services-players.js';

/** Its onTick throws once armed. */
class TickBug extends TestRoom {
  static armed = false;
  override onTick(): void {
    if (TickBug.armed) throw new Error('game bug in onTick');
  }
}

/** A game that trusts the player's join options: its onAuth throws when `team` is missing. */
class AuthBug extends TestRoom {
  override onAuth(_client: RoomClient, options: Readonly<Record<string, unknown>>): boolean {
    return (options.team as string).toUpperCase() !== '';
  }
}

/** A fault injected in the replication layer: its per-client channel throws as a packet is written, once armed. */
class LayerBug extends TestRoom {
  static armed = false;
  override onCreate(options: Record<string, unknown>): void {
    super.onCreate(options);
    const config = this.channels.get('replication');
    assert.ok(config !== undefined);
    const create = config.create.bind(config);
    config.create = (index: number): CustomChannel => {
      const inner = create(index);
      const select = inner.select.bind(inner);
      inner.select = (now, budgetBits) => {
        if (LayerBug.armed) throw new Error('replication layer fault');
        return select(now, budgetBits);
      };
      return inner;
    };
  }
}

async function refusal(attempt: Promise<unknown>): Promise<BackendError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof BackendError) return error;
    throw error;
  }
  assert.fail('the backend seated it');
}

describe('room isolation over UDP', () => {
  let fleet: LocalFleet;
  let players: Players;
  const errors: string[] = [];
  const failures: RoomFailure[] = [];

  before(async () => {
    players = new Players();
    const defaults = { maxClients: 4, tickRate: 20, reconnectWindowMs: 5000, emptyDisposeMs: 10_000 };
    fleet = await startLocalFleet({
      rooms: {
        calm: { type: TestRoom, defaults },
        tickBug: { type: TickBug, defaults },
        layerBug: { type: LayerBug, defaults },
        authBug: { type: AuthBug, defaults },
      },
      protocolId: PROTOCOL_ID,
      factory,
      channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
      server: {
        heartbeatMs: 250,
        onError: (error, where) => errors.push(`${where}: ${error}`),
        onRoomFailed: (failure) => failures.push(failure),
      },
      backend: { rateLimit: false, timeoutSeconds: 2, tokenSeconds: 5 },
    });
  });
  after(async () => {
    players?.close();
    await fleet?.close();
  });

  /** A player seated in `room`, once it mirrors the `seated` players there (itself included). */
  const player = async (
    who: string,
    room: string,
    tag: string,
    options: Record<string, unknown> = {},
    seated = 1,
  ) => {
    const client = new BackendClient({ url: fleet.url });
    await client.auth({ name: who });
    const seat = await client.joinOrCreate(room, { transport: 'udp', options: { tag, ...options } });
    const end = await players.connect(seat.connectToken);
    await until(`${who} to mirror its room's players`, 10_000, () => mirroredPlayers(end).length === seated);
    return { client, seat, end };
  };

  /** The calm room's player scores `add` and sees it come back in its room's replicated state. */
  const scores = async (ann: Awaited<ReturnType<typeof player>>, add: number) => {
    const before = mirroredPlayers(ann.end)[0].score;
    ann.end.messages.send(1, Score, { add });
    await until(
      'the calm room to replicate the score',
      10_000,
      () => mirroredPlayers(ann.end)[0]?.score === before + add,
    );
  };

  it('disposes of a room whose onTick throws, and of one whose replication layer throws; the neighbour plays on', async () => {
    const ann = await player('ann', 'calm', 'calm');
    const bob = await player('bob', 'tickBug', 'tick');
    const cy = await player('cy', 'layerBug', 'layer');
    const server = fleet.servers[0];
    assert.equal(server.rooms.length, 3);

    TickBug.armed = true;
    await until('bob to be disconnected', 10_000, () => !connected(bob.end));
    assert.equal(stateOf(bob.end), ClientState.Disconnected, 'told by the server, not timed out');
    await scores(ann, 3);

    LayerBug.armed = true;
    await until('cy to be disconnected', 10_000, () => !connected(cy.end));
    assert.equal(stateOf(cy.end), ClientState.Disconnected, 'told by the server, not timed out');

    // The neighbour keeps playing for some seconds: connected, its inputs replicated back.
    for (let i = 0; i < 6; i++) {
      await scores(ann, 1 + i);
      await sleep(300);
    }
    assert.ok(connected(ann.end));
    assert.equal(mirroredPlayers(ann.end)[0].score, 3 + 21);

    assert.deepEqual(
      failures.map((f) => [f.roomId, f.name, f.where, String(f.error)]),
      [
        [bob.seat.roomId, 'tickBug', 'onTick', 'Error: game bug in onTick'],
        [cy.seat.roomId, 'layerBug', 'channel replication', 'Error: replication layer fault'],
      ],
    );
    assert.ok(errors.includes('room tickBug onTick: Error: game bug in onTick'), errors.join('\n'));
    assert.ok(errors.includes('room layerBug channel replication: Error: replication layer fault'));
    assert.equal(server.stats.roomsFailed, 2);
    assert.equal(server.stats.frameErrors, 0);
    assert.deepEqual(
      server.rooms.map((r) => r.name),
      ['calm'],
    );
    assert.equal(await fleet.directory.getRoom(bob.seat.roomId), null);

    // Asking the backend again, bob and cy hear why their room went.
    const again = await refusal(bob.client.reconnect());
    assert.deepEqual([again.status, again.reason], [410, ROOM_FAILED]);
    const join = await refusal(cy.client.join(cy.seat.roomId, { transport: 'udp' }));
    assert.deepEqual([join.status, join.reason], [410, ROOM_FAILED]);

    // The process lives on and takes new rooms of the same types.
    TickBug.armed = false;
    LayerBug.armed = false;
    assert.equal(server.lifecycle, 'ready');
    const dee = await player('dee', 'tickBug', 'tick2');
    await scores(dee, 5);
    assert.ok(connected(ann.end));
  });

  it('a join whose options make onAuth throw refuses that player only: the room and its players go on', async () => {
    const server = fleet.servers[0];
    const failed = failures.length;
    const hookErrors = server.stats.clientHookErrors;
    const eve = await player('eve', 'authBug', 'auth', { team: 'red' });
    const fay = await player('fay', 'authBug', 'auth', { team: 'blue' }, 2);
    assert.equal(fay.seat.roomId, eve.seat.roomId);

    const mallory = new BackendClient({ url: fleet.url });
    await mallory.auth({ name: 'mallory' });
    const seat = await mallory.join(eve.seat.roomId, { transport: 'udp', options: {} });
    const end = await players.connect(seat.connectToken);
    // Refused: let in by netcode, then disconnected by the room server (told, not timed out).
    await until('mallory to be refused', 10_000, () => stateOf(end) === ClientState.Disconnected);
    assert.ok(connected(eve.end) && connected(fay.end), 'the players in the room stay');
    assert.equal(failures.length, failed, 'no room failed');

    // Both score; each sees the room's total come back.
    const total = (p: typeof eve) => mirroredPlayers(p.end).reduce((sum, q) => sum + q.score, 0);
    eve.end.messages.send(1, Score, { add: 2 });
    fay.end.messages.send(1, Score, { add: 3 });
    for (const p of [eve, fay]) await until('the room to replicate the scores', 10_000, () => total(p) === 5);
    assert.ok(connected(eve.end) && connected(fay.end));
    assert.ok(server.room(eve.seat.roomId) !== undefined);
    assert.equal(server.stats.clientHookErrors, hookErrors + 1);
    assert.ok(
      errors.some((e) => e.startsWith(`room authBug onAuth client ${seat.seatId}: TypeError`)),
      errors.join('\n'),
    );
    // The room is not announced gone: a player with good options still joins it.
    const gus = await player('gus', 'authBug', 'auth', { team: 'green' }, 3);
    assert.equal(gus.seat.roomId, eve.seat.roomId);
  });
});
