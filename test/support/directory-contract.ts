/**
 * What every Directory must do, run against each implementation: processes, rooms, seats (races
 * leave one winner); the queue and pub/sub in -queue.ts; in -copies.ts, callers cannot alter what
 * is stored; in -counts.ts, seat counts follow lapses; in -auth.ts, a seat's auth data is kept. A
 * subject gives the directory, a peer on its store (another process) and its clock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type Directory,
  PROCESS_GONE,
  type ProcessGone,
  type ProcessRecord,
  type RoomListing,
} from '../../src/services/directory.js';
import { authContract } from './directory-contract-auth.js';
import { copiesContract } from './directory-contract-copies.js';
import { countsContract } from './directory-contract-counts.js';
import { limitsContract } from './directory-contract-limits.js';
import { peerSessionContract } from './directory-contract-peers.js';
import { queueContract } from './directory-contract-queue.js';
import { until as waitUntil } from './until.js';

export interface ContractSubject {
  directory: Directory;
  /** Another directory on the same store (the same one where there is only one process). */
  peer: Directory;
  /** Lets `ms` of directory time pass. */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface ContractOptions {
  /** A TTL short enough to wait out, long enough for a few calls to finish within it. */
  ttlMs: number;
  skip?: string | false;
}

export type MakeSubject = () => Promise<ContractSubject>;

export const LOAD = { rooms: 0, clients: 0, tickMs: 0.5, tickMaxMs: 1.25 };

export function processRecord(processId: string): ProcessRecord {
  return {
    processId,
    machine: 'machine-a',
    addresses: { udp: '127.0.0.1:40000', websocket: '127.0.0.1:40001' },
    state: 'ready',
    maxRooms: 8,
    load: { ...LOAD },
    heartbeatAt: 0,
  };
}

export function roomListing(roomId: string, processId: string, maxClients = 4) {
  return {
    roomId,
    name: 'duel',
    processId,
    maxClients,
    locked: false,
    private: false,
    metadata: { map: 'dust', ranked: true, level: 3 },
  } satisfies Omit<RoomListing, 'seats' | 'createdAt'>;
}

export function seatRequest(seatId: string, ttlMs: number) {
  return { seatId, userId: `user-${seatId}`, clientId: '12345678901234567890', ttlMs };
}

/** Polls until `condition` holds (messages arrive asynchronously); fails after `ms`. */
export function until(condition: () => boolean, what: string, ms = 2000): Promise<void> {
  return waitUntil(what, ms, condition);
}

/** Every test runs on a fresh subject; `context` gives the current one. */
export interface ContractContext {
  readonly subject: ContractSubject;
  readonly ttlMs: number;
}

export function directoryContract(name: string, make: MakeSubject, options: ContractOptions): void {
  describe(`Directory contract: ${name}`, { skip: options.skip ?? false }, () => {
    let current: ContractSubject | null = null;
    const context: ContractContext = {
      get subject() {
        assert.ok(current !== null);
        return current;
      },
      ttlMs: options.ttlMs,
    };
    beforeEach(async () => {
      current = await make();
    });
    afterEach(async () => {
      await current?.close();
      current = null;
    });
    processContract(context);
    seatContract(context);
    queueContract(context);
    peerSessionContract(context);
    copiesContract(context);
    countsContract(context);
    authContract(context);
    limitsContract(context);
  });
}

