/**
 * A room reads what the backend's verifier said of each player (RoomClient.auth, from the seat's
 * auth data): onAuth may refuse on it, onJoin reads it; it stays with the seat through a drop and
 * through the process listing its seats again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { Room, type RoomClient } from '../../src/services/index.js';
import { roomScene } from '../support/room-scene.js';

const connected = (c: { messages: { client: { state: number } } }) =>
  c.messages.client.state === ClientState.Connected;

/** Refuses banned players, greets the others by the name their verifier gave. */
class GuardedRoom extends Room {
  static log: string[] = [];
  static joined: RoomClient[] = [];

  override onAuth(client: RoomClient): boolean | string {
    return client.auth.banned === true ? 'banned' : true;
  }

  override onJoin(client: RoomClient, options: Readonly<Record<string, unknown>>): void {
    const name = typeof client.auth.name === 'string' ? client.auth.name : 'nameless';
    GuardedRoom.log.push(`join ${name} (asked to be ${String(options.name)})`);
    GuardedRoom.joined.push(client);
  }
}

async function guardedScene() {
  const s = await roomScene();
  GuardedRoom.log = [];
  GuardedRoom.joined = [];
  s.server.define('guarded', GuardedRoom, { maxClients: 4, reconnectWindowMs: 3000 });
  const created = await s.server.createRoom('guarded', {});
  assert.ok(created.ok);
  const roomId = created.room.roomId;
  let next = 500n;
  /** Reserves a seat as the backend does for a session with `auth`, and connects with its token. */
  const join = async (userId: string, auth?: Record<string, unknown>, options?: Record<string, unknown>) => {
    const clientId = next++;
    const seatId = `seat-${userId}`;
    const reserved = await s.directory.reserveSeat(roomId, {
      seatId,
      userId,
      clientId: clientId.toString(),
      ttlMs: 10_000,
      ...(auth === undefined ? {} : { auth }),
      ...(options === undefined ? {} : { options }),
    });
    assert.ok(reserved.ok, 'reserved');
    return { client: s.connect(s.token({ roomId, seatId }, clientId)), seatId, clientId };
  };
  return { ...s, roomId, joinGuarded: join };
}

describe('RoomClient.auth: what the verifier said of the player', () => {
  it('onAuth refuses a player by their auth data: disconnected, reason counted, seat released', async () => {
    const s = await guardedScene();
    const eve = await s.joinGuarded('eve', { name: 'Eve', banned: true }, { name: 'Eve' });
    // A join option cannot unban: the room reads the verifier's word, not the player's.
    const mal = await s.joinGuarded('mal', { name: 'Mal', banned: true }, { banned: false });
    const ada = await s.joinGuarded('ada', { name: 'Ada', banned: false });
    await s.run(400);
    assert.ok(!connected(eve.client), 'eve is disconnected');
    assert.ok(!connected(mal.client), 'mal is disconnected');
    assert.ok(connected(ada.client), 'ada plays');
    assert.equal(s.server.stats.refused['auth refused'], 2);
    assert.equal(await s.directory.getSeat(eve.seatId), null, 'a refused seat is released');
    assert.equal(await s.directory.getSeat(mal.seatId), null);
    assert.deepEqual(GuardedRoom.log, ['join Ada (asked to be undefined)']);
    assert.deepEqual(s.errors, []);
  });

  it('onJoin reads the display name from auth, not from the join options; {} when there is none', async () => {
    const s = await guardedScene();
    const ada = await s.joinGuarded(
      'ada',
      { name: 'Ada', rank: 12, cosmetics: { hat: 'crown' } },
      { name: 'Admin' },
    );
    const bob = await s.joinGuarded('bob');
    await s.run(400);
    assert.ok(connected(ada.client) && connected(bob.client));
    assert.deepEqual(GuardedRoom.log.sort(), [
      'join Ada (asked to be Admin)',
      'join nameless (asked to be undefined)',
    ]);
    const [first, second] = GuardedRoom.joined.sort((a, b) => a.userId.localeCompare(b.userId));
    assert.deepEqual(first.auth, { name: 'Ada', rank: 12, cosmetics: { hat: 'crown' } });
    assert.deepEqual(second.auth, {});
    // Read-only, nested values too: a room cannot rewrite what the verifier said.
    assert.throws(() => {
      (first.auth as { name: string }).name = 'Eve';
    }, TypeError);
    assert.throws(() => {
      (first.auth.cosmetics as { hat: string }).hat = 'horns';
    }, TypeError);
    assert.equal(first.auth.name, 'Ada');
  });

  it('a dropped player comes back with the same auth; re-listed seats keep it', async () => {
    const s = await guardedScene();
    const ada = await s.joinGuarded('ada', { name: 'Ada' });
    await s.run(300);
    ada.client.live = false;
    await s.run(1500); // dropped: her seat is held
    assert.equal((await s.directory.getSeat(ada.seatId))?.state, 'held');
    await s.directory.removeProcess(s.server.processId); // as a restarted Redis would have it
    await s.server.heartbeat(); // the process lists its rooms and seats again
    assert.equal(s.server.stats.reregistrations, 1);
    const relisted = await s.directory.getSeat(ada.seatId);
    assert.deepEqual([relisted?.state, relisted?.auth], ['held', { name: 'Ada' }]);
    const back = s.connect(s.token({ roomId: s.roomId, seatId: ada.seatId }, ada.clientId));
    await s.run(300);
    assert.ok(connected(back));
    assert.equal(s.server.stats.reconnections, 1);
    assert.deepEqual(GuardedRoom.joined.length, 1, 'the same client, not a second join');
    assert.deepEqual(GuardedRoom.joined[0].auth, { name: 'Ada' });
  });
});
