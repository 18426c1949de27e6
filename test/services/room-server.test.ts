import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import type { ManagedServer, RoomClient } from '../../src/services/index.js';
import { type CreateRoomReply, processChannel, replyChannel } from '../../src/services/room-requests.js';
import { mirroredRooms, roomScene, Score, TestRoom } from '../support/room-scene.js';

const connected = (c: { messages: { client: { state: number } } }) =>
  c.messages.client.state === ClientState.Connected;

describe('RoomServer: joining with a seat', () => {
  it('a reserved seat joins its room, which replicates its world to the client', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId } = await s.join(room.roomId, 'ann', { colour: 'red' });
    await s.run(300);
    assert.ok(connected(client));
    assert.deepEqual(TestRoom.log, ['a: create', 'a: join ann']);
    assert.equal(room.clients.length, 1);
    assert.deepEqual(room.clients[0].options, { colour: 'red' });
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken');
    assert.deepEqual(mirroredRooms(client), ['a', 'a']); // its banner and its player
    client.messages.send(1, Score, { add: 5 });
    await s.run(200);
    assert.equal(room.score(room.clients[0]), 5);
    assert.equal(s.server.load().clients, 1);
    assert.equal(s.server.load().rooms, 1);
    assert.deepEqual(s.errors, []);
  });

  it('a second use of the same seat is refused, the first player stays', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId } = await s.join(room.roomId, 'ann');
    await s.run(200);
    const thief = s.connect(s.token({ roomId: room.roomId, seatId }));
    await s.run(300);
    assert.ok(!connected(thief), 'the second connection is disconnected');
    assert.ok(connected(client));
    assert.equal(s.server.stats.refused['already used'], 1);
    assert.equal(room.clients.length, 1);
    assert.deepEqual(mirroredRooms(thief), []);
  });

  it('an expired reservation, a token without a claim and a claim for no room are refused with their reasons', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const seat = await s.directory.reserveSeat(room.roomId, {
      seatId: 'late',
      userId: 'bob',
      clientId: '99',
      ttlMs: 500,
    });
    assert.ok(seat.ok);
    await s.run(600);
    const late = s.connect(s.token({ roomId: room.roomId, seatId: 'late' }, 99n));
    const blank = s.connect(s.token(null));
    const lost = s.connect(s.token({ roomId: 'no-such-room', seatId: 'x' }));
    await s.run(300);
    for (const c of [late, blank, lost]) assert.ok(!connected(c));
    assert.deepEqual(s.server.stats.refused, { expired: 1, 'no seat claim': 1, 'no such room': 1 });
    assert.deepEqual(TestRoom.log, ['a: create']);
  });

  it('a full or locked room takes no reservation; a room fuller than its listing refuses the connection', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a', maxClients: 1 });
    await s.join(room.roomId, 'ann');
    await assert.rejects(s.join(room.roomId, 'bob'), /full/);
    const other = await s.create({ tag: 'b' });
    other.lock();
    await s.settle();
    await assert.rejects(s.join(other.roomId, 'bob'), /locked/);
    other.unlock();
    await s.settle();
    await s.join(other.roomId, 'bob');
    await s.run(200);
    // The listing says 3 (drifted), the room itself 1: the room's own count decides.
    await s.directory.updateRoom(room.roomId, { maxClients: 3 });
    const { client } = await s.join(room.roomId, 'cat');
    await s.run(300);
    assert.ok(!connected(client));
    assert.equal(s.server.stats.refused.full, 1);
    assert.equal(room.clients.length, 1);
  });

  it('onAuth refusing a player releases its seat', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId } = await s.join(room.roomId, 'eve', { banned: true });
    await s.run(300);
    assert.ok(!connected(client));
    assert.equal(s.server.stats.refused['auth refused'], 1);
    assert.equal(await s.directory.getSeat(seatId), null);
    assert.deepEqual(TestRoom.log, ['a: create']);
  });

  it('two rooms are isolated: each client mirrors only its own room', async () => {
    const s = await roomScene();
    const a = await s.create({ tag: 'a' });
    const b = await s.create({ tag: 'b' });
    const ann = await s.join(a.roomId, 'ann');
    const bob = await s.join(b.roomId, 'bob');
    const cat = await s.join(b.roomId, 'cat');
    await s.run(400);
    assert.deepEqual(mirroredRooms(ann.client), ['a', 'a']);
    assert.deepEqual(mirroredRooms(bob.client), ['b', 'b', 'b']);
    assert.deepEqual(mirroredRooms(cat.client), ['b', 'b', 'b']);
    assert.equal(s.server.load().clients, 3);
  });
});