function processContract(ctx: ContractContext): void {
  it('registers a process, lists it, and renews it by heartbeat', async () => {
    const { directory, peer } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 10_000);
    const got = await peer.getProcess('p1');
    assert.ok(got !== null);
    assert.deepEqual({ ...got, heartbeatAt: 0 }, processRecord('p1'));
    assert.ok(got.heartbeatAt > 0, 'heartbeatAt comes from the directory clock');
    assert.equal(await directory.getProcess('p2'), null);
    const load = { rooms: 2, clients: 7, tickMs: 1.5, tickMaxMs: 3.75 };
    assert.equal(await directory.heartbeat('p1', 'draining', load, 10_000), true);
    const listed = await peer.listProcesses();
    assert.equal(listed.length, 1);
    assert.equal(listed[0].state, 'draining');
    assert.deepEqual(listed[0].load, load);
    assert.equal(await directory.heartbeat('p2', 'ready', LOAD, 10_000), false);
    await assert.rejects(directory.heartbeat('p1', 'ready', LOAD, 0), RangeError);
    await assert.rejects(directory.registerProcess(processRecord('p1'), Number.NaN), RangeError);
  });

  it('lets a record lapse without heartbeats; heartbeat then says to register again', async () => {
    const { directory, elapse } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), ctx.ttlMs);
    await directory.registerProcess(processRecord('p2'), ctx.ttlMs * 10);
    await elapse(ctx.ttlMs / 2);
    assert.equal(await directory.heartbeat('p1', 'ready', LOAD, ctx.ttlMs), true);
    await elapse(ctx.ttlMs * 0.6); // past its first lapse, within the renewed one
    assert.ok((await directory.getProcess('p1')) !== null, 'the heartbeat renewed it');
    await elapse(ctx.ttlMs);
    assert.equal(await directory.getProcess('p1'), null);
    assert.deepEqual(
      (await directory.listProcesses()).map((p) => p.processId),
      ['p2'],
    );
    assert.equal(await directory.heartbeat('p1', 'ready', LOAD, ctx.ttlMs), false);
    await directory.registerProcess(processRecord('p1'), ctx.ttlMs * 10);
    assert.equal(await directory.heartbeat('p1', 'ready', LOAD, ctx.ttlMs * 10), true);
  });

  it('sweeps a lapsed process once: its rooms and seats go, PROCESS_GONE is published once', async () => {
    const { directory, peer, elapse } = ctx.subject;
    const gone: ProcessGone[] = [];
    await peer.subscribe(PROCESS_GONE, (message) => gone.push(JSON.parse(message)));
    await directory.registerProcess(processRecord('p1'), ctx.ttlMs);
    await directory.registerProcess(processRecord('p2'), ctx.ttlMs * 20);
    assert.equal(await directory.createRoom(roomListing('r1', 'p1')), true);
    assert.equal(await directory.createRoom(roomListing('r2', 'p1')), true);
    assert.equal(await directory.createRoom(roomListing('r3', 'p2')), true);
    assert.equal((await directory.reserveSeat('r1', seatRequest('s1', ctx.ttlMs * 20))).ok, true);
    await elapse(ctx.ttlMs * 2);
    assert.ok((await directory.getRoom('r1')) !== null, 'rooms stay until swept');
    // Several sweepers at once (every backend sweeps): the process is removed and announced once.
    const swept = await Promise.all([directory.sweep(), peer.sweep(), directory.sweep(), peer.sweep()]);
    assert.deepEqual(swept.flat(), ['p1']);
    await until(() => gone.length >= 1, 'PROCESS_GONE');
    assert.equal(gone[0].processId, 'p1');
    assert.equal(gone[0].reason, 'lapsed');
    assert.deepEqual([...gone[0].roomIds].sort(), ['r1', 'r2']);
    assert.equal(await directory.getRoom('r1'), null);
    assert.equal(await directory.getSeat('s1'), null);
    assert.deepEqual(
      (await directory.findRooms({})).map((r) => r.roomId),
      ['r3'],
    );
    assert.deepEqual(await directory.sweep(), []);
    // Anything published after the one announcement arrives after it: a second one would be seen.
    const marker: string[] = [];
    await peer.subscribe('marker', (message) => marker.push(message));
    await directory.publish('marker', 'm');
    await until(() => marker.length === 1, 'the marker');
    assert.equal(gone.length, 1);
  });

  it('removes a process cleanly: its rooms go, PROCESS_GONE says removed, once', async () => {
    const { directory, peer } = ctx.subject;
    const gone: ProcessGone[] = [];
    await peer.subscribe(PROCESS_GONE, (message) => gone.push(JSON.parse(message)));
    await directory.registerProcess(processRecord('p1'), 10_000);
    await directory.createRoom(roomListing('r1', 'p1'));
    await Promise.all([directory.removeProcess('p1'), peer.removeProcess('p1')]);
    await directory.removeProcess('never-there');
    await until(() => gone.length >= 1, 'PROCESS_GONE');
    assert.deepEqual(gone[0], { processId: 'p1', roomIds: ['r1'], reason: 'removed' });
    assert.equal(await directory.getProcess('p1'), null);
    assert.equal(await directory.getRoom('r1'), null);
    const marker: string[] = [];
    await peer.subscribe('marker', (message) => marker.push(message));
    await directory.publish('marker', 'm');
    await until(() => marker.length === 1, 'the marker');
    assert.equal(gone.length, 1);
  });

  it('registering again after a lapse drops what the old record owned', async () => {
    const { directory, elapse } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), ctx.ttlMs);
    await directory.createRoom(roomListing('r1', 'p1'));
    await elapse(ctx.ttlMs * 2);
    await directory.registerProcess(processRecord('p1'), ctx.ttlMs * 20);
    assert.equal(await directory.getRoom('r1'), null);
    assert.deepEqual(await directory.sweep(), []);
    assert.ok((await directory.getProcess('p1')) !== null);
  });

  it('lists, finds, updates and removes rooms', async () => {
    const { directory, peer } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 10_000);
    await directory.registerProcess(processRecord('p2'), 10_000);
    assert.equal(await directory.createRoom(roomListing('r1', 'p1', 2)), true);
    assert.equal(await peer.createRoom(roomListing('r1', 'p2')), false, 'the id is taken');
    assert.equal(await directory.createRoom(roomListing('r9', 'nobody')), false, 'unknown process');
    await directory.createRoom({ ...roomListing('r2', 'p2'), name: 'race' });
    await directory.createRoom({ ...roomListing('r3', 'p2'), private: true });
    await directory.createRoom({ ...roomListing('r4', 'p2'), locked: true });
    const r1 = await peer.getRoom('r1');
    assert.ok(r1 !== null);
    assert.deepEqual({ ...r1, createdAt: 0 }, { ...roomListing('r1', 'p1', 2), seats: 0, createdAt: 0 });
    assert.ok(r1.createdAt > 0);
    assert.equal(await directory.getRoom('nope'), null);
    const ids = async (rooms: Promise<RoomListing[]>) => (await rooms).map((room) => room.roomId).sort();
    assert.deepEqual(await ids(peer.findRooms({})), ['r1', 'r2', 'r3', 'r4']);
    assert.deepEqual(await ids(peer.findRooms({ name: 'duel' })), ['r1', 'r3', 'r4']);
    assert.deepEqual(await ids(peer.findRooms({ processId: 'p2' })), ['r2', 'r3', 'r4']);
    assert.deepEqual(await ids(peer.findRooms({ name: 'duel', processId: 'p2' })), ['r3', 'r4']);
    assert.deepEqual(await ids(peer.findRooms({ joinable: true })), ['r1', 'r2']);
    await directory.reserveSeat('r1', seatRequest('a', 10_000));
    await directory.reserveSeat('r1', seatRequest('b', 10_000));
    assert.equal((await peer.getRoom('r1'))?.seats, 2);
    assert.deepEqual(await ids(peer.findRooms({ joinable: true })), ['r2'], 'r1 is full');
    assert.equal(await directory.updateRoom('r1', { maxClients: 3, metadata: { map: 'inferno' } }), true);
    assert.equal(await directory.updateRoom('r2', { locked: true }), true);
    assert.equal(await directory.updateRoom('nope', { locked: true }), false);
    assert.deepEqual(await ids(peer.findRooms({ joinable: true })), ['r1']);
    const updated = await peer.getRoom('r1');
    assert.deepEqual([updated?.maxClients, updated?.metadata], [3, { map: 'inferno' }]);
    await assert.rejects(directory.createRoom(roomListing('r5', 'p1', Number.NaN)), RangeError);
    await assert.rejects(directory.updateRoom('r1', { maxClients: 2.5 }), RangeError);
    await directory.removeRoom('r1');
    await directory.removeRoom('r1');
    assert.equal(await peer.getRoom('r1'), null);
    assert.equal(await peer.getSeat('a'), null, "a removed room's seats go with it");
  });
}

