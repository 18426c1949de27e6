import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  controlFactory,
  Departure,
  DepartureQuery,
  DepartureReply,
  LatenessReport,
  Lost,
  Welcome,
} from '../../src/lockstep/control-messages.js';
import { LocalPeerLinks } from '../../src/lockstep/local-peer-links.js';
import { LockstepCore, MAX_EVENTS } from '../../src/lockstep/lockstep-core.js';
import type { LockstepEvent } from '../../src/lockstep/lockstep-options.js';
import { LockstepSession } from '../../src/lockstep/lockstep-session.js';
import { NEVER } from '../../src/lockstep/membership.js';
import { PeerConnection } from '../../src/lockstep/peer-connection.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { EvilChannel, list, lists, MARKED_X, mirror, scene } from '../support/lockstep-hostile-scene.js';
import { Order, type OrderValue } from '../support/rts-sim.js';
import { testSeed } from '../support/seed.js';

/**
 * A member that abuses departures, joins and the peer index range: it cannot get an honest peer
 * counted out on its word, forge a departing peer's commands past what that peer could have sent,
 * or make a session throw. (test/p2p/lockstep-hostile.test.ts: lists, floods and garbage.)
 */
const SEED = testSeed('lockstep hostile departures');
const DELAY = 2;

function events(session: LockstepSession<OrderValue>): LockstepEvent[] {
  const out: LockstepEvent[] = [];
  for (let e = session.pollEvent(); e !== null; e = session.pollEvent()) out.push(e);
  return out;
}

function warmUp(s: ReturnType<typeof scene>, turns: number): void {
  for (let i = 0; i < 400 && Math.min(s.sessions[0].turn, s.sessions[1].turn) < turns; i++)
    s.step(() => s.honest());
  assert.ok(
    Math.min(s.sessions[0].turn, s.sessions[1].turn) >= turns,
    `turns ${s.sessions.map((x) => x.turn)}`,
  );
}

const refused = (s: ReturnType<typeof scene>, evil: number) =>
  s.sessions.map((x) => x.stats().peers[evil].refused);

/** Peer 0's session core with peer 1 on a memory network that nothing drives: for its queues alone. */
function loneCore(members?: number[]): LockstepCore<OrderValue> {
  const network = new MemoryNetwork();
  const transports = [0, 1].map(() => network.createTransport());
  const links = new LocalPeerLinks({
    transport: transports[0],
    self: 0,
    addresses: transports.map((t) => t.localAddress),
  });
  return new LockstepCore<OrderValue>({
    links,
    command: Order,
    seed: 1,
    ...(members === undefined ? {} : { members }),
    game: { executeTurn() {}, checksum: () => 0 },
  });
}

describe('LockstepSession departures against a hostile member', () => {
  it('takes a lost peer’s forwarded lists only from a survivor it asked, no further than that peer could have sent', () => {
    const s = scene(SEED);
    mirror(s);
    warmUp(s, 40);
    const host = s.sessions[0];
    const ran = host.turn;
    const before = host.stats().peers[2].refused;
    // The attacker (2) says peer 1 is lost, then "forwards" 59 turns of peer 1's orders and replies.
    s.attacker.channels.send(0, Lost, { peer: 1, reason: 'timedOut' });
    s.step(() => s.honest());
    const ws = new WriteStream(2048);
    const order = { first: 3, count: 5, x: MARKED_X, y: 9 };
    for (let turn = ran + 1; turn < ran + 60; turn++) {
      ws.reset();
      lists.write(ws, list(turn, [order]));
      s.attacker.channels.send(0, s.Forward, { peer: 1, turn, list: ws.finish().slice() });
    }
    s.attacker.channels.send(0, DepartureReply, { peer: 1, last: ran + 59, executed: ran });
    for (let i = 0; i < 100; i++) s.step(() => s.honest());
    const left = events(host).find((e) => e.kind === 'left');
    assert.ok(left?.kind === 'left' && left.peer === 1, JSON.stringify(left));
    // Peer 1 could not have sealed a list past the host's newest + delay: nothing later is taken.
    assert.ok(left.afterTurn <= ran + 4 * DELAY, `1 leaves after ${left.afterTurn}, the host had run ${ran}`);
    assert.ok(
      host.stats().peers[2].refused >= before + 50,
      `${host.stats().peers[2].refused - before} refused`,
    );
    assert.match(host.stats().lastRefusal ?? '', /forwarded by peer 2/);
    // (Within that bound a member's word for a lost peer's lists is taken: nothing signs them.)
    assert.ok(s.marked[0] <= 2 * DELAY, `${s.marked[0]} forged orders ran`);
  });

  it('refuses a departure of the host from the next in line, and one after a turn already run', () => {
    // Peer 1, second in line, attacks; peers 0 (the host) and 2 are honest.
    const s = scene(SEED, 1);
    mirror(s);
    warmUp(s, 30);
    const [host, other] = s.sessions;
    let before = refused(s, 1);
    s.attacker.channels.send(0, Departure, { peer: 0, afterTurn: host.turn + 5, reason: 'left' });
    for (let i = 0; i < 10; i++) s.step(() => s.honest());
    assert.deepEqual(
      refused(s, 1),
      before.map((n) => n + 1),
    );
    assert.equal(host.status.state, 'running', 'the host was not removed');
    assert.deepEqual(other.members, [0, 1, 2]);
    assert.deepEqual(
      events(other).filter((e) => e.kind === 'left'),
      [],
    );
    // The host goes: peer 2 loses it and tells peer 1, now acting host, which names a turn already run.
    host.close();
    for (let i = 0; i < 5; i++) s.step(() => s.honest());
    before = refused(s, 1);
    s.attacker.channels.send(0, Departure, { peer: 0, afterTurn: 3, reason: 'left' });
    for (let i = 0; i < 10; i++) s.step();
    assert.equal(refused(s, 1)[1], before[1] + 1);
    assert.match(other.stats().lastRefusal ?? '', /already ran/);
    assert.deepEqual(other.members, [0, 1, 2]);
  });
});

