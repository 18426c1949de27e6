import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomChannel } from '../../src/channels/channel.js';
import { defineMessage, MessageFactory } from '../../src/channels/index.js';
import { LocalPeerLinks } from '../../src/lockstep/local-peer-links.js';
import { PeerConnection } from '../../src/lockstep/peer-connection.js';
import type { RollbackGame } from '../../src/lockstep/rollback-options.js';
import { RollbackSession } from '../../src/lockstep/rollback-session.js';
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { ArenaGame, ArenaInput, type ArenaInputValue, IDLE } from '../support/rollback-game.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('rollback hostile tests');
const codec = compile(ArenaInput);

/** A channel that writes whatever the test sets, once: a peer speaking the rollback entry by hand. */
class HandWritten implements CustomChannel {
  next: ((ws: WriteStream) => void) | null = null;
  private readonly scratch = new WriteStream(2048);
  select(): number {
    if (this.next === null) return 0;
    this.scratch.reset();
    this.next(this.scratch);
    return this.scratch.bitsProcessed;
  }
  writeSelected(ws: WriteStream): void {
    this.next?.(ws);
    this.next = null;
  }
  read(): boolean {
    return true; // what the session sends back is ignored
  }
  apply(): void {}
  acked(): void {}
}

interface Entry {
  frame: number;
  first?: number;
  inputs?: ArenaInputValue[];
  /** The count field as written (default inputs.length). */
  count?: number;
  checksums?: [number, number][];
  /** Peers the sender's links lost and its last frame of each. */
  departures?: [number, number][];
}

/** The rollback entry's layout (src/lockstep/rollback-channel.ts). */
function writeEntry(ws: WriteStream, e: Entry): void {
  ws.uint32(e.frame);
  ws.int(0, -128, 127);
  const inputs = e.inputs ?? [];
  if (ws.bool(e.first !== undefined)) {
    ws.uint32(e.first ?? 0);
    ws.bits((e.count ?? inputs.length) - 1, 6);
    inputs.forEach((input, i) => {
      if (i === 0 || !ws.bool(false)) codec.write(ws, input);
    });
  }
  const sums = e.checksums ?? [];
  ws.bits(sums.length, 2);
  for (const [frame, sum] of sums) {
    ws.uint32(frame);
    ws.uint32(sum);
  }
  const departures = e.departures ?? [];
  if (ws.bool(departures.length > 0)) {
    ws.bits(departures.length - 1, 6);
    for (const [peer, last] of departures) {
      ws.bits(peer, 6);
      ws.uint32(last + 1);
    }
  }
}

function hostileScene() {
  const network = new MemoryNetwork();
  const transports = [network.createTransport(), network.createTransport()];
  const addresses = transports.map((tr) => tr.localAddress);
  const session = new RollbackSession({
    links: new LocalPeerLinks({ transport: transports[0], self: 0, addresses, timeout: 5 }),
    input: ArenaInput,
    initialInput: IDLE,
    game: new ArenaGame(2),
  });
  const links = new LocalPeerLinks({ transport: transports[1], self: 1, addresses, timeout: 5 });
  const hand = new HandWritten();
  const factory = new MessageFactory([defineMessage('unused', t.bool())]);
  const connection = new PeerConnection(
    links,
    0,
    { factory, channels: [{ kind: 'custom', create: () => hand }] },
    0,
  );
  let tick = 0;
  const step = (entry?: Entry) => {
    tick++;
    const now = tick / 60;
    if (entry !== undefined) hand.next = (ws) => writeEntry(ws, entry);
    links.update(now);
    links.receive((_peer, data) => connection.receivePacket(data));
    connection.update(now);
    session.addLocalInput(IDLE);
    session.advanceFrame();
    session.update(now);
  };
  return { session, links, step, peer: () => session.stats.peers[1] };
}

const move = (dx: number): ArenaInputValue => ({ dx, dy: 0, fire: false });

