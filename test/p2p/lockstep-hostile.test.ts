import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Departure, DepartureQuery, Welcome } from '../../src/lockstep/control-messages.js';
import { LocalPeerLinks } from '../../src/lockstep/local-peer-links.js';
import { LockstepSession } from '../../src/lockstep/lockstep-session.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { list, scene } from '../support/lockstep-hostile-scene.js';
import { Order } from '../support/rts-sim.js';
import { testSeed } from '../support/seed.js';

/**
 * A member that misbehaves, and a caller that misuses the API. Peers 0 and 1 run real sessions;
 * peer 2 is a hand-driven member that writes whatever lists it likes into its packets, sends
 * control messages only a host may send, garbage and floods. The two stay identical throughout
 * and count every refusal; the caller's mistakes throw a RangeError at the call.
 */
const SEED = testSeed('lockstep hostile');

describe('LockstepSession against a hostile member', () => {
  it('refuses lists out of turn, over the limit, host-only messages from a member, garbage and floods', () => {
    const s = scene(SEED);
    // peer 1 gets the attacker's lists through its own connection to peer 2: mirror every datagram.
    const { links } = s;
    const send = links[2].send.bind(links[2]);
    links[2].send = (peer, data) => {
      send(peer, data);
      if (peer === 0) send(1, data);
    };
    const order = { first: 3, count: 5, x: 100, y: 200 };
    for (let i = 0; i < 200 && s.sessions[0].turn < 40; i++) s.step(() => s.honest(new Map([[20, [order]]])));
    assert.ok(s.sessions[0].turn >= 40 && s.sessions[1].turn >= 40, `turns ${s.sessions.map((x) => x.turn)}`);
    for (const m of s.fromTwo) assert.deepEqual([...m], [[20, 1]], 'the member’s order ran at its turn');

    // A list for a turn already run, carrying an order: a redundant copy, never run.
    const stale = () => s.sessions[0].stats().peers[2].staleLists;
    const staleBefore = stale();
    s.step(() => s.evil.lists(10, [list(10, [order])]));
    s.step(() => s.honest());
    assert.ok(stale() > staleBefore);
    // Far in the future: the whole packet is refused, with the reason.
    const refused = () => s.sessions.map((x) => x.stats().peers[2].refused);
    let before = refused();
    s.step(() => s.evil.lists(s.sessions[0].turn + 500, [list(s.sessions[0].turn + 500, [order])]));
    s.step(() => s.honest());
    assert.deepEqual(
      refused(),
      before.map((n) => n + 1),
    );
    assert.match(s.sessions[0].stats().lastRefusal!, /too far ahead/);
    // More commands than a turn may hold (the count field's spare values).
    before = refused();
    s.step(() => {
      s.evil.write = (ws) => {
        ws.bool(true);
        ws.uint32(s.sessions[0].turn + 3);
        ws.int(0, 0, 63);
        ws.bool(true);
        ws.bits(15, 4); // 16 commands: over maxCommandsPerTurn (10)
      };
    });
    s.step(() => s.honest());
    assert.deepEqual(
      refused(),
      before.map((n) => n + 1),
    );
    // Host-only control messages from a member that is not the host.
    before = refused();
    s.attacker.channels.send(0, Departure, { peer: 1, afterTurn: 5, reason: 'left' });
    s.attacker.channels.send(0, DepartureQuery, { peer: 1, from: 0 });
    s.attacker.channels.send(0, Welcome, {
      turn: 1,
      fromTurn: 5,
      turnMs: 100,
      random: 0,
      joinTurns: [],
      leaveAfters: [],
    });
    s.attacker.channels.sendBlock(0, new Uint8Array(100));
    for (let i = 0; i < 10; i++) s.step(() => s.honest());
    assert.equal(refused()[0], before[0] + 4, s.sessions[0].stats().lastRefusal ?? '');
    assert.deepEqual(s.sessions[0].members, [0, 1, 2]);
    // Garbage datagrams, then a flood: refused and rate-limited, counted, never thrown.
    const random = prng(SEED);
    before = refused();
    for (let i = 0; i < 20; i++) send(0, randomBytes(random, 1 + Math.floor(random() * 60)));
    s.step(() => s.honest());
    // A random datagram may also pass for a stale, duplicate or empty packet: none throws or runs.
    assert.ok(refused()[0] >= before[0] + 5, `${refused()[0] - before[0]} of 20 refused`);
    // (The memory transport keeps about a thousand of them; the rest past 200 a second are dropped unread.)
    for (let i = 0; i < 2000; i++) send(0, randomBytes(random, 8));
    for (let i = 0; i < 20; i++) s.step(() => s.honest());
    assert.ok(
      s.sessions[0].stats().peers[2].flooded > 500,
      `${s.sessions[0].stats().peers[2].flooded} flooded`,
    );
    // Through all of it the two honest peers ran the same turns with the same orders.
    const turn = s.sessions[0].turn;
    for (let i = 0; i < 300 && Math.min(s.sessions[0].turn, s.sessions[1].turn) < turn + 30; i++)
      s.step(() => s.honest());
    // Unless the garbage, sent on the attacker's own unprotected stream (LocalPeerLinks), passed for
    // packets far ahead and made its real ones stale: then the honest peers stall on the attacker, as
    // lockstep must on a member whose lists stop (seed 305); they never blame each other.
    if (s.sessions[1].turn < turn + 30)
      assert.deepEqual(
        s.sessions[0].status.waitingFor,
        [2],
        `the session neither went on nor waits for the attacker (GW_SEED=${SEED})`,
      );
    for (const x of s.sessions) assert.equal(x.stats().desyncs, 0);
    for (const m of s.fromTwo) assert.deepEqual([...m], [[20, 1]], 'no stale or refused order ran');
  });
});

