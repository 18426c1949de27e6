import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PeerPair } from '../../src/lockstep/peer-pair.js';
import { HELLO_HEADER_BYTES, MAX_CANDIDATES, usableCandidates } from '../../src/lockstep/rendezvous-wire.js';
import { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import { type Address, toAddress } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { P2P_PROTOCOL, rendezvousOn } from '../support/p2p-scene.js';
import { RawRendezvousPeer, strictFamily } from '../support/rendezvous-raw.js';

/** A rendezvous on a memory network driven in simulated time, with the links and raw peers to tick. */
function world(extra: { timeoutSeconds?: number; now?: number } = {}) {
  const network = new MemoryNetwork();
  const rendezvous = rendezvousOn(network.createTransport('10.0.0.1:4000'));
  const token = (peer: number, maxPeers: number, more: { expireSeconds?: number; now?: number } = {}) =>
    rendezvous.token(9n, peer, maxPeers, { timeoutSeconds: extra.timeoutSeconds ?? 10, ...more });
  let now = 0;
  const tick = (links: readonly SecurePeerLinks[], seconds = 0.02) => {
    for (let t = 0; t < Math.round(seconds / 0.02); t++) {
      now += 0.02;
      rendezvous.server.update(now);
      for (const l of links) {
        l.update(now);
        l.receive(() => {});
      }
      rendezvous.server.update(now);
    }
  };
  return { network, server: rendezvous.server, token, tick };
}

describe('hardened rendezvous: tokens', () => {
  it('registers a token once: not again after a bye, nor from a rebuilt peer, and says so', () => {
    const { network, server, token, tick } = world();
    const t1 = token(1, 2);
    const first = new SecurePeerLinks({ transport: network.createTransport('10.0.1.1:5000'), token: t1 });
    tick([first], 0.2);
    assert.equal(first.registered, true);
    first.close();
    tick([], 0.1);
    assert.deepEqual(server.sessionPeers(9n), []);
    // The same token again, from the same address (the first transport is gone).
    network.get(toAddress('10.0.1.1:5000'))?.close();
    const again = new SecurePeerLinks({ transport: network.createTransport('10.0.1.1:5000'), token: t1 });
    tick([again], 0.5);
    assert.equal(server.counters.registered, 1);
    assert.ok(server.counters.tokenReplayed >= 1);
    assert.deepEqual(server.sessionPeers(9n), []);
    assert.equal(again.registered, false);
    assert.equal(again.rendezvousState, 'refused');
  });

  it('a replayed old hello cannot take back the slot of the player’s newer registration', () => {
    const { network, server, token, tick } = world();
    const oldAddress = network.createTransport('10.0.1.1:5000');
    const old = new RawRendezvousPeer(token(1, 2), oldAddress);
    const captured = old.hello();
    tick([], 0.1);
    assert.equal(old.prove(), true);
    tick([], 0.1);
    assert.deepEqual(server.sessionPeers(9n), [1]);
    // The player comes back elsewhere with a new token; the old registration is replaced.
    const newer = new SecurePeerLinks({
      transport: network.createTransport('10.0.2.1:5000'),
      token: token(1, 2),
    });
    tick([newer], 0.2);
    assert.equal(newer.registered, true);
    const registered = server.counters.registered;
    oldAddress.send(toAddress('10.0.0.1:4000'), captured);
    tick([newer], 0.5);
    assert.equal(server.counters.registered, registered);
    assert.deepEqual(server.sessionPeers(9n), [1]);
    assert.equal(newer.registered, true);
  });

  it('a peer rebuilt with the same token does not repeat a sequence (nonce) of the first', () => {
    const { network, token } = world();
    const t = token(0, 2);
    const firstSeqs = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const transport = network.createTransport();
      const links = new SecurePeerLinks({ transport, token: t });
      links.update(0);
      const hello = network.get(toAddress('10.0.0.1:4000'));
      hello?.receive((_from, data) =>
        firstSeqs.add(Buffer.from(data.subarray(HELLO_HEADER_BYTES - 8, HELLO_HEADER_BYTES)).toString('hex')),
      );
    }
    assert.equal(firstSeqs.size, 2);
  });
});