describe('RoomServer: leaving and coming back', () => {
  it('a client that disconnects leaves with consent and its seat is released', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId } = await s.join(room.roomId, 'ann');
    await s.run(200);
    client.messages.disconnect();
    await s.run(100);
    assert.deepEqual(TestRoom.log.slice(2), ['a: leave ann true']);
    assert.equal(await s.directory.getSeat(seatId), null);
  });

  it('a room kicking a client from its own message: it leaves with consent, its later messages are dropped', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId } = await s.join(room.roomId, 'ann');
    await s.run(200);
    client.messages.send(1, Score, { add: 100 });
    client.messages.send(1, Score, { add: 1 });
    await s.run(100);
    assert.ok(!connected(client));
    assert.deepEqual(TestRoom.log.slice(2), ['a: leave ann true']);
    assert.equal(await s.directory.getSeat(seatId), null);
    assert.deepEqual(s.errors, []);
  });

  it('a dropped client reconnecting within the window resumes its player, sent the whole world again', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId, clientId } = await s.join(room.roomId, 'ann');
    const other = await s.join(room.roomId, 'bob');
    await s.run(300);
    client.messages.send(1, Score, { add: 7 });
    await s.run(200);
    const seated = room.clients.find((c) => c.userId === 'ann')!;
    assert.equal(room.score(seated), 7);
    client.live = false; // its link dies: the server times it out (token timeout 1 s)
    await s.run(1500);
    assert.deepEqual(TestRoom.log.slice(3), ['a: drop ann']);
    assert.equal((await s.directory.getSeat(seatId))?.state, 'held');
    // The backend issues a new token for the same seat; a new device connects with it.
    const back = s.connect(s.token({ roomId: room.roomId, seatId }, clientId));
    await s.run(400);
    assert.ok(connected(back));
    assert.deepEqual(TestRoom.log.slice(3), ['a: drop ann', 'a: reconnect ann']);
    assert.equal(
      room.clients.find((c) => c.userId === 'ann'),
      seated,
      'the same RoomClient',
    );
    assert.equal(room.score(seated), 7, 'its game state kept');
    // A fresh mirror holds everything: the banner, both players, ann's score.
    assert.deepEqual(mirroredRooms(back), ['a', 'a', 'a']);
    const mine = [...Array(64).keys()]
      .map((id) => back.mirror.ghost(id)?.value as { score?: number } | undefined)
      .find((v) => v?.score === 7);
    assert.ok(mine !== undefined);
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken');
    assert.equal(s.server.stats.reconnections, 1);
    assert.ok(connected(other.client));
  });

  it('after the window the seat is released, onLeave runs unconsented and the seat no longer joins', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId, clientId } = await s.join(room.roomId, 'ann');
    await s.join(room.roomId, 'bob'); // keeps the room alive
    await s.run(300);
    client.live = false;
    await s.run(1500 + 3100);
    assert.deepEqual(TestRoom.log.slice(3), ['a: drop ann', 'a: leave ann false']);
    assert.equal(await s.directory.getSeat(seatId), null);
    const back = s.connect(s.token({ roomId: room.roomId, seatId }, clientId));
    await s.run(300);
    assert.ok(!connected(back));
    assert.equal(s.server.stats.refused['unknown seat'], 1);
  });
});

