/**
 * From the backend to a running game: players matched in a peer pool over real HTTP connect
 * through the rendezvous over real UDP (SecurePeerLinks) and play a short session, ending with
 * the same game state everywhere. Inputs are random (seeded: GW_SEED replays a run).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BackendClient } from '../../src/join/backend-client.js';
import { DeterministicRandom } from '../../src/lockstep/deterministic-random.js';
import type { LockstepEvent } from '../../src/lockstep/lockstep-options.js';
import { LockstepSession } from '../../src/lockstep/lockstep-session.js';
import type { RollbackGame } from '../../src/lockstep/rollback-options.js';
import { RollbackSession } from '../../src/lockstep/rollback-session.js';
import type { RollbackEvent } from '../../src/lockstep/rollback-stats.js';
import type { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { stateChecksum } from '../../src/lockstep/state-checksum.js';
import { t } from '../../src/schema/schema.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import { matchPeers, noteFactory, openLinks, peerRules } from '../support/matched-peers.js';
import { testSeed } from '../support/seed.js';
import { until } from '../support/until.js';

const SEED = testSeed('peer-matchmaking-sessions');
const PROTOCOL = 0x7065_6572_6573_73n;

let fleet: LocalFleet | null = null;
async function theFleet(): Promise<LocalFleet> {
  fleet ??= await startLocalFleet({
    rooms: {},
    protocolId: PROTOCOL,
    factory: noteFactory,
    rendezvous: true,
    matchmaking: { peerPools: { duel: peerRules(2), rts: peerRules(4) }, intervalMs: 30 },
  });
  return fleet;
}
after(async () => {
  await fleet?.close();
});

const Pad = t.object({ move: t.int(-3, 3), fire: t.bool() });
type PadValue = { move: number; fire: boolean };

/** Two fighters: positions, health and the shared PRNG in one Int32Array; checksums by frame. */
class Fighters implements RollbackGame<PadValue, Int32Array> {
  readonly state = new Int32Array([0, 100, 50, 50, 7]);
  private readonly rng = new DeterministicRandom(7);
  /** The checksum of the state after each frame ran (a rollback overwrites it). */
  readonly after: number[] = [];

  save(_frame: number, reuse: Int32Array | undefined): Int32Array {
    const copy = reuse ?? new Int32Array(this.state.length);
    copy.set(this.state);
    return copy;
  }
  load(saved: Int32Array): void {
    this.state.set(saved);
  }
  advance(inputs: readonly PadValue[], frame: number): void {
    const s = this.state;
    this.rng.state = s[4] >>> 0;
    for (let p = 0; p < 2; p++) {
      s[p] += inputs[p].move;
      if (inputs[p].fire) s[3 - p] -= 1 + this.rng.nextInt(3);
    }
    s[4] = this.rng.state | 0;
    this.after[frame] = this.checksum(s);
  }
  checksum(state: Int32Array): number {
    return stateChecksum(new Uint8Array(state.buffer, state.byteOffset, state.byteLength));
  }
}

const Order = t.object({ unit: t.uint8(), dx: t.int(-8, 8), dy: t.int(-8, 8) });
type OrderValue = { unit: number; dx: number; dy: number };

/** 256 units on a 1024² field, moved by orders and a shared random drift; checksums by turn. */
class Skirmish {
  readonly units = new Int32Array(512);
  readonly after: number[] = [];
  session: LockstepSession<OrderValue> | null = null;