describe('hardened rendezvous: no amplification', () => {
  it('sends a spoofed address no more than it received, never introduces it, and rate-limits keep-alives', () => {
    const { network, server, token, tick } = world();
    const others = [0, 1, 2].map(
      (peer) => new SecurePeerLinks({ transport: network.createTransport(), token: token(peer, 4) }),
    );
    tick(others, 0.3);
    assert.deepEqual(server.sessionPeers(9n), [0, 1, 2]);
    // Peer 3's token holder says hello and keeps alive with the victim's address as source.
    const victim = new RawRendezvousPeer(token(3, 4), network.createTransport('10.9.9.9:1234'));
    victim.hello();
    let received = 0;
    for (let i = 0; i < 30; i++) {
      victim.keepAlive(0);
      tick(others, 0.05);
      received += victim.drainBytes();
    }
    // It never proved it receives there, so it holds no slot and no peer punches the victim.
    assert.deepEqual(server.sessionPeers(9n), [0, 1, 2]);
    assert.equal(server.counters.introductions, 3);
    assert.ok(received <= victim.sentBytes, `sent the victim ${received} bytes for ${victim.sentBytes}`);
    const limited = server.counters.rateLimited;
    for (let i = 0; i < 200; i++) victim.keepAlive(0);
    tick(others);
    assert.ok(server.counters.rateLimited - limited >= 100, 'keep-alives are rate-limited too');
  });
});

describe('hardened peer links: candidates', () => {
  it('a member reporting port-0 and IPv6 candidates cannot make the others throw', () => {
    const { network, server, token, tick } = world();
    const good = [0, 1].map(
      (peer) =>
        new SecurePeerLinks({ transport: strictFamily(network.createTransport()), token: token(peer, 3) }),
    );
    tick(good, 0.2);
    const evil = new RawRendezvousPeer(token(2, 3), network.createTransport());
    evil.hello([toAddress('1.2.3.4:0'), toAddress('[2001:db8::1]:5000')]);
    tick(good);
    assert.equal(evil.prove(), true);
    assert.doesNotThrow(() => tick(good, 1));
    assert.deepEqual(server.sessionPeers(9n), [0, 1, 2]);
    for (const l of good) assert.equal(l.counters.sendFailed, 0);
  });

  it('counts sends the transport refuses instead of throwing out of update and receive', () => {
    const { network, token, tick } = world();
    const blocked = new Set<Address>();
    const transports = [0, 1].map((): DatagramTransport => {
      const inner = network.createTransport();
      const t: DatagramTransport = Object.create(inner);
      t.send = (to, data) => {
        if (blocked.has(to)) throw new RangeError(`no route to ${to}`);
        inner.send(to, data);
      };
      t.receive = (handler, max) => inner.receive(handler, max);
      return t;
    });
    blocked.add(transports[1].localAddress);
    const links = transports.map(
      (transport, peer) => new SecurePeerLinks({ transport, token: token(peer, 2) }),
    );
    assert.doesNotThrow(() => tick(links, 1));
    assert.ok(links[0].counters.sendFailed > 0);
  });

  it('peers keep only candidates of their own family, not port 0, at most five', () => {
    const many = [
      '10.0.0.1:1',
      '10.0.0.2:0',
      '[::1]:5',
      '10.0.0.1:1',
      '10.0.0.3:1',
      '10.0.0.4:1',
      '10.0.0.5:1',
      '10.0.0.6:1',
    ];
    assert.deepEqual(usableCandidates(many.map(toAddress), 4, MAX_CANDIDATES), [
      '10.0.0.1:1',
      '10.0.0.3:1',
      '10.0.0.4:1',
      '10.0.0.5:1',
      '10.0.0.6:1',
    ]);
    assert.deepEqual(usableCandidates(many.map(toAddress), 6, MAX_CANDIDATES), ['[::1]:5']);
  });

  it('refuses unreachable local candidates at the call', () => {
    const { network, token } = world();
    for (const bad of ['1.2.3.4:0', '[::1]:5000'])
      assert.throws(
        () =>
          new SecurePeerLinks({
            transport: network.createTransport(),
            token: token(0, 2),
            localCandidates: [toAddress(bad)],
          }),
        RangeError,
      );
  });
});

