import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultAead } from '../../src/connection/aead.js';
import {
  PEER_OVERHEAD_BYTES,
  PeerPacketCrypto,
  PeerPacketKind,
  peerPacketSequence,
} from '../../src/lockstep/peer-packet.js';
import { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { prng, randomInt } from '../../src/random/prng.js';
import type { Address } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { drainEvents, onlyFrom, peersOf, rendezvousOn } from '../support/p2p-scene.js';
import { testSeed } from '../support/seed.js';

/** A rendezvous and n peers on an in-memory network, driven in simulated time. */
function scene(n: number, options: { maxPeers?: number; timeoutSeconds?: number; relayOnly?: boolean } = {}) {
  const network = new MemoryNetwork();
  const rendezvous = rendezvousOn(network.createTransport('10.0.0.1:4000'));
  const sessionId = 77n;
  const maxPeers = options.maxPeers ?? n;
  const token = (s: bigint, peer: number, max: number) =>
    rendezvous.token(s, peer, max, { timeoutSeconds: options.timeoutSeconds });
  const transports: DatagramTransport[] = [];
  const sent: { to: Address; data: Uint8Array }[][] = [];
  for (let i = 0; i < n; i++) {
    const inner = network.createTransport(`10.0.1.${i + 1}:5000`);
    const log: { to: Address; data: Uint8Array }[] = [];
    sent.push(log);
    const recording: DatagramTransport = Object.create(inner);
    recording.send = (to, data) => {
      log.push({ to, data: data.slice() });
      inner.send(to, data);
    };
    recording.receive = (handler, max) => inner.receive(handler, max);
    transports.push(options.relayOnly ? onlyFrom(recording, rendezvous.server.localAddress) : recording);
  }
  const links = peersOf(transports, token, sessionId, maxPeers, { punchTimeout: 0.5 });
  let now = 0;
  const received: { to: number; from: number; text: string }[] = [];
  const step = (active: readonly SecurePeerLinks[] = links) => {
    now += 0.02;
    rendezvous.server.update(now);
    for (const l of active) {
      l.update(now);
      l.receive((from, data) => received.push({ to: l.self, from, text: new TextDecoder().decode(data) }));
    }
    rendezvous.server.update(now);
  };
  const run = (seconds: number, active?: readonly SecurePeerLinks[]) => {
    for (let t = 0; t < seconds / 0.02; t++) step(active);
  };
  return {
    network,
    rendezvous,
    links,
    transports,
    sent,
    received,
    run,
    sessionId,
    token,
    get now() {
      return now;
    },
  };
}

describe('the peer packet', () => {
  it('opens only for its protocol, session, direction and kind, under its pair key', () => {
    const key = new Uint8Array(32).fill(3);
    const sealer = new PeerPacketCrypto(defaultAead(), 1n, 2n);
    const packet = (kind: number = PeerPacketKind.Data, sender = 0, receiver = 1) => {
      const out = new Uint8Array(64);
      return out.subarray(0, sealer.seal(out, 0, kind, sender, receiver, 5, new Uint8Array([9, 8]), key));
    };
    const p = packet();
    assert.equal(p.length, PEER_OVERHEAD_BYTES + 2);
    assert.equal(peerPacketSequence(p), 5);
    assert.ok(new PeerPacketCrypto(defaultAead(), 1n, 2n).open(packet(), key));
    assert.notDeepEqual([...p.subarray(11, 13)], [9, 8]); // sealed: not in clear
    assert.equal(new PeerPacketCrypto(defaultAead(), 1n, 3n).open(packet(), key), false); // another session
    assert.equal(new PeerPacketCrypto(defaultAead(), 9n, 2n).open(packet(), key), false); // another protocol
    assert.equal(sealer.open(packet(), new Uint8Array(32)), false); // another pair's key
    for (const at of [0, 1, 2, 3]) {
      const moved = packet();
      moved[at] ^= at === 0 ? 1 : 2; // kind, sender, receiver, sequence
      assert.equal(sealer.open(moved, key), false, `byte ${at}`);
    }
    const opened = packet();
    assert.ok(sealer.open(opened, key));
    assert.deepEqual([...opened.subarray(11, 13)], [9, 8]);
  });
});

describe('SecurePeerLinks through the rendezvous (in memory)', () => {
  it('introduces 4 peers, who connect directly and carry data both ways', () => {
    const s = scene(4);
    s.run(0.3);
    for (const l of s.links) {
      assert.deepEqual(
        l.connectedPeers(),
        [0, 1, 2, 3].filter((p) => p !== l.self),
      );
      for (const p of l.connectedPeers()) assert.equal(l.pathTo(p), 'direct');
      assert.deepEqual(
        drainEvents(l).map((e) => e.kind),
        ['connected', 'connected', 'connected'],
      );
    }
    for (const l of s.links)
      for (const p of l.connectedPeers()) l.send(p, new TextEncoder().encode(`${l.self}->${p}`));
    s.run(0.1);
    assert.equal(s.received.length, 12);
    for (const r of s.received) assert.equal(r.text, `${r.from}->${r.to}`);
    assert.equal(s.rendezvous.server.counters.introductions, 6);
    assert.equal(s.rendezvous.server.counters.relay.forwarded, 0);
  });

  it('falls back to the relay where no direct datagram gets through, still sealed end to end', () => {
    const s = scene(3, { relayOnly: true });
    s.run(0.4);
    assert.deepEqual(s.links[0].connectedPeers(), []);
    s.run(0.4);
    for (const l of s.links) for (const p of l.connectedPeers()) assert.equal(l.pathTo(p), 'relay');
    s.links[0].send(2, new TextEncoder().encode('via relay'));
    s.run(0.1);
    assert.deepEqual(
      s.received.map((r) => [r.from, r.to, r.text]),
      [[0, 2, 'via relay']],
    );
    assert.ok(s.rendezvous.server.counters.relay.forwarded > 0);
    // What the relay forwarded is the peer packet sealed under the pair key: the payload never appears in clear.
    const frames = s.sent[0].filter((d) => d.to === s.rendezvous.server.localAddress && d.data[0] === 0x22);
    const plain = new TextEncoder().encode('via relay');
    for (const f of frames) assert.ok(!Buffer.from(f.data).includes(Buffer.from(plain)));
  });

  it('reports a late joiner, a goodbye and a timeout', () => {
    const s = scene(3, { timeoutSeconds: 1 });
    const [a, b, c] = s.links;
    s.run(0.3, [a, b]);
    assert.deepEqual(a.connectedPeers(), [1]);
    drainEvents(a);
    s.run(0.3);
    assert.deepEqual(a.connectedPeers(), [1, 2]);
    assert.deepEqual(drainEvents(a), [{ kind: 'connected', peer: 2 }]);
    assert.deepEqual(
      drainEvents(c)
        .map((e) => e.peer)
        .sort(),
      [0, 1],
    );
    c.close();
    s.run(0.1, [a, b]);
    assert.deepEqual(drainEvents(a), [{ kind: 'left', peer: 2 }]);
    assert.deepEqual(s.rendezvous.server.sessionPeers(s.sessionId), [0, 1]);
    s.run(1.5, [a]); // b goes silent
    assert.deepEqual(drainEvents(a), [{ kind: 'timedOut', peer: 1 }]);
    assert.deepEqual(a.connectedPeers(), []);
    assert.equal(s.rendezvous.server.counters.timedOut, 1);
  });

  it('takes back a peer that left and joins again with a new token (a new pair key)', () => {
    const s = scene(3);
    const [a, b] = s.links;
    s.run(0.3);
    drainEvents(a);
    s.links[2].close();
    s.run(0.1, [a, b]);
    assert.deepEqual(drainEvents(a), [{ kind: 'left', peer: 2 }]);
    const again = new SecurePeerLinks({
      transport: s.network.createTransport('10.0.1.9:5000'),
      token: s.token(s.sessionId, 2, 3),
      punchTimeout: 0.5,
    });
    s.run(0.3, [a, b, again]);
    assert.deepEqual(drainEvents(a), [{ kind: 'connected', peer: 2 }]);
    assert.deepEqual(again.connectedPeers(), [0, 1]);
    assert.equal(a.pathTo(2), 'direct');
  });

  it('refuses forged, replayed, misdirected, truncated and oversized datagrams with a reason', () => {
    const s = scene(3);
    s.run(0.3);
    const [a, b] = s.links;
    a.send(1, new TextEncoder().encode('genuine'));
    const genuine = s.sent[0]
      .filter((d) => d.to === s.transports[1].localAddress && d.data[0] === PeerPacketKind.Data)
      .at(-1)!.data;
    s.run(0.04);
    assert.equal(s.received.length, 1);
    const attacker = s.network.createTransport('10.9.9.9:6666');
    const before = { ...b.counters };
    const to = s.transports[1].localAddress;
    const inject = (data: Uint8Array, from: DatagramTransport = attacker) => {
      from.send(to, data);
      s.run(0.02);
    };
    inject(genuine); // replayed from elsewhere
    inject(genuine.slice(0, 10)); // truncated
    inject(new Uint8Array(1400).fill(PeerPacketKind.Data)); // oversized
    const flipped = genuine.slice();
    flipped[9] = 1; // a fresh sequence (2^48 + …): not a replay, so the MAC is checked
    flipped[flipped.length - 3] ^= 1;
    inject(flipped); // tampered
    const misdirected = genuine.slice();
    misdirected[2] = 2; // addressed to peer 2
    inject(misdirected);
    const unknownSender = genuine.slice();
    unknownSender[1] = 9;
    inject(unknownSender);
    const forged = new Uint8Array(PEER_OVERHEAD_BYTES + 4);
    forged.set([PeerPacketKind.Data, 0, 1, 200]);
    inject(forged); // unauthenticated injection
    inject(new Uint8Array([0x30, 1, 2, 3])); // a notice from someone not the rendezvous
    const c = b.counters;
    assert.equal(c.replay - before.replay, 1);
    assert.equal(c.size - before.size, 2);
    assert.equal(c.mac - before.mac, 2);
    assert.equal(c.unknownPair - before.unknownPair, 2);
    assert.equal(c.kind - before.kind, 1);
    assert.equal(s.received.length, 1);
    assert.equal(b.pathTo(0), 'direct'); // nothing moved the path to the attacker
    s.received.length = 0;
    a.send(1, new TextEncoder().encode('still here'));
    s.run(0.04);
    assert.deepEqual(
      s.received.map((r) => r.text),
      ['still here'],
    );
  });

  it('never throws nor delivers for random datagrams', () => {
    const seed = testSeed('secure-peer-links fuzz');
    const next = prng(seed);
    const random = { nextInt: (n: number) => randomInt(next, n) };
    const s = scene(2);
    s.run(0.3);
    const attacker = s.network.createTransport('10.9.9.8:6666');
    const genuine = s.sent[0].filter((d) => d.data[0] === PeerPacketKind.KeepAlive).at(-1)!.data;
    s.received.length = 0;
    for (let i = 0; i < 3000; i++) {
      const data =
        random.nextInt(2) === 0
          ? new Uint8Array(random.nextInt(1400)).map(() => random.nextInt(256))
          : genuine.map((v) => (random.nextInt(8) === 0 ? random.nextInt(256) : v));
      if (random.nextInt(4) === 0) data[0] = 0x10 + random.nextInt(5);
      // From the attacker, and spoofed as the rendezvous (a memory network lets anyone claim any address).
      const from = i % 3 === 0 ? s.network.get(s.rendezvous.server.localAddress)! : attacker;
      from.send(s.transports[1].localAddress, data);
      if (i % 50 === 0) s.run(0.02);
    }
    s.run(0.1);
    assert.equal(s.received.length, 0);
    assert.deepEqual(s.links[1].connectedPeers(), [0]);
  });
});