describe('RoomServer: rooms and the process', () => {
  it('answers a create-room request over pub/sub, refusals with their reason', async () => {
    const s = await roomScene();
    const replies: CreateRoomReply[] = [];
    for (const id of ['r1', 'r2', 'r3'])
      await s.directory.subscribe(replyChannel(id), (m) => replies.push(JSON.parse(m) as CreateRoomReply));
    const channel = processChannel(s.server.processId);
    await s.directory.publish(
      channel,
      JSON.stringify({ kind: 'create-room', requestId: 'r1', name: 'test', options: { tag: 'p' } }),
    );
    await s.directory.publish(
      channel,
      JSON.stringify({ kind: 'create-room', requestId: 'r2', name: 'test', options: { refuse: true } }),
    );
    await s.directory.publish(
      channel,
      JSON.stringify({ kind: 'create-room', requestId: 'r3', name: 'nope', options: {} }),
    );
    await s.directory.publish(channel, '{not json');
    await s.settle();
    replies.sort((x, y) => x.requestId.localeCompare(y.requestId));
    assert.equal(replies.length, 3);
    const [made, refused, unknown] = replies;
    assert.ok(made.ok);
    assert.equal(made.maxClients, 4);
    assert.deepEqual(made.metadata, { tag: 'p' });
    assert.equal((await s.directory.getRoom(made.roomId))?.processId, s.server.processId);
    assert.ok(s.server.room(made.roomId) !== undefined);
    assert.deepEqual(refused, { requestId: 'r2', ok: false, reason: 'refused by onCreate' });
    assert.deepEqual(unknown, { requestId: 'r3', ok: false, reason: 'no room type nope' });
    assert.equal(s.server.stats.badRequests, 1);
  });

  it('an empty room is disposed after its grace, not while a reservation is pending', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const kept = await s.create({ tag: 'k' });
    await s.directory.reserveSeat(kept.roomId, {
      seatId: 'pending',
      userId: 'x',
      clientId: '50',
      ttlMs: 3000,
    });
    await s.run(1900);
    assert.ok(s.server.room(room.roomId) !== undefined);
    await s.run(200);
    assert.equal(s.server.room(room.roomId), undefined);
    assert.equal(await s.directory.getRoom(room.roomId), null);
    assert.ok(s.server.room(kept.roomId) !== undefined, 'a seat reserved keeps it');
    assert.ok(TestRoom.log.includes('a: dispose'));
    await s.run(3000); // the reservation lapsed: disposed a grace later
    assert.equal(s.server.room(kept.roomId), undefined);
  });

  it('a room empty again after its last player left is disposed after its grace', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client } = await s.join(room.roomId, 'ann');
    await s.run(3000);
    assert.ok(s.server.room(room.roomId) !== undefined);
    client.messages.disconnect();
    await s.run(2100);
    assert.equal(s.server.room(room.roomId), undefined);
    assert.deepEqual(TestRoom.log, ['a: create', 'a: join ann', 'a: leave ann true', 'a: dispose']);
  });

  it('registers again with its rooms and seats when the directory forgot it', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const ann = await s.join(room.roomId, 'ann');
    const bob = await s.join(room.roomId, 'bob');
    await s.run(300);
    bob.client.live = false;
    await s.run(1500); // bob dropped: held
    await s.server.heartbeat();
    assert.equal(s.server.stats.reregistrations, 0);
    await s.directory.removeProcess(s.server.processId); // as a restarted Redis would have it
    assert.equal(await s.directory.getRoom(room.roomId), null);
    await s.server.heartbeat();
    assert.equal(s.server.stats.reregistrations, 1);
    const record = await s.directory.getProcess(s.server.processId);
    assert.equal(record?.state, 'ready');
    assert.deepEqual(record?.addresses, { memory: '10.0.0.1:40000' });
    assert.equal((await s.directory.getRoom(room.roomId))?.seats, 2);
    assert.equal((await s.directory.getSeat(ann.seatId))?.state, 'taken');
    assert.equal((await s.directory.getSeat(bob.seatId))?.state, 'held');
    // bob's seat, restored, still takes him back.
    const back = s.connect(s.token({ roomId: room.roomId, seatId: bob.seatId }, bob.clientId));
    await s.run(300);
    assert.ok(connected(back));
    assert.equal(s.server.stats.reconnections, 1);
  });

  it('heartbeats report the load', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    await s.join(room.roomId, 'ann');
    await s.run(500);
    await s.server.heartbeat();
    const record = await s.directory.getProcess(s.server.processId);
    assert.equal(record?.load.rooms, 1);
    assert.equal(record?.load.clients, 1);
    assert.ok(record!.load.tickMs > 0 && record!.load.tickMaxMs >= record!.load.tickMs);
  });

  it('stop tells every client, disposes the rooms and removes the process', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client } = await s.join(room.roomId, 'ann');
    await s.run(300);
    assert.ok(connected(client));
    await s.server.stop();
    await s.run(50);
    assert.equal(client.messages.client.state, ClientState.Disconnected);
    assert.deepEqual(TestRoom.log, ['a: create', 'a: join ann', 'a: leave ann false', 'a: dispose']);
    assert.equal(await s.directory.getProcess(s.server.processId), null);
    assert.equal(await s.directory.getRoom(room.roomId), null);
    assert.equal(s.server.lifecycle, 'stopped');
    const result = await s.server.createRoom('test');
    assert.deepEqual(result, { ok: false, reason: 'the process is stopped' });
  });

  it('drain refuses a timeout that is NaN, negative or infinite, and goes on as it was', async () => {
    const s = await roomScene();
    for (const timeoutMs of [Number.NaN, -1, Number.POSITIVE_INFINITY])
      await assert.rejects(s.server.drain(timeoutMs), RangeError, `${timeoutMs}`);
    assert.equal(s.server.lifecycle, 'ready');
    await s.server.stop();
  });

  it('drain locks the rooms, waits for them to empty, then stops', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client } = await s.join(room.roomId, 'ann');
    await s.run(300);
    const managed: ManagedServer = s.server; // what a process manager's reportToManager drives
    assert.equal(managed.state(), 'ready');
    const drained = managed.drain();
    await s.settle();
    assert.equal(s.server.lifecycle, 'draining');
    assert.equal(managed.state(), 'draining');
    assert.equal((await s.directory.getProcess(s.server.processId))?.state, 'draining');
    assert.equal((await s.directory.getRoom(room.roomId))?.locked, true);
    assert.deepEqual(await s.server.createRoom('test'), { ok: false, reason: 'the process is draining' });
    client.messages.disconnect();
    await s.run(50);
    await drained;
    assert.equal(s.server.lifecycle, 'stopped');
    assert.equal(await s.directory.getProcess(s.server.processId), null);
  });

  it('a room hook that throws disposes of that room only: reported, its client disconnected, the other room goes on', async () => {
    const failures: string[] = [];
    const s = await roomScene({ onRoomFailed: (f) => failures.push(`${f.name} ${f.where}`) });
    class Faulty extends TestRoom {
      override onTick(tick: number): void {
        if (tick === 3) throw new Error('bug at tick 3');
      }
    }
    s.server.define('faulty', Faulty);
    const made = await s.server.createRoom('faulty', { tag: 'f' });
    assert.ok(made.ok);
    const calm = await s.create({ tag: 'c' });
    const { client } = await s.join(made.room.roomId, 'ann');
    const neighbour = await s.join(calm.roomId, 'bob');
    await s.run(500);
    assert.ok(!connected(client), 'the faulty room’s client is disconnected');
    assert.equal(client.messages.client.state, ClientState.Disconnected, 'told, not timed out');
    assert.equal(s.server.room(made.room.roomId), undefined);
    assert.equal(await s.directory.getRoom(made.room.roomId), null);
    assert.equal(made.room.tick, 3, 'no tick after the throw');
    assert.ok(connected(neighbour.client));
    assert.ok(calm.tick > 8);
    assert.equal(s.server.stats.hookErrors, 1);
    assert.equal(s.server.stats.roomsFailed, 1);
    assert.deepEqual(s.errors, ['room faulty onTick: Error: bug at tick 3']);
    assert.deepEqual(failures, ['faulty onTick']);
    assert.ok(TestRoom.log.includes('f: dispose'));
  });

  it('an async room-level hook whose promise rejects fails its room, not the process', async () => {
    const s = await roomScene();
    class Sulky extends TestRoom {
      override onTick(tick: number): Promise<void> | undefined {
        return tick === 5 ? Promise.reject(new Error('async bug')) : undefined;
      }
    }
    s.server.define('sulky', Sulky);
    const made = await s.server.createRoom('sulky', { tag: 's' });
    assert.ok(made.ok);
    const first = await s.join(made.room.roomId, 'ann');
    const second = await s.join(made.room.roomId, 'bob');
    await s.run(400);
    assert.ok(!connected(first.client) && !connected(second.client), 'the room went with its clients');
    assert.equal(s.server.stats.roomsFailed, 1);
    assert.deepEqual(s.errors, ['room sulky onTick: Error: async bug']);
  });

  it('an onAuth that throws on one joiner’s options refuses that joiner only: the room and its players go on', async () => {
    const failures: string[] = [];
    const s = await roomScene({ onRoomFailed: (f) => failures.push(`${f.name} ${f.where}`) });
    class Teams extends TestRoom {
      override onAuth(_client: RoomClient, options: Readonly<Record<string, unknown>>): boolean {
        return (options.team as string).toUpperCase() !== ''; // a game that trusts the join options
      }
    }
    s.server.define('teams', Teams);
    const made = await s.server.createRoom('teams', { tag: 't' });
    assert.ok(made.ok);
    const room = made.room as TestRoom;
    const ann = await s.join(room.roomId, 'ann', { team: 'red' });
    const bob = await s.join(room.roomId, 'bob', { team: 'blue' });
    await s.run(200);
    const mallory = await s.join(room.roomId, 'mallory', {});
    await s.run(300);
    assert.ok(!connected(mallory.client), 'the joiner is refused');
    assert.ok(connected(ann.client) && connected(bob.client), 'the players in the room stay');
    assert.equal(s.server.stats.roomsFailed, 0);
    assert.deepEqual(failures, []);
    assert.equal(s.server.stats.refused['auth refused'], 1);
    assert.equal(s.server.stats.clientHookErrors, 1);
    assert.equal(s.errors.length, 1);
    assert.match(s.errors[0], new RegExp(`^room teams onAuth client ${mallory.seatId}: TypeError`));
    assert.equal(s.server.room(room.roomId), room);
    assert.equal(await s.directory.getSeat(mallory.seatId), null, 'its seat released');
    for (const [end, add] of [
      [ann, 3],
      [bob, 4],
    ] as const)
      end.client.messages.send(1, Score, { add });
    await s.run(200);
    assert.ok(connected(ann.client) && connected(bob.client));
    assert.deepEqual(
      room.clients.map((c) => room.score(c)),
      [3, 4],
    );
  });

  it('an onMessage that throws on one client’s message disconnects that client only: the room and the others go on', async () => {
    const s = await roomScene();
    class Picky extends TestRoom {
      override onMessage(client: RoomClient, message: { value: unknown }): void {
        if ((message.value as { add: number }).add === 13) throw new Error('unlucky message');
        super.onMessage(client, message);
      }
    }
    s.server.define('picky', Picky);
    const made = await s.server.createRoom('picky', { tag: 'p' });
    assert.ok(made.ok);
    const room = made.room as TestRoom;
    const ann = await s.join(room.roomId, 'ann');
    const bob = await s.join(room.roomId, 'bob');
    const cy = await s.join(room.roomId, 'cy');
    await s.run(200);
    bob.client.messages.send(1, Score, { add: 13 });
    bob.client.messages.send(1, Score, { add: 2 });
    await s.run(300);
    assert.equal(bob.client.messages.client.state, ClientState.Disconnected, 'told, not timed out');
    assert.ok(connected(ann.client) && connected(cy.client), 'the others stay');
    assert.equal(s.server.stats.roomsFailed, 0);
    assert.equal(s.server.stats.clientHookErrors, 1, 'its messages after the throw are not delivered');
    assert.deepEqual(s.errors, [`room picky onMessage client ${bob.seatId}: Error: unlucky message`]);
    assert.ok(TestRoom.log.includes('p: leave bob true'), 'it left the room: onLeave ran');
    assert.equal(s.server.room(room.roomId), room);
    ann.client.messages.send(1, Score, { add: 5 });
    cy.client.messages.send(1, Score, { add: 6 });
    await s.run(200);
    assert.ok(connected(ann.client) && connected(cy.client));
    assert.deepEqual(
      room.clients.map((c) => [c.userId, room.score(c)]),
      [
        ['ann', 5],
        ['cy', 6],
      ],
    );
  });

  it('per-client hooks that throw or reject (onJoin, onReconnect, onLeave) cost their client only', async () => {
    const s = await roomScene();
    class Fragile extends TestRoom {
      override onJoin(client: RoomClient): Promise<void> | undefined {
        super.onJoin(client);
        if (client.userId === 'bob') throw new Error('join bug');
        return client.userId === 'cy' ? Promise.reject(new Error('async join bug')) : undefined;
      }
      override onReconnect(client: RoomClient): void {
        throw new Error(`reconnect bug ${client.userId}`);
      }
      override onLeave(client: RoomClient, consented: boolean): void {
        super.onLeave(client, consented);
        throw new Error(`leave bug ${client.userId}`);
      }
    }
    s.server.define('fragile', Fragile);
    const made = await s.server.createRoom('fragile', { tag: 'f' });
    assert.ok(made.ok);
    const room = made.room as TestRoom;
    const ann = await s.join(room.roomId, 'ann');
    const bob = await s.join(room.roomId, 'bob');
    const cy = await s.join(room.roomId, 'cy');
    const dee = await s.join(room.roomId, 'dee');
    await s.run(300);
    assert.ok(connected(ann.client) && connected(dee.client));
    assert.ok(!connected(bob.client) && !connected(cy.client), 'a throwing or rejecting onJoin disconnects');
    // dee's link goes silent: dropped, then back on the same seat; its onReconnect throws.
    dee.client.live = false;
    await s.run(1500);
    assert.ok(TestRoom.log.includes('f: drop dee'));
    const back = s.connect(s.token({ roomId: room.roomId, seatId: dee.seatId }, dee.clientId));
    await s.run(300);
    assert.ok(!connected(back));
    assert.deepEqual(
      room.clients.map((c) => c.userId),
      ['ann'],
    );
    assert.equal(s.server.stats.roomsFailed, 0);
    assert.equal(s.server.room(room.roomId), room);
    assert.deepEqual(
      new Set(s.errors),
      new Set([
        `room fragile onJoin client ${bob.seatId}: Error: join bug`,
        `room fragile onLeave client ${bob.seatId}: Error: leave bug bob`,
        `room fragile onJoin client ${cy.seatId}: Error: async join bug`,
        `room fragile onLeave client ${cy.seatId}: Error: leave bug cy`,
        `room fragile onReconnect client ${dee.seatId}: Error: reconnect bug dee`,
        `room fragile onLeave client ${dee.seatId}: Error: leave bug dee`,
      ]),
    );
    assert.equal(s.server.stats.clientHookErrors, 6);
    ann.client.messages.send(1, Score, { add: 7 });
    await s.run(200);
    assert.ok(connected(ann.client));
    assert.equal(room.score(room.clients[0]), 7);
  });

  it('a throw of the shared MessageServer (no room owns it) is counted and reported, and the rooms go on', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'r' });
    const { client } = await s.join(room.roomId, 'ann');
    await s.run(200);
    const messages = s.server.messages;
    const update = messages.update.bind(messages);
    let faults = 2;
    messages.update = (now: number) => {
      if (faults-- > 0) throw new Error('socket fault');
      update(now);
    };
    const tick = room.tick;
    await s.run(300);
    assert.equal(s.server.stats.frameErrors, 2);
    assert.deepEqual(s.errors, ['update: Error: socket fault'], 'the next frame’s within the second');
    assert.equal(s.server.stats.roomsFailed, 0);
    assert.ok(room.tick > tick + 4, 'the room goes on');
    assert.ok(connected(client));
  });

  it('a persistent throw of the shared MessageServer is reported once a second, naming those not reported', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'r' });
    await s.join(room.roomId, 'ann'); // seated: the room is not disposed as empty meanwhile
    await s.run(100);
    const messages = s.server.messages;
    const update = messages.update.bind(messages);
    let faulty = true;
    messages.update = (now: number) => {
      if (faulty) throw new Error('socket fault');
      update(now);
    };
    const tick = room.tick;
    await s.run(2500); // 250 frames of 10 ms
    faulty = false;
    await s.run(100);
    assert.equal(s.server.stats.frameErrors, 250);
    assert.deepEqual(s.errors, [
      'update: Error: socket fault',
      'update (99 more not reported): Error: socket fault',
      'update (99 more not reported): Error: socket fault',
    ]);
    assert.equal(s.server.stats.roomsFailed, 0);
    assert.ok(room.tick > tick + 50, 'the room goes on');
  });

  it('a room type whose constructor throws is refused like an onCreate that throws', async () => {
    const s = await roomScene();
    class Broken extends TestRoom {
      constructor() {
        super();
        throw new Error('broken constructor');
      }
    }
    s.server.define('broken', Broken);
    assert.deepEqual(await s.server.createRoom('broken'), { ok: false, reason: 'broken constructor' });
    assert.deepEqual(s.errors, ['room broken constructor: Error: broken constructor']);
    assert.equal((await s.server.createRoom('test')).ok, true, 'the process goes on');
  });

  it('misuse throws at the call', async () => {
    const s = await roomScene();
    assert.throws(() => s.server.define('test', TestRoom), /defined already/);
    assert.throws(() => s.server.define('x', TestRoom, { tickRate: 0 }), /tickRate/);
    await assert.rejects(s.server.createRoom('nope'), /no room type nope/);
    await assert.rejects(s.server.start(), /ready/);
  });
});