describe('hardened rendezvous: relay, notices, recovery', () => {
  it('junk relay frames from a peer’s address do not use up its relay budget', () => {
    const { network, server, token, tick } = world();
    const transports = [0, 1].map(() => network.createTransport());
    const links = transports.map(
      (transport, peer) => new SecurePeerLinks({ transport, token: token(peer, 2) }),
    );
    tick(links, 0.3);
    for (let i = 0; i < 1000; i++)
      transports[0].send(toAddress('10.0.0.1:4000'), new Uint8Array(80).fill(0x22));
    tick(links);
    const relay = server.counters.relay;
    assert.ok(relay.mac + relay.inner + relay.size + relay.replay >= 1000);
    assert.equal(relay.rateLimited, 0);
  });

  it('drops (and counts) a registration that leaves too many notices unacknowledged', () => {
    const { network, server, token, tick } = world();
    const deaf = new RawRendezvousPeer(token(0, 2), network.createTransport());
    deaf.hello();
    tick([], 0.1);
    deaf.prove();
    for (let i = 0; i < 80; i++) {
      // Each from its own host: the rendezvous' rate is per host, and this is not a flood.
      const joiner = new RawRendezvousPeer(
        token(1, 2),
        network.createTransport(toAddress(`10.0.1.${i + 1}:5000`)),
      );
      joiner.hello();
      tick([]);
      joiner.prove();
      tick([]);
      joiner.bye();
      tick([]);
      joiner.transport.close();
      if (i % 8 === 0) deaf.keepAlive(0); // alive, but never acknowledging
    }
    assert.equal(server.counters.noticeOverflow, 1);
    assert.deepEqual(server.sessionPeers(9n), []);
  });

  it('a peer the rendezvous forgot learns it; an expired token stops saying hello', () => {
    const { network, token, tick } = world({ timeoutSeconds: 2 });
    const links = new SecurePeerLinks({ transport: network.createTransport(), token: token(0, 2) });
    tick([links], 0.2);
    assert.equal(links.registered, true);
    tick([], 3); // the rendezvous times it out
    tick([links], 2);
    assert.equal(links.registered, false);
    assert.equal(links.rendezvousState, 'lost');

    const inner = network.createTransport();
    let sent = 0;
    const counting: DatagramTransport = Object.create(inner);
    counting.send = (to, data) => {
      sent++;
      inner.send(to, data);
    };
    counting.receive = (handler, max) => inner.receive(handler, max);
    const expired = new SecurePeerLinks({ transport: counting, token: token(1, 2, { now: 1_000_000 }) });
    tick([expired], 1);
    assert.equal(expired.rendezvousState, 'expired');
    sent = 0;
    tick([expired], 5);
    assert.equal(sent, 0);
  });

  it('a direct path gone silent falls back to the relay', () => {
    const { network, token, tick } = world();
    let cut = false;
    const rendezvous = toAddress('10.0.0.1:4000');
    const transports = [0, 1].map((): DatagramTransport => {
      const inner = network.createTransport();
      const t: DatagramTransport = Object.create(inner);
      t.send = (to, data) => {
        if (!cut || to === rendezvous) inner.send(to, data);
      };
      t.receive = (handler, max) => inner.receive(handler, max);
      return t;
    });
    const links = transports.map(
      (transport, peer) => new SecurePeerLinks({ transport, token: token(peer, 2), punchTimeout: 0.5 }),
    );
    tick(links, 1);
    assert.equal(links[0].pathTo(1), 'direct');
    cut = true;
    tick(links, 5);
    assert.equal(links[0].pathTo(1), 'relay');
    assert.deepEqual(links[0].connectedPeers(), [1]);
  });
});