function seatContract(ctx: ContractContext): void {
  async function room(maxClients: number): Promise<void> {
    await ctx.subject.directory.registerProcess(processRecord('p1'), 60_000);
    await ctx.subject.directory.createRoom(roomListing('r1', 'p1', maxClients));
  }

  it('reserves a seat, refusing an unknown room, a taken id, a locked or full room', async () => {
    const { directory, peer } = ctx.subject;
    await room(2);
    const reserved = await directory.reserveSeat('r1', seatRequest('s1', 10_000));
    assert.ok(reserved.ok);
    const { expiresAt, ...rest } = reserved.seat;
    assert.deepEqual(rest, {
      seatId: 's1',
      roomId: 'r1',
      processId: 'p1',
      userId: 'user-s1',
      clientId: '12345678901234567890',
      state: 'reserved',
    });
    assert.deepEqual(await peer.getSeat('s1'), reserved.seat);
    assert.equal(await peer.getSeat('s9'), null);
    assert.deepEqual(await peer.reserveSeat('r1', seatRequest('s1', 10_000)), {
      ok: false,
      reason: 'seat exists',
    });
    assert.deepEqual(await peer.reserveSeat('r9', seatRequest('s2', 10_000)), {
      ok: false,
      reason: 'no such room',
    });
    assert.equal((await peer.reserveSeat('r1', seatRequest('s2', 10_000))).ok, true);
    assert.deepEqual(await peer.reserveSeat('r1', seatRequest('s3', 10_000)), { ok: false, reason: 'full' });
    await directory.releaseSeat('s2');
    await directory.releaseSeat('s2');
    assert.equal(await peer.getSeat('s2'), null);
    await directory.updateRoom('r1', { locked: true });
    assert.deepEqual(await peer.reserveSeat('r1', seatRequest('s3', 10_000)), {
      ok: false,
      reason: 'locked',
    });
    await directory.updateRoom('r1', { locked: false });
    assert.equal((await peer.reserveSeat('r1', seatRequest('s3', 10_000))).ok, true);
    await assert.rejects(directory.reserveSeat('r1', seatRequest('s4', -1)), RangeError);
  });

  it('gives exactly maxClients of 50 simultaneous reservations', async () => {
    const { directory, peer } = ctx.subject;
    await room(10);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? directory : peer).reserveSeat('r1', seatRequest(`s${i}`, 10_000)),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 10);
    assert.ok(results.every((r) => r.ok || r.reason === 'full'));
    assert.equal((await directory.getRoom('r1'))?.seats, 10);
  });

  it('refuses a room whose process lapsed', async () => {
    const { directory, elapse } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), ctx.ttlMs);
    await directory.createRoom(roomListing('r1', 'p1'));
    await elapse(ctx.ttlMs * 2);
    assert.deepEqual(await directory.reserveSeat('r1', seatRequest('s1', 10_000)), {
      ok: false,
      reason: 'no such room',
    });
  });

  it('takes a seat once, in its own room only', async () => {
    const { directory, peer } = ctx.subject;
    await room(4);
    await directory.createRoom(roomListing('r2', 'p1'));
    await directory.reserveSeat('r1', seatRequest('s1', 10_000));
    assert.deepEqual(await peer.consumeSeat('s1', 'r2'), { ok: false, reason: 'wrong room' });
    assert.deepEqual(await peer.consumeSeat('s9', 'r1'), { ok: false, reason: 'unknown seat' });
    const both = await Promise.all([directory.consumeSeat('s1', 'r1'), peer.consumeSeat('s1', 'r1')]);
    const won = both.filter((r) => r.ok);
    assert.equal(won.length, 1);
    assert.deepEqual(
      both.find((r) => !r.ok),
      { ok: false, reason: 'already used' },
    );
    assert.ok(won[0].ok);
    assert.equal(won[0].seat.state, 'taken');
    assert.equal(won[0].seat.expiresAt, Number.POSITIVE_INFINITY);
    assert.deepEqual(await peer.getSeat('s1'), won[0].seat);
  });

  it('lets a reservation expire: it cannot be taken and no longer counts', async () => {
    const { directory, peer, elapse } = ctx.subject;
    await room(1);
    assert.equal((await directory.reserveSeat('r1', seatRequest('s1', ctx.ttlMs))).ok, true);
    assert.deepEqual(await peer.reserveSeat('r1', seatRequest('s2', ctx.ttlMs)), {
      ok: false,
      reason: 'full',
    });
    await elapse(ctx.ttlMs * 1.5);
    assert.deepEqual(await peer.consumeSeat('s1', 'r1'), { ok: false, reason: 'expired' });
    assert.equal(await directory.getSeat('s1'), null);
    assert.equal((await directory.getRoom('r1'))?.seats, 0);
    assert.equal((await peer.reserveSeat('r1', seatRequest('s2', 10_000))).ok, true);
  });

  it('holds a dropped client’s seat for its reconnection, then lets it lapse', async () => {
    const { directory, peer, elapse } = ctx.subject;
    await room(1);
    await directory.reserveSeat('r1', seatRequest('s1', 10_000));
    assert.equal(await directory.holdSeat('s1', 10_000), false, 'only a taken seat is held');
    assert.equal((await directory.consumeSeat('s1', 'r1')).ok, true);
    assert.equal(await peer.holdSeat('s1', ctx.ttlMs), true);
    assert.equal(await peer.holdSeat('s1', ctx.ttlMs), false, 'already held');
    assert.equal((await peer.getSeat('s1'))?.state, 'held');
    const back = await directory.consumeSeat('s1', 'r1');
    assert.ok(back.ok, 'the client came back within the window');
    assert.equal(back.seat.state, 'taken');
    assert.equal(await peer.holdSeat('s1', ctx.ttlMs), true);
    assert.deepEqual(await peer.reserveSeat('r1', seatRequest('s2', 10_000)), { ok: false, reason: 'full' });
    await elapse(ctx.ttlMs * 1.5);
    assert.equal(await directory.getSeat('s1'), null);
    assert.equal((await peer.reserveSeat('r1', seatRequest('s2', 10_000))).ok, true);
    await assert.rejects(directory.holdSeat('s2', Number.POSITIVE_INFINITY), RangeError);
  });

  it('keeps a seat’s join options through reservation, taking, holding and restoring', async () => {
    const { directory, peer } = ctx.subject;
    await room(4);
    const options = { team: 'red', level: 3, flags: [true, null], nested: { a: 'b' } };
    const reserved = await directory.reserveSeat('r1', { ...seatRequest('s1', 10_000), options });
    assert.ok(reserved.ok);
    assert.deepEqual(reserved.seat.options, options);
    options.team = 'blue'; // the directory kept its own copy
    assert.deepEqual((await peer.getSeat('s1'))?.options?.team, 'red');
    const taken = await peer.consumeSeat('s1', 'r1');
    assert.ok(taken.ok);
    assert.deepEqual(taken.seat.options, { ...options, team: 'red' });
    assert.equal(await directory.holdSeat('s1', 10_000), true);
    assert.deepEqual((await peer.getSeat('s1'))?.options, { ...options, team: 'red' });
    const restored = { ...taken.seat, seatId: 's2', options: { team: 'green' } };
    assert.equal(await peer.restoreSeat(restored), true);
    assert.deepEqual(await directory.getSeat('s2'), restored);
    const plain = await directory.reserveSeat('r1', seatRequest('s3', 10_000));
    assert.ok(plain.ok);
    assert.equal('options' in plain.seat, false, 'a seat without options has none');
    assert.equal('options' in ((await peer.getSeat('s3')) ?? {}), false);
  });

  it('restores the seats a process knows into its room, and into no other, past maxClients', async () => {
    const { directory, peer } = ctx.subject;
    await room(2);
    await directory.registerProcess(processRecord('p2'), 60_000);
    await directory.createRoom(roomListing('r2', 'p2'));
    const taken = {
      seatId: 's1',
      roomId: 'r1',
      processId: 'p1',
      userId: 'u1',
      clientId: '7',
      state: 'taken' as const,
      expiresAt: Number.POSITIVE_INFINITY,
    };
    assert.equal(await peer.restoreSeat(taken), true);
    assert.deepEqual(await directory.getSeat('s1'), taken);
    const reserved = await directory.reserveSeat('r1', seatRequest('s2', 10_000));
    assert.ok(reserved.ok);
    const held = { ...reserved.seat, state: 'held' as const };
    assert.equal(await peer.restoreSeat(held), true);
    assert.deepEqual(await directory.getSeat('s2'), held);
    assert.equal((await directory.getRoom('r1'))?.seats, 2);
    assert.equal(await peer.restoreSeat({ ...taken, seatId: 's3', roomId: 'r2' }), false, 'r2 is not p1’s');
    assert.equal(await peer.restoreSeat({ ...taken, seatId: 's3', roomId: 'r9' }), false, 'no such room');
    assert.equal(await directory.getSeat('s3'), null);
    assert.deepEqual(await directory.consumeSeat('s1', 'r1'), { ok: false, reason: 'already used' });
    assert.equal(await peer.restoreSeat({ ...taken, seatId: 's4', expiresAt: 0 }), true);
    assert.deepEqual(await directory.getSeat('s4'), { ...taken, seatId: 's4' }, 'taken: expiresAt Infinity');
    await assert.rejects(peer.restoreSeat({ ...held, seatId: 's5', expiresAt: Number.NaN }), RangeError);
  });
}