  executeTurn(turn: number, commands: readonly (readonly OrderValue[])[]): void {
    const u = this.units;
    for (const orders of commands)
      for (const o of orders) {
        u[2 * o.unit] = (u[2 * o.unit] + o.dx) & 1023;
        u[2 * o.unit + 1] = (u[2 * o.unit + 1] + o.dy) & 1023;
      }
    const random = this.session!.random;
    const drifting = random.nextInt(256);
    u[2 * drifting] = (u[2 * drifting] + random.nextInt(3) - 1) & 1023;
    this.after[turn] = this.checksum();
  }
  checksum(): number {
    return stateChecksum(new Uint8Array(this.units.buffer));
  }
  // Methods, as a game class writes them: the session calls them on the game.
  saveState(): Uint8Array {
    return new Uint8Array(this.units.buffer.slice(0));
  }
  loadState(bytes: Uint8Array): void {
    this.units.set(new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
  }
}

/** Runs sessions on a timer, each peer ordering now and then; events kept by position. */
function drive(sessions: LockstepSession<OrderValue>[], events: LockstepEvent[][]) {
  const started = performance.now();
  const orders = new DeterministicRandom(SEED);
  const timer = setInterval(() => {
    const now = (performance.now() - started) / 1000;
    for (const [i, s] of sessions.entries()) {
      if (s.status.state === 'running' && s.queued < 2 && orders.nextInt(3) === 0)
        s.queue({ unit: orders.nextInt(256), dx: orders.nextInt(17) - 8, dy: orders.nextInt(17) - 8 });
      s.update(now);
      events[i] ??= [];
      for (let e = s.pollEvent(); e !== null; e = s.pollEvent()) events[i].push(e);
    }
  }, 5);
  return () => clearInterval(timer);
}

describe('matched peers play a session over SecurePeerLinks and real UDP', () => {
  it('4 players matched in a peer pool run a LockstepSession to identical checksums every turn', async () => {
    const f = await theFleet();
    const seats = await matchPeers([f.url, f.url, f.url, f.url], 'rts');
    const opened = await openLinks(seats);
    const turns = 300;
    // Every peer derives the shared seed from what the backend told all of them alike.
    const seed = Number(seats[0].sessionId & 0xffff_ffffn);
    const games = seats.map(() => new Skirmish());
    const sessions = opened.links.map((links, i) => {
      const session = new LockstepSession<OrderValue>({
        links,
        command: Order,
        game: games[i],
        seed,
        turnMs: 20,
        adaptTurnMs: false,
      });
      games[i].session = session;
      return session;
    });
    const orders = opened.links.map((l) => new DeterministicRandom((SEED + l.self * 0x9e3779b9) >>> 0));
    const events: LockstepEvent[][] = sessions.map(() => []);
    const started = performance.now();
    const timer = setInterval(() => {
      const now = (performance.now() - started) / 1000;
      for (const [i, s] of sessions.entries()) {
        const rng = orders[i];
        if (s.status.state === 'running' && s.queued < 2 && rng.nextInt(3) === 0)
          s.queue({ unit: rng.nextInt(256), dx: rng.nextInt(17) - 8, dy: rng.nextInt(17) - 8 });
        s.update(now);
        for (let e = s.pollEvent(); e !== null; e = s.pollEvent()) events[i].push(e);
      }
    }, 5);
    try {
      await until(`4 peers past turn ${turns}`, 20_000, () => sessions.every((s) => s.turn >= turns));
    } finally {
      clearInterval(timer);
      for (const s of sessions) s.close();
      opened.close();
    }
    for (const e of events)
      assert.deepEqual(
        e.filter((x) => x.kind === 'desync'),
        [],
      );
    for (const g of games.slice(1)) assert.deepEqual(g.after.slice(0, turns), games[0].after.slice(0, turns));
    assert.ok(
      sessions.every((s) => s.stats().commandsQueued > 0),
      'every peer gave orders',
    );
  });

  it('a friend joins a running LockstepSession late by id: a snapshot from the host, then the same turns', async () => {
    const f = await theFleet();
    const clients = await Promise.all(
      ['host', 'ann', 'late'].map(async (name) => {
        const client = new BackendClient({ url: f.url });
        await client.auth({ name });
        return client;
      }),
    );
    const hosted = await clients[0].createPeerSession(3);
    const first = [hosted, await clients[1].joinPeerSession(hosted.sessionId)];
    const seed = Number(hosted.sessionId & 0xffff_ffffn);
    const games = [new Skirmish(), new Skirmish(), new Skirmish()];
    const sessions: LockstepSession<OrderValue>[] = [];
    const events: LockstepEvent[][] = [];
    const opened = [await openLinks(first)];
    const start = (links: SecurePeerLinks, game: Skirmish, joining: boolean) => {
      const session = new LockstepSession<OrderValue>({
        links,
        command: Order,
        game,
        seed,
        turnMs: 20,
        adaptTurnMs: false,
        ...(joining ? { joining } : { members: [0, 1] }),
      });
      game.session = session;
      sessions.push(session);
    };
    for (const [i, links] of opened[0].links.entries()) start(links, games[i], false);
    const stop = drive(sessions, events);
    try {
      await until('the first two past turn 60', 10_000, () => sessions.every((s) => s.turn >= 60));
      const late = await clients[2].joinPeerSession(hosted.sessionId);
      assert.equal(late.peer, 2);
      opened.push(await openLinks([late]));
      start(opened[1].links[0], games[2], true);
      await until(
        'the late one started',
        10_000,
        () => events[2]?.some((e) => e.kind === 'started') === true,
      );
      const started = events[2].find((e) => e.kind === 'started') as { turn: number };
      const to = started.turn + 100;
      await until(`all three past turn ${to}`, 10_000, () => sessions.every((s) => s.turn >= to));
      assert.deepEqual(games[1].after.slice(0, to), games[0].after.slice(0, to));
      // The joiner ran from the snapshot on: every turn since is the others'.
      assert.equal(games[2].after[started.turn], undefined);
      assert.deepEqual(
        games[2].after.slice(started.turn + 1, to),
        games[0].after.slice(started.turn + 1, to),
      );
      assert.deepEqual(sessions[0].members, [0, 1, 2]);
      for (const e of events)
        assert.deepEqual(
          e.filter((x) => x.kind === 'desync'),
          [],
        );
    } finally {
      stop();
      for (const s of sessions) s.close();
      for (const o of opened) o.close();
    }
  });

  it('2 players matched in a peer pool run a RollbackSession to identical states', async () => {
    const f = await theFleet();
    const seats = await matchPeers([f.url, f.url], 'duel');
    const opened = await openLinks(seats);
    const frames = 240;
    const frameRate = 120;
    const games = opened.links.map(() => new Fighters());
    const sessions = opened.links.map(
      (links, i) =>
        new RollbackSession({
          links,
          input: Pad,
          initialInput: { move: 0, fire: false },
          game: games[i],
          frameRate,
        }),
    );
    const inputs = opened.links.map((l) => new DeterministicRandom((SEED ^ (l.self * 0x9e3779b9)) >>> 0));
    const events: RollbackEvent[][] = sessions.map(() => []);
    const started = performance.now();
    const timer = setInterval(() => {
      const now = (performance.now() - started) / 1000;
      for (const [i, s] of sessions.entries()) {
        if (s.frame < frames + 30) {
          const rng = inputs[i];
          s.addLocalInput({ move: rng.nextInt(7) - 3, fire: rng.nextInt(4) === 0 });
          s.advanceFrame();
        }
        s.update(now);
        for (let e = s.pollEvent(); e !== null; e = s.pollEvent()) events[i].push(e);
      }
    }, 1000 / frameRate);
    try {
      await until(`both peers past frame ${frames} with it confirmed`, 15_000, () =>
        sessions.every((s) => s.frame >= frames + 30 && s.confirmedFrame >= frames + 20),
      );
    } finally {
      clearInterval(timer);
      for (const s of sessions) s.close();
      opened.close();
    }
    for (const e of events) assert.equal(e.filter((x) => x.kind === 'desync').length, 0);
    assert.deepEqual(games[0].after.slice(0, frames), games[1].after.slice(0, frames));
    assert.notEqual(games[0].state[2] + games[0].state[3], 100, 'the inputs changed the game');
  });
});