describe('hardened: options and paths', () => {
  it('moves a pair’s direct address only for a packet newer than any seen', () => {
    const pair = new PeerPair(new Uint8Array(32), [], 0);
    pair.heard(toAddress('10.0.0.2:1000'), 1, 5);
    pair.heard(toAddress('66.6.6.6:666'), 2, 3);
    assert.equal(pair.address, toAddress('10.0.0.2:1000'));
    pair.heard(toAddress('10.0.0.3:1000'), 3, 6);
    assert.equal(pair.address, toAddress('10.0.0.3:1000'));
  });

  it('refuses rendezvous and token options out of range', () => {
    const network = new MemoryNetwork();
    const base = {
      transport: network.createTransport(),
      protocolId: P2P_PROTOCOL,
      privateKey: new Uint8Array(32),
    };
    for (const bad of [
      { maxRegistrations: 0 },
      { maxRegistrations: 1.5 },
      { helloPerSecond: Number.NaN },
      { relayPerSecond: 0 },
      { protocolId: -1n },
      { protocolId: 1n << 64n },
    ])
      assert.throws(() => new RendezvousServer({ ...base, ...bad }), RangeError);
    assert.throws(
      () =>
        issuePeerToken({
          protocolId: -1n,
          privateKey: new Uint8Array(32),
          sessionId: 1n,
          peer: 0,
          maxPeers: 2,
          rendezvousAddress: toAddress('10.0.0.1:4000'),
          now: 1,
        }),
      RangeError,
    );
  });
});

describe('hardened: pair keys and events', () => {
  it('copies each pair key, even from a generator that reuses its buffer', () => {
    const network = new MemoryNetwork();
    const shared = new Uint8Array(64);
    let draw = 0;
    const randomBytes = (n: number) => shared.subarray(0, n).fill(++draw);
    const privateKey = new Uint8Array(32).fill(7);
    const server = new RendezvousServer({
      transport: network.createTransport('10.0.0.1:4000'),
      protocolId: P2P_PROTOCOL,
      privateKey,
      randomBytes,
    });
    const links = [0, 1, 2].map(
      (peer) =>
        new SecurePeerLinks({
          transport: network.createTransport(),
          token: issuePeerToken({
            protocolId: P2P_PROTOCOL,
            privateKey,
            sessionId: 3n,
            peer,
            maxPeers: 3,
            rendezvousAddress: toAddress('10.0.0.1:4000'),
            now: Math.floor(Date.now() / 1000),
          }),
        }),
    );
    for (let t = 1; t <= 50; t++) {
      server.update(t * 0.02);
      for (const l of links) {
        l.update(t * 0.02);
        l.receive(() => {});
      }
    }
    assert.deepEqual(
      links.map((l) => l.connectedPeers()),
      [
        [1, 2],
        [0, 2],
        [0, 1],
      ],
    );
  });

  it('keeps a bounded event queue for an app that never polls, dropping the oldest (counted)', () => {
    const { network, token, tick } = world();
    const host = new SecurePeerLinks({ transport: network.createTransport(), token: token(0, 2) });
    for (let i = 0; i < 12; i++) {
      const guest = new SecurePeerLinks({ transport: network.createTransport(), token: token(1, 2) });
      tick([host, guest], 0.4);
      guest.close();
      tick([host], 0.2);
    }
    assert.ok(host.counters.eventsDropped >= 8, `dropped ${host.counters.eventsDropped}`);
    let kept = 0;
    while (host.pollEvent() !== null) kept++;
    assert.equal(kept, 8);
  });
});
