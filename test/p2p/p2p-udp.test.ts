import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { defineMessage, MessageFactory } from '../../src/channels/index.js';
import { PeerConnection } from '../../src/lockstep/peer-connection.js';
import type { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { t } from '../../src/schema/schema.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { onlyFrom, peersOf, rendezvousOn } from '../support/p2p-scene.js';
import { until } from '../support/until.js';

/** Real UDP on loopback: the rendezvous introduces peers, who talk through PeerConnection. */
const Note = defineMessage('note', t.object({ from: t.int(0, 63), text: t.string(40) }));
const factory = new MessageFactory([Note]);
const channels = [{ kind: 'reliable-ordered' as const }];
const open: DatagramTransport[] = [];
after(() => {
  for (const transport of open) transport.close();
});

async function session(count: number, options: { relayOnly: boolean }) {
  const rendezvousTransport = await UdpTransport.open();
  open.push(rendezvousTransport);
  const rendezvous = rendezvousOn(rendezvousTransport);
  const transports: DatagramTransport[] = [];
  for (let i = 0; i < count; i++) {
    const udp = await UdpTransport.open();
    open.push(udp);
    transports.push(options.relayOnly ? onlyFrom(udp, rendezvousTransport.localAddress) : udp);
  }
  const sessionId = BigInt(Date.now());
  const links = peersOf(transports, rendezvous.token, sessionId, count, {
    // Direct pairs get long enough to punch even on a loaded machine: a relay here would be a failure.
    punchTimeout: options.relayOnly ? 0.5 : 10,
  });
  const connections = links.map(() => new Map<number, PeerConnection<typeof Note>>());
  const notes: string[][] = links.map(() => []);
  const started = performance.now();
  const clock = () => (performance.now() - started) / 1000;
  const tick = () => {
    const now = clock();
    rendezvous.server.update(now);
    for (const l of links) {
      l.update(now);
      l.receive((peer, data) => connections[l.self].get(peer)?.receivePacket(data));
      for (const peer of l.connectedPeers())
        if (!connections[l.self].has(peer))
          connections[l.self].set(peer, new PeerConnection(l, peer, { factory, channels }, now));
      for (const c of connections[l.self].values()) {
        c.update(now);
        for (let m = c.channels.receive(0); m !== null; m = c.channels.receive(0))
          if (m.is(Note)) notes[l.self].push(`${m.value.from}:${m.value.text}`);
      }
    }
  };
  const timer = setInterval(tick, 10);
  const stop = () => clearInterval(timer);
  return { links, connections, notes, rendezvous, stop, clock };
}

function allConnected(links: readonly SecurePeerLinks[]): boolean {
  return links.every((l) => l.connectedPeers().length === links.length - 1);
}

describe('UdpTransport.sendWithTtl', () => {
  it('delivers like send (the TTL only limits hops) and refuses a TTL out of range', async () => {
    const [a, b] = [await UdpTransport.open(), await UdpTransport.open()];
    open.push(a, b);
    a.sendWithTtl(b.localAddress, new Uint8Array([1, 2, 3]), 1);
    a.send(b.localAddress, new Uint8Array([4]));
    const got: number[][] = [];
    await until('both datagrams', 2000, () => {
      b.receive((_, data) => got.push([...data]));
      return got.length === 2;
    });
    assert.deepEqual(got, [[1, 2, 3], [4]]);
    assert.throws(() => a.sendWithTtl(b.localAddress, new Uint8Array(1), 0), RangeError);
    assert.throws(() => a.sendWithTtl(b.localAddress, new Uint8Array(1), 256), RangeError);
  });
});

describe('peers over real UDP (loopback)', () => {
  it('4 peers introduced by the rendezvous connect directly and exchange reliable messages', async () => {
    const s = await session(4, { relayOnly: false });
    try {
      await until('4 peers connected', 5000, () => allConnected(s.links));
      for (const l of s.links) for (const p of l.connectedPeers()) assert.equal(l.pathTo(p), 'direct');
      await until('connections made', 2000, () => s.connections.every((c) => c.size === 3));
      for (const [self, byPeer] of s.connections.entries())
        for (const c of byPeer.values()) c.channels.send(0, Note, { from: self, text: `hello ${c.peer}` });
      await until('every note delivered', 5000, () => s.notes.every((n) => n.length === 3));
      for (const [self, got] of s.notes.entries())
        assert.deepEqual(
          got.sort(),
          [0, 1, 2, 3].filter((p) => p !== self).map((p) => `${p}:hello ${self}`),
        );
      assert.equal(s.rendezvous.server.counters.relay.forwarded, 0);
    } finally {
      s.stop();
    }
  });

  it('peers no direct datagram reaches talk through the relay, end to end sealed', async () => {
    const s = await session(2, { relayOnly: true });
    try {
      await until('2 peers connected through the relay', 5000, () => allConnected(s.links));
      assert.equal(s.links[0].pathTo(1), 'relay');
      assert.equal(s.links[1].pathTo(0), 'relay');
      await until('connections made', 2000, () => s.connections.every((c) => c.size === 1));
      s.connections[0].get(1)!.channels.send(0, Note, { from: 0, text: 'relayed' });
      await until('the note delivered', 5000, () => s.notes[1].length === 1);
      assert.deepEqual(s.notes[1], ['0:relayed']);
      assert.ok(s.rendezvous.server.counters.relay.forwarded > 0);
    } finally {
      s.stop();
    }
  });
});
