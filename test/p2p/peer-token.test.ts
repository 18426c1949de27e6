import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { defaultAead } from '../../src/connection/aead.js';
import { PeerPacketCrypto, PeerPacketKind } from '../../src/lockstep/peer-packet.js';
import { openPeerTokenPrivate, PEER_TOKEN_BYTES, readPeerToken } from '../../src/lockstep/peer-token.js';
import { RELAY_INNER_OFFSET, sealRelayFrame } from '../../src/lockstep/relay-frame.js';
import { ChannelCrypto, HELLO_BYTES } from '../../src/lockstep/rendezvous-wire.js';
import { SecurePeerLinks } from '../../src/lockstep/secure-peer-links.js';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import { toAddress } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { P2P_PROTOCOL } from '../support/p2p-scene.js';

const rendezvousAddress = toAddress('10.0.0.1:4000');
const privateKey = new Uint8Array(randomBytes(32));
const now = 1_800_000_000;
const issue = (extra: Partial<Parameters<typeof issuePeerToken>[0]> = {}) =>
  issuePeerToken({
    protocolId: P2P_PROTOCOL,
    privateKey,
    sessionId: 5n,
    peer: 1,
    maxPeers: 4,
    rendezvousAddress,
    now,
    ...extra,
  });

describe('peer tokens', () => {
  it('hand the peer its keys and seal the same ones for the rendezvous', () => {
    const read = readPeerToken(issue());
    assert.ok(read.ok);
    const t = read.token;
    assert.equal(t.sessionId, 5n);
    assert.equal(t.peer, 1);
    assert.equal(t.maxPeers, 4);
    assert.equal(t.expireTimestamp, now + 30);
    assert.equal(t.rendezvousAddress, rendezvousAddress);
    const inside = openPeerTokenPrivate(
      t.privateData,
      P2P_PROTOCOL,
      t.expireTimestamp,
      t.nonce,
      privateKey,
      defaultAead(),
    );
    assert.ok(inside !== null);
    assert.deepEqual(inside.peerToRendezvousKey, t.peerToRendezvousKey);
    assert.deepEqual(inside.rendezvousToPeerKey, t.rendezvousToPeerKey);
    assert.equal(inside.peer, 1);
    assert.equal(inside.generation, 0, 'the default generation');
    const later = readPeerToken(issue({ generation: 0xffff_ffff }));
    assert.ok(later.ok);
    const { privateData, expireTimestamp, nonce } = later.token;
    const sealed = openPeerTokenPrivate(
      privateData,
      P2P_PROTOCOL,
      expireTimestamp,
      nonce,
      privateKey,
      defaultAead(),
    );
    assert.equal(sealed?.generation, 0xffff_ffff, 'sealed in the private part');
    // Under another key, another protocol, another expiry, or with a flipped bit: it does not open.
    const aead = defaultAead();
    assert.equal(
      openPeerTokenPrivate(t.privateData, P2P_PROTOCOL, t.expireTimestamp, t.nonce, new Uint8Array(32), aead),
      null,
    );
    assert.equal(
      openPeerTokenPrivate(t.privateData, P2P_PROTOCOL + 1n, t.expireTimestamp, t.nonce, privateKey, aead),
      null,
    );
    assert.equal(
      openPeerTokenPrivate(t.privateData, P2P_PROTOCOL, t.expireTimestamp + 1, t.nonce, privateKey, aead),
      null,
    );
    const flipped = t.privateData.slice();
    flipped[3] ^= 1;
    assert.equal(
      openPeerTokenPrivate(flipped, P2P_PROTOCOL, t.expireTimestamp, t.nonce, privateKey, aead),
      null,
    );
  });

  it('refuse malformed tokens with a reason and misuse at the call', () => {
    assert.equal(readPeerToken(new Uint8Array(10)).ok, false);
    const bad = issue();
    bad[0] ^= 1;
    assert.deepEqual(readPeerToken(bad), { ok: false, reason: 'not a ghostwire peer token' });
    const index = issue();
    index[192] = 9;
    assert.equal(readPeerToken(index).ok, false);
    assert.equal(issue().length, PEER_TOKEN_BYTES);
    assert.throws(() => issue({ peer: 4 }), RangeError);
    assert.throws(() => issue({ maxPeers: 65 }), RangeError);
    assert.throws(() => issue({ privateKey: new Uint8Array(31) }), RangeError);
    assert.throws(() => issue({ now: -1 }), RangeError);
    for (const generation of [-1, 2 ** 32, 1.5, Number.NaN])
      assert.throws(() => issue({ generation }), RangeError, `generation ${generation}`);
    const network = new MemoryNetwork();
    assert.throws(
      () => new SecurePeerLinks({ transport: network.createTransport(), token: bad }),
      RangeError,
    );
  });
});

