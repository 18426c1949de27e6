import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nobleAead } from '../../src/connection/aead.js';
import { Client, ClientState } from '../../src/connection/client.js';
import { CONNECTION_REQUEST_BYTES } from '../../src/connection/constants.js';
import { toAddress } from '../../src/transport/address.js';
import { Clock, MemoryNetwork, makeClient, makeServer, run, token } from '../support/netcode-harness.js';

const SERVER = '10.0.0.100:40000';

function connectedPair(options = {}) {
  const network = new MemoryNetwork();
  const clock = new Clock();
  const s = makeServer(network, clock, [SERVER], options);
  const c = makeClient(network);
  c.client.connect(token(clock, 42n, [toAddress(SERVER)]), clock.now);
  run(clock, 1, [s.server, c.client]);
  return { network, clock, s, c };
}

describe('netcode client and server', () => {
  it('connect, then packets both ways through each side ReliableEndpoint', () => {
    const { clock, s, c } = connectedPair();
    assert.equal(c.client.state, ClientState.Connected);
    assert.deepEqual(c.states, [
      ClientState.SendingConnectionRequest,
      ClientState.SendingConnectionResponse,
      ClientState.Connected,
    ]);
    assert.deepEqual(s.events.connects, [{ index: 0, clientId: 42n }]);
    assert.equal(c.client.clientIndex, 0);
    assert.equal(c.client.maxClients, 256);
    for (let i = 0; i < 20; i++) {
      c.client.send(new Uint8Array([1, i]));
      s.server.send(0, new Uint8Array([2, i, 0, 0]));
      run(clock, 0.05, [s.server, c.client]);
    }
    run(clock, 0.5, [s.server, c.client]);
    assert.equal(s.events.packets.length, 20);
    assert.deepEqual(s.events.packets[7].bytes, new Uint8Array([1, 7]));
    assert.equal(c.packets.length, 20);
    assert.ok(s.server.endpoint(0).counters.packetsAcked >= 19);
    assert.ok(c.client.endpoint!.rtt > 0);
  });

  it('raw mode (reliable: false) carries netcode payloads as they are, as plain netcode peers expect', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { reliable: false });
    const raw = network.createTransport('10.0.0.2:0');
    const received: Uint8Array[] = [];
    const client = new Client({
      transport: raw,
      aead: nobleAead,
      reliable: false,
      onPacket: (data, offset, length) => received.push(data.slice(offset, offset + length)),
    });
    client.connect(token(clock, 8n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, client]);
    const payload = Uint8Array.from({ length: 1200 }, (_, i) => i & 0xff);
    client.send(payload);
    s.server.send(0, payload.subarray(0, 10));
    run(clock, 0.1, [s.server, client]);
    assert.deepEqual(s.events.packets[0].bytes, payload, 'exactly the bytes sent, no reliable header');
    assert.deepEqual(received[0], payload.subarray(0, 10));
    assert.equal(client.endpoint, null);
    assert.throws(() => s.server.endpoint(0), /raw payloads/);
    assert.throws(() => client.send(new Uint8Array(1201)), /1\.\.1200/);
  });

  it('a large packet is fragmented by the reliable layer inside netcode payloads', () => {
    const { clock, s, c } = connectedPair();
    const big = Uint8Array.from({ length: 10_000 }, (_, i) => i & 0xff);
    s.server.send(0, big);
    run(clock, 0.5, [s.server, c.client]);
    assert.deepEqual(c.packets.at(-1), big);
  });

  it('a full server denies: the client ends in ConnectionDenied', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 1 });
    const first = makeClient(network);
    const second = makeClient(network);
    first.client.connect(token(clock, 1n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, first.client]);
    second.client.connect(token(clock, 2n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, first.client, second.client]);
    assert.equal(first.client.state, ClientState.Connected);
    assert.equal(second.client.state, ClientState.ConnectionDenied);
    assert.ok(s.server.counters.deniedFull >= 1);
  });

  it('refuses expired tokens, tokens for another protocol or server, forged tokens; the client times out', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER]);
    // A token valid for 1 s, presented once it has expired.
    const stale = token(clock, 1n, [toAddress(SERVER)], { expireSeconds: 1 });
    run(clock, 1.5, [s.server]);
    const cases = [
      ['requestsExpired', stale],
      ['requestsInvalid', token(clock, 2n, [toAddress(SERVER)], { protocolId: 7n })],
      ['requestsWrongServer', token(clock, 3n, [toAddress('10.9.9.9:1')])],
      ['requestsBadToken', token(clock, 4n, [toAddress(SERVER)], { privateKey: new Uint8Array(32) })],
    ] as const;
    for (const [counter, bytes] of cases) {
      const c = makeClient(network);
      // Direct the client at our server even when the token names another.
      c.client.connect(bytes, clock.now);
      if (counter === 'requestsWrongServer') {
        (c.client as unknown as { token: { serverAddresses: string[] } }).token.serverAddresses = [SERVER];
      }
      run(clock, 6, [s.server, c.client]);
      assert.ok(s.server.counters[counter] > 0, counter);
      assert.ok(
        c.client.state === ClientState.ConnectionRequestTimedOut ||
          c.client.state === ClientState.ConnectTokenExpired,
        `${counter}: state ${c.client.state}`,
      );
    }
    assert.equal(s.server.connectedClients, 0);
  });

  it('every client error state: invalid token, response timed out, token expired', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER]);

    const invalid = makeClient(network);
    invalid.client.connect(new Uint8Array(2048).fill(7), clock.now);
    assert.equal(invalid.client.state, ClientState.InvalidConnectToken);
    invalid.client.connect(new Uint8Array(100), clock.now);
    assert.equal(invalid.client.state, ClientState.InvalidConnectToken);

    // The server answers requests, but the client's responses never arrive.
    const mute = makeClient(network);
    const send = mute.transport.send.bind(mute.transport);
    mute.transport.send = (to, data) => {
      if ((data[0] & 0xf) !== 3) send(to, data);
    };
    mute.client.connect(token(clock, 11n, [toAddress(SERVER)], { timeoutSeconds: 2 }), clock.now);
    run(clock, 4, [s.server, mute.client]);
    assert.equal(mute.client.state, ClientState.ConnectionResponseTimedOut);

    // Nobody answers and the token's 2 s lifetime ends before its 10 s timeout.
    const late = makeClient(network);
    late.client.connect(
      token(clock, 12n, [toAddress('10.0.0.250:9')], { expireSeconds: 2, timeoutSeconds: 10 }),
      clock.now,
    );
    run(clock, 3, [late.client]);
    assert.equal(late.client.state, ClientState.ConnectTokenExpired);
  });

  it('tries each server in the token in turn', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER]);
    const c = makeClient(network);
    c.client.connect(
      token(clock, 5n, [toAddress('10.0.0.200:1'), toAddress(SERVER)], { timeoutSeconds: 1 }),
      clock.now,
    );
    run(clock, 3, [s.server, c.client]);
    assert.equal(c.client.state, ClientState.Connected);
    assert.equal(c.client.serverAddress, SERVER);
  });

  it('disconnect reasons on both sides: client leaves, kick, shut down, timeouts', () => {
    let p = connectedPair();
    p.c.client.disconnect();
    run(p.clock, 0.1, [p.s.server]);
    assert.equal(p.s.events.disconnects[0].reason, 'client disconnected');

    p = connectedPair();
    p.s.server.disconnect(0);
    run(p.clock, 0.1, [p.s.server, p.c.client]);
    assert.equal(p.s.events.disconnects[0].reason, 'kicked');
    assert.equal(p.c.client.state, ClientState.Disconnected);

    p = connectedPair();
    p.s.server.stop();
    run(p.clock, 0.1, [p.c.client]);
    assert.equal(p.s.events.disconnects[0].reason, 'server shut down');
    assert.equal(p.c.client.state, ClientState.Disconnected);

    p = connectedPair();
    run(p.clock, 6, [p.s.server]); // the client goes silent
    assert.equal(p.s.events.disconnects[0].reason, 'timed out');

    p = connectedPair();
    run(p.clock, 6, [p.c.client]); // the server goes silent
    assert.equal(p.c.client.state, ClientState.ConnectionTimedOut);
  });

  it('a restarted server re-seeds its global sequence and challenge key, and accepts clients again', () => {
    const { clock, s, c } = connectedPair();
    const internals = s.server as unknown as { globalSequence: bigint; challengeKey: Uint8Array };
    assert.ok(internals.globalSequence > 1n << 63n, 'the handshake used global packets');
    const key = internals.challengeKey.slice();
    s.server.stop();
    assert.equal(internals.globalSequence, 1n << 63n);
    assert.notDeepEqual(internals.challengeKey, key);
    run(clock, 0.1, [s.server, c.client]);
    assert.equal(c.client.state, ClientState.Disconnected);
    c.client.connect(token(clock, 43n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, c.client]);
    assert.notEqual(c.client.state, ClientState.Connected, 'a stopped server accepts nobody');
    s.server.start();
    c.client.connect(token(clock, 43n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, c.client]);
    assert.equal(c.client.state, ClientState.Connected);
  });

  it('timeouts disabled (negative timeout): a silent connection stays up', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER]);
    const c = makeClient(network);
    c.client.connect(token(clock, 6n, [toAddress(SERVER)], { timeoutSeconds: -1 }), clock.now);
    run(clock, 1, [s.server, c.client]);
    run(clock, 30, [s.server]);
    run(clock, 30, [c.client]);
    assert.equal(s.server.connectedClients, 1);
    assert.equal(c.client.state, ClientState.Connected);
  });

  it('reconnects with a new token after disconnecting', () => {
    const { clock, s, c } = connectedPair();
    c.client.disconnect();
    run(clock, 0.2, [s.server, c.client]);
    c.client.connect(token(clock, 42n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, c.client]);
    assert.equal(c.client.state, ClientState.Connected);
    assert.equal(s.events.connects.length, 2);
  });

  it('many clients connect and exchange packets', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 64 });
    const clients = Array.from({ length: 48 }, () => makeClient(network));
    clients.forEach((c, i) => {
      c.client.connect(token(clock, BigInt(100 + i), [toAddress(SERVER)]), clock.now);
    });
    run(clock, 1, [s.server, ...clients.map((c) => c.client)]);
    assert.equal(s.server.connectedClients, 48);
    for (const c of clients) c.client.send(new Uint8Array([c.client.clientIndex]));
    run(clock, 0.2, [s.server, ...clients.map((c) => c.client)]);
    assert.equal(s.events.packets.length, 48);
    for (const p of s.events.packets) assert.equal(p.bytes[0], p.index);
  });

  it('two servers, each accepting its own clients', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const a = makeServer(network, clock, ['10.0.0.100:1']);
    const b = makeServer(network, clock, ['10.0.0.101:1']);
    const ca = makeClient(network);
    const cb = makeClient(network);
    ca.client.connect(token(clock, 1n, [toAddress('10.0.0.100:1')]), clock.now);
    cb.client.connect(token(clock, 2n, [toAddress('10.0.0.101:1')]), clock.now);
    run(clock, 1, [a.server, b.server, ca.client, cb.client]);
    assert.equal(a.server.connectedClients, 1);
    assert.equal(b.server.connectedClients, 1);
  });
});

