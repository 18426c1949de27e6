/**
 * The rendezvous' token tables under floods of valid tokens (the connection layer's lock-out, for
 * hellos): forged-source hellos carrying the attacker's own tokens, and one player registering
 * fresh tokens from many real addresses, leave room for an honest pair, which registers within a
 * second; a captured hello replayed once its records were pushed out takes no slot.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import type { Address } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { P2P_PROTOCOL } from '../support/p2p-scene.js';
import { RawRendezvousPeer } from '../support/rendezvous-raw.js';

const RENDEZVOUS = '10.0.0.1:4000' as Address;
const UNIX = 1_900_000_000;

function world() {
  const network = new MemoryNetwork();
  const privateKey = new Uint8Array(randomBytes(32));
  const server = new RendezvousServer({
    transport: network.createTransport(RENDEZVOUS),
    protocolId: P2P_PROTOCOL,
    privateKey,
    unixTime: () => UNIX,
    maxRegistrations: 16,
  });
  const token = (sessionId: bigint, peer: number) =>
    issuePeerToken({
      protocolId: P2P_PROTOCOL,
      privateKey,
      sessionId,
      peer,
      maxPeers: 2,
      rendezvousAddress: RENDEZVOUS,
      now: UNIX,
    });
  let now = 0;
  const tick = (links: readonly SecurePeerLinks[], during?: () => void) => {
    now += 0.02;
    during?.();
    server.update(now);
    for (const l of links) {
      l.update(now);
      l.receive(() => {});
    }
    server.update(now);
  };
  /** Ticks until both links connect to each other; the simulated seconds it took. */
  const connect = (pair: SecurePeerLinks[], during?: () => void): number => {
    const start = now;
    while (now - start < 5 && !pair.every((l) => l.connectedPeers().length === 1)) tick(pair, during);
    return now - start;
  };
  return { network, server, token, tick, connect };
}

/** A hello for `token` as its holder would send it, without sending it. */
function helloOf(token: Uint8Array): Uint8Array {
  const sink = { send() {} } as unknown as DatagramTransport;
  return new RawRendezvousPeer(token, sink).hello();
}

const forged = (i: number) => `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}:9` as Address;

describe('rendezvous token tables under floods of valid tokens', () => {
  it('forged-source hellos with the attacker’s own tokens: an honest pair registers within a second, and a captured hello replayed later takes no slot', () => {
    const { network, server, token, tick, connect } = world();
    // Fresh tokens for the attacker's own slot, each from its own forged source: more than every
    // table of a default rendezvous holds.
    let sent = 0;
    const flood = (count: number) => {
      for (let i = 0; i < count; i++, sent++) network.route(forged(sent), RENDEZVOUS, helloOf(token(77n, 1)));
    };
    for (let round = 0; round < 60; round++) {
      flood(80);
      tick([]);
    }

    const pair = [0, 1].map(
      (peer) => new SecurePeerLinks({ transport: network.createTransport(), token: token(5n, peer) }),
    );
    const seconds = connect(pair, () => flood(20));
    assert.ok(seconds <= 1, `the honest pair connected after ${seconds.toFixed(2)} s of flood`);
    assert.deepEqual(server.sessionPeers(5n), [0, 1]);
    assert.deepEqual(server.sessionPeers(77n), [], 'a forged source proves nothing, so holds no slot');
    assert.ok(server.counters.pendingEvicted > 0 && server.counters.tokensEvicted > 0);

    // A registered peer's hello, captured, replayed from elsewhere after more flood.
    const holder = new RawRendezvousPeer(token(9n, 0), network.createTransport('10.0.3.1:5000'));
    const captured = holder.hello();
    tick(pair);
    assert.equal(holder.prove(), true);
    tick(pair);
    assert.deepEqual(server.sessionPeers(9n), [0]);
    for (let round = 0; round < 60; round++) {
      flood(80);
      tick(pair);
    }
    const registered = server.counters.registered;
    network.createTransport('10.0.4.1:5000').send(RENDEZVOUS, captured);
    for (let i = 0; i < 50; i++) tick(pair);
    assert.equal(server.counters.registered, registered, 'the replay registered nothing');
    assert.deepEqual(server.sessionPeers(9n), [0]);
    assert.ok(pair[1].connectedPeers().includes(0));
  });

  it('one player registering fresh tokens from 60 addresses: an honest pair still registers within a second', () => {
    const { network, server, token, tick, connect } = world();
    const addresses = Array.from({ length: 60 }, (_, i) => network.createTransport(`10.0.5.${i + 1}:6000`));
    // 80 rounds: 4800 proven registrations (each a fresh token of the player's own slot), more
    // than the completed table holds; one round every 0.1 s, within the per-address rate.
    for (let round = 0; round < 80; round++) {
      const peers = addresses.map((transport) => new RawRendezvousPeer(token(88n, round % 2), transport));
      for (const p of peers) p.hello();
      tick([]);
      for (const p of peers) p.prove();
      for (let t = 0; t < 4; t++) tick([]);
    }

    const pair = [0, 1].map(
      (peer) => new SecurePeerLinks({ transport: network.createTransport(), token: token(6n, peer) }),
    );
    const seconds = connect(pair);
    assert.ok(seconds <= 1, `the honest pair connected after ${seconds.toFixed(2)} s`);
    assert.deepEqual(server.sessionPeers(6n), [0, 1]);
    assert.ok(server.counters.registered >= 4096, `registered ${server.counters.registered}`);
    assert.ok(server.counters.tokensEvicted > 0);
  });
});
