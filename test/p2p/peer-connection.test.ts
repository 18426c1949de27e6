import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageFactory } from '../../src/channels/index.js';
import { DeterministicRandom } from '../../src/lockstep/deterministic-random.js';
import { LocalPeerLinks } from '../../src/lockstep/local-peer-links.js';
import { PeerConnection } from '../../src/lockstep/peer-connection.js';
import { stateChecksum } from '../../src/lockstep/state-checksum.js';
import { t } from '../../src/schema/schema.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';

/** The scaffold lockstep and rollback sessions stand on: links by peer index, channels per peer. */
const Note = defineMessage('note', t.object({ text: t.string(40) }));
const factory = new MessageFactory([Note]);

function threePeers() {
  const network = new MemoryNetwork();
  const transports = [0, 1, 2].map(() => network.createTransport());
  const addresses = transports.map((tr) => tr.localAddress);
  const links = transports.map(
    (transport, self) => new LocalPeerLinks({ transport, self, addresses, timeout: 1 }),
  );
  return { links };
}

describe('LocalPeerLinks and PeerConnection', () => {
  it('connect peers, carry reliable messages and blocks, and report a peer that left or went silent', () => {
    const { links } = threePeers();
    const channels = [{ kind: 'reliable-ordered' as const }];
    const connections = links.map((l) =>
      [0, 1, 2].map((peer) =>
        peer === l.self ? null : new PeerConnection(l, peer, { factory, channels }, 0),
      ),
    );
    connections[0][2]!.channels.send(0, Note, { text: 'hello 2' });
    const block = new Uint8Array(5000).map((_, i) => i & 0xff);
    connections[0][1]!.channels.sendBlock(0, block);
    const got: string[] = [];
    let gotBlock: Uint8Array | null = null;
    for (let tick = 1; tick <= 40; tick++) {
      const now = tick / 20;
      for (const l of links) {
        l.update(now);
        l.receive((peer, data) => connections[l.self][peer]!.receivePacket(data));
        for (const c of connections[l.self]) if (c !== null) c.update(now);
      }
      for (;;) {
        const m = connections[2][0]!.channels.receive(0);
        if (m === null) break;
        if (m.is(Note)) got.push(m.value.text);
      }
      const b = connections[1][0]!.channels.receive(0);
      if (b !== null && !b.is(Note)) gotBlock = b.value as Uint8Array;
    }
    assert.deepEqual(got, ['hello 2']);
    assert.deepEqual(gotBlock, block);
    assert.deepEqual(links[0].connectedPeers(), [1, 2]);
    const events = [];
    for (let e = links[1].pollEvent(); e !== null; e = links[1].pollEvent()) events.push(e);
    assert.deepEqual(events.map((e) => e.kind).sort(), ['connected', 'connected']);

    links[2].close();
    links[1].update(2.1);
    links[1].receive(() => {});
    assert.deepEqual(links[1].pollEvent(), { kind: 'left', peer: 2 });
    links[1].update(3.5);
    links[1].receive(() => {});
    assert.deepEqual(links[1].pollEvent(), { kind: 'timedOut', peer: 0 });
    assert.deepEqual(links[1].connectedPeers(), []);
  });

  it('refuse misuse at the call and garbage without throwing', () => {
    const { links } = threePeers();
    assert.throws(() => links[0].send(0, new Uint8Array(1)), RangeError);
    assert.throws(() => links[0].send(3, new Uint8Array(1)), RangeError);
    assert.throws(() => links[0].send(1, new Uint8Array(links[0].maxPayloadBytes + 1)), RangeError);
    links[0].update(1);
    assert.throws(() => links[0].update(0.5), RangeError);
    const c = new PeerConnection(links[1], 0, { factory, channels: [{ kind: 'reliable-ordered' }] }, 0);
    c.receivePacket(new Uint8Array([0xff, 1, 2, 3, 4]));
    c.receivePacket(new Uint8Array(0));
    assert.equal(c.channels.counters.messagesReceived, 0);
  });
});

describe('DeterministicRandom', () => {
  it('replays from a saved state, stays in range, and refuses bad arguments', () => {
    const a = new DeterministicRandom(12345);
    const saved = a.state;
    const first = [a.nextUint32(), a.nextInt(6), a.nextFloat()];
    a.state = saved;
    assert.deepEqual([a.nextUint32(), a.nextInt(6), a.nextFloat()], first);
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 6000; i++) counts[a.nextInt(6)]++;
    for (const c of counts) assert.ok(c > 850 && c < 1150, `counts ${counts}`);
    assert.notEqual(new DeterministicRandom(1).nextUint32(), new DeterministicRandom(2).nextUint32());
    assert.throws(() => new DeterministicRandom(-1), RangeError);
    assert.throws(() => a.nextInt(0), RangeError);
    assert.throws(() => (a.state = 1.5), RangeError);
  });

  it('stateChecksum differs for one flipped bit', () => {
    const bytes = new Uint8Array(100).map((_, i) => i);
    const before = stateChecksum(bytes);
    bytes[50] ^= 4;
    assert.notEqual(stateChecksum(bytes), before);
  });
});