describe('the rendezvous refuses', () => {
  function setup(unix = now, relayPerSecond?: number) {
    const network = new MemoryNetwork();
    const transport = network.createTransport(rendezvousAddress);
    const server = new RendezvousServer({
      transport,
      protocolId: P2P_PROTOCOL,
      privateKey,
      unixTime: () => unix,
      relayPerSecond,
    });
    let time = 0;
    const tick = (links: SecurePeerLinks[] = []) => {
      time += 0.02;
      server.update(time);
      for (const l of links) {
        l.update(time);
        l.receive(() => {});
      }
      server.update(time);
    };
    return { network, server, tick };
  }

  it('expired, forged and replayed tokens', () => {
    const { network, server, tick } = setup(now + 31);
    const expired = new SecurePeerLinks({ transport: network.createTransport(), token: issue() });
    const forged = new SecurePeerLinks({
      transport: network.createTransport(),
      token: issuePeerToken({
        protocolId: P2P_PROTOCOL,
        privateKey: new Uint8Array(32),
        sessionId: 5n,
        peer: 0,
        maxPeers: 4,
        rendezvousAddress,
        now: now + 31,
      }),
    });
    const token = issue({ now: now + 31, peer: 2 });
    const first = new SecurePeerLinks({ transport: network.createTransport(), token });
    const copy = new SecurePeerLinks({ transport: network.createTransport(), token });
    for (let i = 0; i < 5; i++) tick([expired, forged, first, copy]);
    assert.ok(server.counters.expired >= 1);
    assert.ok(server.counters.forged >= 1);
    assert.ok(server.counters.tokenReplayed >= 1);
    assert.equal(server.counters.registered, 1);
    assert.deepEqual(
      [expired.registered, forged.registered, first.registered, copy.registered],
      [false, false, true, false],
    );
    assert.deepEqual(server.sessionPeers(5n), [2]);
  });

  it('floods, unregistered senders, and relay frames that are forged, replayed, misdirected or too many', () => {
    const { network, server, tick } = setup(now, 50);
    const tokens = [0, 1].map((peer) => issue({ peer, maxPeers: 2 }));
    const transports = tokens.map(() => network.createTransport());
    const links = tokens.map((token, i) => new SecurePeerLinks({ transport: transports[i], token }));
    for (let i = 0; i < 10; i++) tick(links);
    assert.deepEqual(server.sessionPeers(5n), [0, 1]);
    // Its own host: the rendezvous' rate is per host, and the peers' host is not the attacker's.
    const attacker = network.createTransport(toAddress('10.0.9.9:5000'));
    for (let i = 0; i < 100; i++) attacker.send(rendezvousAddress, new Uint8Array(HELLO_BYTES).fill(0x20));
    tick();
    assert.ok(server.counters.rateLimited >= 50, `rate limited ${server.counters.rateLimited}`);
    assert.ok(server.counters.size + server.counters.expired + server.counters.forged <= 45);
    const counted = server.counters.unknownAddress;
    network
      .createTransport(toAddress('10.0.9.10:5000'))
      .send(rendezvousAddress, new Uint8Array(60).fill(0x22));
    tick();
    assert.equal(server.counters.unknownAddress, counted + 1);

    // Frames from peer 0's own address, made with its real key (as only it could), numbered
    // above the links' own sequences (which start at random below 2^48).
    const high = 2 ** 50;
    const t0 = readPeerToken(tokens[0]);
    assert.ok(t0.ok);
    const channel = new ChannelCrypto(defaultAead());
    const pair = new PeerPacketCrypto(defaultAead(), P2P_PROTOCOL, 5n);
    const frame = (sequence: number, target: number, innerTarget = target) => {
      const out = new Uint8Array(1400);
      const inner = pair.seal(
        out,
        RELAY_INNER_OFFSET,
        PeerPacketKind.Data,
        0,
        innerTarget,
        0,
        new Uint8Array(4),
        new Uint8Array(32),
      );
      return out.slice(
        0,
        sealRelayFrame(channel, out, target, inner, sequence, t0.token.peerToRendezvousKey),
      );
    };
    const relay = server.counters.relay;
    const base = { ...relay };
    const good = frame(high + 1_000_000, 1);
    transports[0].send(rendezvousAddress, good);
    tick();
    assert.equal(relay.forwarded - base.forwarded, 1);
    transports[0].send(rendezvousAddress, good); // replayed
    const forged = frame(high + 1_000_001, 1);
    forged[20] ^= 1;
    transports[0].send(rendezvousAddress, forged);
    transports[0].send(rendezvousAddress, frame(high + 1_000_002, 1, 0)); // inner addressed elsewhere
    transports[0].send(rendezvousAddress, new Uint8Array(20).fill(0x22)); // truncated
    tick();
    assert.deepEqual(
      [relay.replay - base.replay, relay.mac - base.mac, relay.inner - base.inner, relay.size - base.size],
      [1, 1, 1, 1],
    );
    for (let i = 0; i < 400; i++) transports[0].send(rendezvousAddress, frame(high + 2_000_000 + i, 1));
    tick();
    assert.ok(relay.rateLimited > 100, `rate limited ${relay.rateLimited}`);
  });
});
