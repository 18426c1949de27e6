/**
 * The rendezvous' per-address rate is per host: a source port (and, for IPv6, the address within
 * a /64) is the sender's free choice, so keying by ip:port let one host rotating ports hello — a
 * decryption each and churn of the unproven table — at any rate.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import type { Address } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { P2P_PROTOCOL } from '../support/p2p-scene.js';
import { RawRendezvousPeer } from '../support/rendezvous-raw.js';

const RENDEZVOUS = '10.0.0.1:4000' as Address;
const UNIX = 1_900_000_000;
const HELLOS = 200;
/** The default burst: helloPerSecond 20, bursts of 40. */
const BURST = 40;

/** Sends HELLOS valid hellos, the i-th from source(i), all at one instant; the server's counters. */
function helloFlood(source: (i: number) => string) {
  const network = new MemoryNetwork({ maxQueuedDatagrams: 4 * HELLOS });
  const privateKey = new Uint8Array(randomBytes(32));
  const server = new RendezvousServer({
    transport: network.createTransport(RENDEZVOUS),
    protocolId: P2P_PROTOCOL,
    privateKey,
    unixTime: () => UNIX,
  });
  const sink = { send() {} } as unknown as DatagramTransport;
  for (let i = 0; i < HELLOS; i++) {
    const token = issuePeerToken({
      protocolId: P2P_PROTOCOL,
      privateKey,
      sessionId: BigInt(1 + i),
      peer: 0,
      maxPeers: 2,
      rendezvousAddress: RENDEZVOUS,
      now: UNIX,
    });
    network.route(source(i) as Address, RENDEZVOUS, new RawRendezvousPeer(token, sink).hello());
  }
  server.update(1);
  return server.counters;
}

describe('rendezvous hello rate per host', () => {
  it('one IPv4 host sending hellos from many source ports is limited like one address', () => {
    const counters = helloFlood((i) => `10.0.0.9:${1000 + i}`);
    assert.equal(counters.rateLimited, HELLOS - BURST);
  });

  it('an IPv6 host rotating ports and addresses within its /64 is limited like one address', () => {
    const counters = helloFlood((i) => `[2001:db8:0:7::${(i + 1).toString(16)}]:${1000 + i}`);
    assert.equal(counters.rateLimited, HELLOS - BURST);
  });

  it('an IPv4 host reached as IPv4-mapped IPv6 shares the bucket of its IPv4 address', () => {
    const counters = helloFlood((i) =>
      i % 2 === 0 ? `10.0.0.9:${1000 + i}` : `[::ffff:10.0.0.9]:${1000 + i}`,
    );
    assert.equal(counters.rateLimited, HELLOS - BURST);
  });

  it('distinct hosts each keep their own budget', () => {
    const counters = helloFlood((i) => `10.1.${i >> 8}.${i & 255}:9`);
    assert.equal(counters.rateLimited, 0);
  });
});

describe('rendezvous rate for registered peers', () => {
  it('players behind one NAT share the host budget only until registered: then each has its own', () => {
    const network = new MemoryNetwork({ maxQueuedDatagrams: 1024 });
    const privateKey = new Uint8Array(randomBytes(32));
    const server = new RendezvousServer({
      transport: network.createTransport(RENDEZVOUS),
      protocolId: P2P_PROTOCOL,
      privateKey,
      unixTime: () => UNIX,
    });
    const players = [0, 1, 2].map((peer) => {
      const token = issuePeerToken({
        protocolId: P2P_PROTOCOL,
        privateKey,
        sessionId: 7n,
        peer,
        maxPeers: 3,
        rendezvousAddress: RENDEZVOUS,
        now: UNIX,
      });
      return new RawRendezvousPeer(token, network.createTransport(`10.0.0.9:${2000 + peer}` as Address));
    });
    for (const p of players) p.hello();
    server.update(1);
    for (const p of players) assert.equal(p.prove(), true);
    server.update(1.01);
    assert.deepEqual(server.sessionPeers(7n), [0, 1, 2]);
    // 3 × 30 keep-alives at one instant: over one host's burst (40), within each player's own.
    for (let i = 0; i < 30; i++) for (const p of players) p.keepAlive(0);
    server.update(1.02);
    assert.equal(server.counters.rateLimited, 0);
    assert.deepEqual(server.sessionPeers(7n), [0, 1, 2]);
  });
});