describe('netcode server security', () => {
  it('nothing sent to an unconnected address is larger than the request that caused it', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 1 });
    const sizes: number[] = [];
    const transport = s.transports[0];
    const send = transport.send.bind(transport);
    transport.send = (to, data) => {
      if (!s.server.isConnected(0) || to !== s.server.clientAddress(0)) sizes.push(data.length);
      send(to, data);
    };
    const first = makeClient(network);
    first.client.connect(token(clock, 1n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, first.client]);
    const second = makeClient(network);
    second.client.connect(token(clock, 2n, [toAddress(SERVER)]), clock.now);
    run(clock, 1, [s.server, second.client]);
    assert.ok(
      sizes.length >= 2,
      `${sizes.length} packets to unconnected addresses (a challenge and a denial expected)`,
    );
    for (const n of sizes)
      assert.ok(n <= CONNECTION_REQUEST_BYTES, `sent ${n} bytes to an unconnected address`);
  });

  it('a token used from one address is refused from another', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 4 });
    const bytes = token(clock, 77n, [toAddress(SERVER)]);
    const a = makeClient(network);
    const b = makeClient(network);
    a.client.connect(bytes, clock.now);
    run(clock, 1, [s.server, a.client]);
    b.client.connect(bytes, clock.now);
    run(clock, 1, [s.server, a.client, b.client]);
    assert.equal(s.server.connectedClients, 1);
    assert.ok(s.server.counters.requestsTokenReused + s.server.counters.requestsAlreadyConnected > 0);
    assert.notEqual(b.client.state, ClientState.Connected);
  });

  it('replayed packets are ignored; unknown addresses cause no decryption; tampering fails the MAC', () => {
    const { network, clock, s, c } = connectedPair();
    const captured: Uint8Array[] = [];
    const transport = c.transport;
    const send = transport.send.bind(transport);
    transport.send = (to, data) => {
      captured.push(data.slice());
      send(to, data);
    };
    c.client.send(new Uint8Array([9, 9]));
    run(clock, 0.1, [s.server, c.client]);
    assert.equal(s.events.packets.length, 1);
    const spoof = network.createTransport('10.0.0.66:5');
    const attacker = network.createTransport('10.0.0.67:5');
    const replays = s.server.counters.replayedPackets;
    // Replays from the client's own address: refused by replay protection.
    transport.send = send;
    for (const packet of captured) send(toAddress(SERVER), packet);
    run(clock, 0.1, [s.server]);
    assert.equal(s.events.packets.length, 1, 'a replayed payload is not delivered again');
    assert.ok(s.server.counters.replayedPackets > replays);
    // The same bytes from addresses with no slot: dropped before any decryption.
    const unknown = s.server.counters.unknownAddress;
    for (const packet of captured) {
      spoof.send(toAddress(SERVER), packet);
      attacker.send(toAddress(SERVER), packet);
    }
    run(clock, 0.1, [s.server]);
    assert.equal(s.server.counters.unknownAddress - unknown, captured.length * 2);
    // A tampered byte anywhere: refused.
    const rejected = s.server.counters.rejectedPackets + s.server.counters.replayedPackets;
    for (const packet of captured) {
      const tampered = packet.slice();
      tampered[tampered.length - 3] ^= 0x40;
      send(toAddress(SERVER), tampered);
    }
    run(clock, 0.1, [s.server]);
    assert.equal(s.events.packets.length, 1);
    assert.ok(
      s.server.counters.rejectedPackets + s.server.counters.replayedPackets >= rejected + captured.length,
    );
  });

  it('a flood of forged requests from many addresses takes no slot and keeps no state', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 2 });
    const real = token(clock, 1n, [toAddress(SERVER)]);
    const request = new Uint8Array(CONNECTION_REQUEST_BYTES);
    for (let i = 0; i < 500; i++) {
      const from = network.createTransport(`10.1.${i >> 8}.${i & 0xff}:7`);
      // A valid-looking request: right framing, protocol and expiry, a token of random bytes.
      request.set(real.subarray(0, 1), 0);
      request[0] = 0;
      request.set(real.subarray(0, 13), 1);
      request.set(real.subarray(13, 21), 14);
      request.set(real.subarray(29, 37), 22);
      globalThis.crypto.getRandomValues(request.subarray(30));
      from.send(toAddress(SERVER), request);
      from.close();
    }
    run(clock, 0.1, [s.server]);
    assert.equal(s.server.counters.requestsBadToken, 500);
    assert.equal(s.server.connectedClients, 0);
    assert.equal((s.server as unknown as { pending: { size: number } }).pending.size, 0);
  });
});