describe('RollbackSession against a hostile peer', () => {
  it('refuses whole packets with bad frames, gaps, changed inputs and bad checksums, counting each reason', () => {
    const { session, step, peer } = hostileScene();
    step();
    step({ frame: 1, first: 2, inputs: [move(1), move(1), move(-1), move(0)] });
    step();
    assert.equal(session.state, 'running');
    assert.equal(peer().lastInputFrame, 5);
    const cases: [Entry, string][] = [
      [{ frame: 1_000_000 }, 'frameTooFarAhead'],
      [{ frame: 2, first: 10, inputs: [move(1)] }, 'inputGap'],
      [{ frame: 2, first: 3, inputs: [move(0)] }, 'confirmedInputChanged'],
      [{ frame: 2, first: 6, inputs: new Array(60).fill(move(1)) }, 'frameTooFarAhead'],
      [{ frame: 2, checksums: [[7, 1234]] }, 'badChecksumFrame'],
      [{ frame: 2, first: 6, count: 10, inputs: [] }, 'malformed'],
      [{ frame: 2, departures: [[5, 3]] }, 'malformed'],
      [{ frame: 2, departures: [[1, 1_000_000]] }, 'frameTooFarAhead'],
    ];
    for (const [entry, reason] of cases) {
      const before = { ...peer().refused };
      step(entry);
      step();
      assert.equal(
        peer().refused[reason as keyof typeof before],
        before[reason as keyof typeof before] + 1,
        reason,
      );
      assert.equal(peer().lastInputFrame, 5, `${reason}: nothing of the packet was applied`);
    }
    // Resending held inputs unchanged is the redundancy: fine, and the new ones are taken.
    step({ frame: 3, first: 2, inputs: [move(1), move(1), move(-1), move(0), move(1)] });
    step();
    assert.equal(peer().lastInputFrame, 6);
    assert.equal(session.stats.desyncs, 0);
    // Saying that we, or the sender itself, left starts nothing: only our own links can.
    step({
      frame: 4,
      departures: [
        [0, 2],
        [1, 2],
      ],
    });
    step();
    assert.equal(session.departedAfter(0), undefined);
    assert.equal(session.departedAfter(1), undefined);
    for (let i = 0; i < 20; i++) step();
    assert.deepEqual(session.waitingFor, [1]);
  });

  it('drops a flood past the per-peer rate and survives garbage datagrams', () => {
    const { session, links, step, peer } = hostileScene();
    step();
    step({ frame: 1, first: 2, inputs: [move(1)] });
    step();
    let state = SEED || 1;
    const random = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 2 ** 32;
    };
    for (let i = 0; i < 1000; i++) {
      const bytes = new Uint8Array(1 + Math.floor(random() * 300)).map(() => Math.floor(random() * 256));
      links.send(0, bytes);
    }
    for (let i = 0; i < 10; i++) step(); // the links deliver 256 datagrams a receive
    console.log(
      `  seed ${SEED}: flood refused ${peer().refused.flood}, packets received ${peer().packetsReceived}`,
    );
    // A second's worth (240) passes the bucket, then 4 a tick (shared with the peer's own packets).
    const flood = peer().refused.flood;
    assert.ok(flood >= 1000 - 240 - 40 && flood <= 1000 - 240 + 10, `${flood} dropped as flood`);
    assert.equal(peer().lastInputFrame, 2);
    assert.ok(peer().packetsInvalid > 0, 'the packet layer refused some garbage');
    for (let i = 0; i < 60; i++) step(); // the bucket refills
    step({ frame: 5, first: 2, inputs: [move(1), move(0)] });
    step();
    assert.equal(peer().lastInputFrame, 3);
    assert.equal(session.state, 'running');
  });
});

describe('RollbackSession misuse', () => {
  it('throws RangeError at the call', () => {
    const { session, step } = hostileScene();
    step();
    assert.throws(() => session.advanceFrame(), RangeError); // no input added
    session.addLocalInput(IDLE);
    assert.throws(() => session.addLocalInput(IDLE), RangeError); // two for one frame
    session.advanceFrame();
    assert.throws(() => session.addLocalInput({ dx: 5, dy: 0, fire: false }), RangeError);
    assert.throws(() => session.addLocalInput({ dx: Number.NaN, dy: 0, fire: false }), RangeError);
    assert.throws(() => session.update(0), RangeError); // time backwards
    assert.throws(() => session.update(Number.NaN), RangeError);
    assert.throws(() => session.confirmedInput(0, 2), RangeError);
    assert.equal(session.confirmedInput(10_000, 0), undefined);
    session.close();
    assert.throws(() => session.addLocalInput(IDLE), RangeError);
    session.update(100); // closed: nothing, no throw
  });

  it('refuses options out of range', () => {
    const network = new MemoryNetwork();
    const transports = [network.createTransport(), network.createTransport()];
    const addresses = transports.map((tr) => tr.localAddress);
    const base = {
      links: new LocalPeerLinks({ transport: transports[0], self: 0, addresses }),
      input: ArenaInput,
      initialInput: IDLE,
      game: new ArenaGame(2),
    };
    for (const bad of [
      { inputDelay: -1 },
      { inputDelay: 1.5 },
      { maxPrediction: 0 },
      { frameRate: Number.NaN },
      { checksumInterval: -30 },
      { balanceThreshold: 0 },
      { now: Number.NaN },
    ])
      assert.throws(() => new RollbackSession({ ...base, ...bad }), RangeError, JSON.stringify(bad));
    assert.throws(
      () => new RollbackSession({ ...base, initialInput: { dx: 2, dy: 0, fire: false } }),
      RangeError,
    );
    assert.throws(
      () =>
        new RollbackSession({
          ...base,
          game: base.game as unknown as RollbackGame<{ big: string }, Int32Array>,
          input: t.object({ big: t.string(1000) }),
          initialInput: { big: '' },
        }),
      RangeError,
    );
  });
});
