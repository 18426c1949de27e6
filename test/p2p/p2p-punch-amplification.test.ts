/**
 * What a session's peers can be made to send to an address that never answers: a hello with a
 * forged source gets that address no more than it carried (the registration never proves, so the
 * peers are never told to punch it); a token holder reporting local candidates makes them punch
 * only non-global addresses, within the bound docs/lockstep.md states.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import { type Address, toAddress } from '../../src/transport/address.js';
import { isNonGlobalAddress } from '../../src/transport/address-scope.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { P2P_PROTOCOL } from '../support/p2p-scene.js';
import { RawRendezvousPeer } from '../support/rendezvous-raw.js';

const RENDEZVOUS = '10.0.0.1:4000' as Address;
const PEERS = 8;
/** A punch datagram, and the rounds a pair punches before it falls back to the relay (3 s / 0.1 s). */
const PUNCH_BYTES = 27;
const PUNCH_ROUNDS = 30;

/** Seven honest peers of an eight-slot session, connected to each other; slot 7 is the attacker's. */
function session() {
  const network = new MemoryNetwork();
  const privateKey = new Uint8Array(randomBytes(32));
  const server = new RendezvousServer({
    transport: network.createTransport(RENDEZVOUS),
    protocolId: P2P_PROTOCOL,
    privateKey,
  });
  const token = (peer: number) =>
    issuePeerToken({
      protocolId: P2P_PROTOCOL,
      privateKey,
      sessionId: 3n,
      peer,
      maxPeers: PEERS,
      rendezvousAddress: RENDEZVOUS,
      now: Math.floor(Date.now() / 1000),
    });
  const honest = Array.from(
    { length: PEERS - 1 },
    (_, peer) => new SecurePeerLinks({ transport: network.createTransport(), token: token(peer) }),
  );
  let now = 0;
  const tick = (seconds: number) => {
    for (let t = 0; t < Math.round(seconds / 0.02); t++) {
      now += 0.02;
      server.update(now);
      for (const l of honest) {
        l.update(now);
        l.receive(() => {});
      }
      server.update(now);
    }
  };
  tick(1);
  assert.ok(honest.every((l) => l.connectedPeers().length === PEERS - 2));
  return { network, server, token, tick };
}

/** Bytes waiting at `address` (read and counted). */
function bytesAt(network: MemoryNetwork, address: Address): number {
  let bytes = 0;
  network.get(address)?.receive((_from, data) => {
    bytes += data.length;
  });
  return bytes;
}

describe('hole punching toward an address that never answers', () => {
  it('a hello with a forged source gets that address no more bytes than it carried', () => {
    const { network, server, token, tick } = session();
    const victim = toAddress('198.51.100.7:3478');
    network.createTransport(victim);
    // Sealed by the token's holder, sent with the victim's address as source (and from nowhere else).
    const sink = { send() {} } as unknown as DatagramTransport;
    const hello = new RawRendezvousPeer(token(7), sink).hello();
    network.route(victim, RENDEZVOUS, hello);
    tick(4);
    const received = bytesAt(network, victim);
    assert.ok(received <= hello.length, `the victim got ${received} bytes for the ${hello.length} forged`);
    assert.deepEqual(server.sessionPeers(3n), [0, 1, 2, 3, 4, 5, 6]);
  });

  it('a token holder’s local candidates: global ones are dropped, non-global ones punched within the stated bound', () => {
    const { network, token, tick } = session();
    const publicVictim = toAddress('198.51.100.8:3478');
    const privateVictim = toAddress('192.168.7.7:3478');
    network.createTransport(publicVictim);
    network.createTransport(privateVictim);
    const attacker = new RawRendezvousPeer(token(7), network.createTransport());
    attacker.hello([publicVictim, privateVictim]);
    tick(0.02);
    assert.equal(attacker.prove(), true);
    tick(4);
    assert.equal(bytesAt(network, publicVictim), 0);
    const punched = bytesAt(network, privateVictim);
    const bound = (PEERS - 1) * PUNCH_ROUNDS * PUNCH_BYTES;
    assert.ok(punched > 0 && punched <= bound, `punched ${punched} bytes, bound ${bound}`);
  });

  it('tells non-global addresses from global ones', () => {
    const local = [
      '10.1.2.3:1',
      '172.16.0.1:1',
      '172.31.9.9:1',
      '192.168.0.1:1',
      '100.64.0.1:1',
      '127.0.0.1:1',
    ];
    const more = ['169.254.1.1:1', '[::1]:1', '[fd00::1]:1', '[fe80::1%eth0]:1'];
    const global = [
      '172.32.0.1:1',
      '192.169.0.1:1',
      '100.128.0.1:1',
      '8.8.8.8:1',
      '[2001:db8::1]:1',
      '[::2]:1',
    ];
    for (const a of [...local, ...more]) assert.equal(isNonGlobalAddress(toAddress(a)), true, a);
    for (const a of global) assert.equal(isNonGlobalAddress(toAddress(a)), false, a);
  });
});