describe('LockstepSession: a member that sends different lists to different peers', () => {
  it('is named after the desync it causes (lists differ for that peer at that turn)', () => {
    const s = scene(SEED, 2, true);
    warmUp(s, 20);
    const turn = Math.max(s.sessions[0].turn, s.sessions[1].turn) + 4;
    const order = { first: 1, count: 2, x: 100, y: 200 };
    s.step(() => {
      s.evil.lists(turn, [list(turn, [order])]);
      s.evil2.lists(turn, [list(turn)]);
    });
    for (let i = 0; i < 100; i++) s.step(() => s.honest());
    for (const session of s.sessions) {
      const all = events(session);
      assert.ok(
        all.some((e) => e.kind === 'desync'),
        JSON.stringify(all),
      );
      const differ = all.filter((e) => e.kind === 'listsDiffer');
      assert.deepEqual(
        differ.map((e) => e.kind === 'listsDiffer' && [e.turn, e.peer]),
        [[turn, 2]],
        JSON.stringify(all),
      );
    }
  });
});

describe('LockstepSession: peer indices past the session and unanswered queues', () => {
  it('refuses a host list joining a peer past maxPeers and a query about one, without throwing', () => {
    // Peer 0, the host, attacks peers 1 and 2.
    const s = scene(SEED, 0);
    mirror(s);
    warmUp(s, 20);
    let before = refused(s, 0);
    // For a turn none of its lists covered yet (the honest ones reach 3 turns past the slower peer).
    const turn = Math.max(s.sessions[0].turn, s.sessions[1].turn) + 4;
    const bad = list(turn);
    bad.controls.push({ kind: 'join', peer: 5, fromTurn: turn + 4 });
    s.step(() => s.evil.lists(turn, [bad]));
    for (let i = 0; i < 5; i++) s.step(() => s.honest());
    assert.ok(
      refused(s, 0).every((n, i) => n > before[i]),
      `${refused(s, 0)} vs ${before}`,
    );
    assert.match(s.sessions.map((x) => x.stats().lastRefusal).join(), /peer 5/);
    before = refused(s, 0);
    s.attacker.channels.send(0, DepartureQuery, { peer: 5, from: 0 });
    s.attacker.channels.send(0, Lost, { peer: 63, reason: 'left' });
    for (let i = 0; i < 10; i++) s.step(() => s.honest());
    assert.deepEqual(
      refused(s, 0),
      before.map((n) => n + 2),
    );
    for (const x of s.sessions) assert.deepEqual(x.members, [0, 1, 2]);
    const at = s.sessions[1].turn;
    for (let i = 0; i < 100; i++) s.step(() => s.honest());
    assert.ok(s.sessions[1].turn > at + 10, 'the session went on');
  });

  it('a joiner answers queries only from the members its welcome names, and never throws on a full queue', () => {
    const network = new MemoryNetwork();
    const transports = [0, 1].map(() => network.createTransport());
    const addresses = transports.map((t) => t.localAddress);
    const links = transports.map((transport, self) => new LocalPeerLinks({ transport, self, addresses }));
    const joiner = new LockstepSession<OrderValue>({
      links: links[1],
      command: Order,
      seed: 1,
      joining: true,
      maxCommandsPerTurn: 10,
      game: { executeTurn() {}, checksum: () => 0, saveState: () => new Uint8Array(1), loadState() {} },
    });
    const { factory } = controlFactory(100);
    const attacker = new PeerConnection(
      links[0],
      1,
      {
        factory,
        channels: [{ kind: 'reliable-ordered', sendQueueSize: 4096 }, { kind: 'reliable-ordered' }],
      },
      0,
    );
    let now = 0;
    for (let step = 0; step < 1500; step++) {
      now += 0.02;
      if (step >= 20 && step < 26)
        for (let i = 0; i < 400; i++) attacker.channels.send(0, DepartureQuery, { peer: 0, from: 0 });
      joiner.update(now);
      links[0].update(now);
      links[0].receive(() => {}); // never acks what the joiner sends
      attacker.update(now);
    }
    assert.equal(joiner.status.state, 'joining');
    // Every query that arrived was refused, none answered (before: ~800 replies queued, never acked).
    assert.ok(joiner.stats().peers[0].refused >= 500, `${joiner.stats().peers[0].refused} refused`);
    assert.equal(joiner.stats().messagesDropped, 0);
    assert.match(joiner.stats().lastRefusal ?? '', /not a member of the welcome/);
  });

  it('a joiner takes a welcome only from the host its table names, and only the first', () => {
    const network = new MemoryNetwork();
    const transports = [0, 1, 2].map(() => network.createTransport());
    const addresses = transports.map((t) => t.localAddress);
    const links = transports.map((transport, self) => new LocalPeerLinks({ transport, self, addresses }));
    const loaded: number[] = [];
    const joiner = new LockstepSession<OrderValue>({
      links: links[2],
      command: Order,
      seed: 1,
      joining: true,
      maxCommandsPerTurn: 10,
      game: {
        executeTurn() {},
        checksum: () => 0,
        saveState: () => new Uint8Array(1),
        loadState: (bytes) => loaded.push(bytes[0]),
      },
    });
    const { factory } = controlFactory(100);
    const attacker = new PeerConnection(
      links[0],
      2,
      {
        factory,
        channels: [{ kind: 'reliable-ordered' }, { kind: 'custom', create: () => new EvilChannel() }],
      },
      0,
    );
    const welcome = (host: number) => ({
      turn: 10,
      fromTurn: 14,
      turnMs: 100,
      random: 5,
      // The host is the earliest member: peer `host` joined at 2, the other at 3.
      joinTurns: [host === 0 ? 2 : 3, host === 0 ? 3 : 2, 14],
      leaveAfters: [NEVER, NEVER, NEVER],
    });
    let now = 0;
    const run = (steps: number) => {
      for (let i = 0; i < steps; i++) {
        now += 0.02;
        joiner.update(now);
        links[0].update(now);
        links[0].receive((_peer, data) => attacker.receivePacket(data));
        attacker.update(now);
      }
    };
    // Peer 0 sends a welcome whose own table makes peer 1 the host, then its "state".
    attacker.channels.send(0, Welcome, welcome(1));
    attacker.channels.sendBlock(0, new Uint8Array([66]));
    run(10);
    assert.equal(joiner.status.state, 'joining');
    assert.deepEqual(loaded, []);
    assert.equal(joiner.stats().peers[0].refused, 2, 'the welcome and its block');
    assert.match(joiner.stats().lastRefusal ?? '', /snapshot without a welcome/);
    // A welcome from the host the table names is taken; a second one before its state is not.
    attacker.channels.send(0, Welcome, welcome(0));
    attacker.channels.send(0, Welcome, { ...welcome(0), random: 9 });
    attacker.channels.sendBlock(0, new Uint8Array([77]));
    run(100);
    assert.equal(joiner.stats().peers[0].refused, 3);
    assert.match(joiner.stats().lastRefusal ?? '', /second welcome/);
    assert.deepEqual(loaded, [77], `${joiner.stats().lastRefusal} ${joiner.status.state}`);
    assert.equal(joiner.random.state, 5);
    assert.notEqual(joiner.status.state, 'joining', 'it started from the snapshot');
  });

  it('drops and counts control messages to a peer whose reliable queue is full (it never acks)', () => {
    const core = loneCore([0, 1]);
    // A LatenessReport a second to a host that never acks fills 1,024 slots in about 17 minutes.
    let sent = 0;
    for (let i = 0; i < 1100; i++) if (core.send(1, LatenessReport, { ms: 10 })) sent++;
    assert.equal(sent, 1024);
    assert.equal(core.messagesDropped, 76);
  });

  it('keeps at most MAX_EVENTS unpolled events, dropping the oldest and counting them', () => {
    const core = loneCore();
    for (let turn = 0; turn < MAX_EVENTS + 44; turn++)
      core.pushEvent({ kind: 'turnLength', turn, turnMs: 100 });
    assert.equal(core.eventsDropped, 44);
    const turns: number[] = [];
    for (let e = core.pollEvent(); e !== null; e = core.pollEvent())
      if (e.kind === 'turnLength') turns.push(e.turn);
    assert.equal(turns.length, MAX_EVENTS);
    assert.equal(turns[0], 44);
    assert.equal(turns.at(-1), MAX_EVENTS + 43);
  });
});