describe('LockstepSession misuse', () => {
  const links = () => {
    const network = new MemoryNetwork();
    const transports = [0, 1].map(() => network.createTransport());
    const addresses = transports.map((tr) => tr.localAddress);
    return new LocalPeerLinks({ transport: transports[0], self: 0, addresses });
  };
  const game = { executeTurn() {}, checksum: () => 0 };

  it('throws a RangeError at the call for bad options, bad commands, a full turn and time going back', () => {
    const make = (extra: object) =>
      new LockstepSession({ links: links(), command: Order, seed: 1, game, ...extra });
    assert.throws(() => make({ turnMs: 5 }), RangeError);
    assert.throws(() => make({ delay: 0 }), RangeError);
    assert.throws(() => make({ delay: 17 }), RangeError);
    assert.throws(() => make({ members: [0, 7] }), RangeError);
    assert.throws(() => make({ maxCommandsPerTurn: 256 }), RangeError);
    assert.throws(() => make({ seed: -1 }), RangeError);
    assert.throws(
      () => make({ command: t.object({ blob: t.bytes(200) }), maxCommandsPerTurn: 16 }),
      RangeError,
    );
    const session = make({ maxCommandsPerTurn: 3 });
    assert.throws(() => session.queue({ first: -1, count: 1, x: 0, y: 0 }), RangeError);
    assert.throws(() => session.queue({ first: 0, count: 65, x: 0, y: 0 }), RangeError);
    for (let i = 0; i < 3; i++) session.queue({ first: i, count: 1, x: 0, y: 0 });
    assert.throws(() => session.queue({ first: 0, count: 1, x: 0, y: 0 }), /maxCommandsPerTurn/);
    session.update(1);
    assert.throws(() => session.update(0.5), RangeError);
    assert.throws(() => session.update(Number.NaN), RangeError);
    session.close();
    assert.throws(() => session.queue({ first: 0, count: 1, x: 0, y: 0 }), RangeError);
    session.update(2); // closed: nothing happens, nothing throws
    assert.equal(session.status.state, 'closed');
  });
});
