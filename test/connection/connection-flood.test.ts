import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nobleAead } from '../../src/connection/aead.js';
import { ClientState } from '../../src/connection/client.js';
import { readConnectToken } from '../../src/connection/connect-token.js';
import { MAX_PACKET_BYTES, PacketType } from '../../src/connection/constants.js';
import { PacketCodec } from '../../src/connection/packets.js';
import { type Address, toAddress } from '../../src/transport/address.js';
import {
  Clock,
  MemoryNetwork,
  makeClient,
  makeServer,
  PROTOCOL_ID,
  run,
  token,
} from '../support/netcode-harness.js';

// Connect tokens that are valid, distinct and presented, yet never answered: the attacker holds
// real tokens (from the backend) but never sends the challenge response.

const SERVER = '10.0.0.100:40000';
const SERVER_ADDRESS = toAddress(SERVER);
const TOKEN_SECONDS = 300;

/** Sends one connection request per fresh valid token, each from its own address, and never answers. */
class Flood {
  private readonly codec = new PacketCodec(PROTOCOL_ID, nobleAead);
  private readonly out = new Uint8Array(MAX_PACKET_BYTES);
  private next = 0;

  constructor(
    private readonly network: MemoryNetwork,
    private readonly clock: Clock,
  ) {}

  send(requests: number): void {
    for (let i = 0; i < requests; i++) {
      const n = this.next++;
      const read = readConnectToken(
        token(this.clock, 10_000n + BigInt(n), [SERVER_ADDRESS], { expireSeconds: TOKEN_SECONDS }),
      );
      if (!read.ok) throw new Error(read.reason);
      const t = read.token;
      const length = this.codec.writeConnectionRequest(this.out, t.expireTimestamp, t.nonce, t.privateData);
      const from = this.network.createTransport(`10.7.${n >> 8}.${n & 0xff}:${1000 + (n % 7)}`);
      from.send(SERVER_ADDRESS, this.out.subarray(0, length));
      from.close();
    }
  }
}

/** A client whose connection request and challenge response are kept, as an eavesdropper would. */
function capturedClient(network: MemoryNetwork) {
  const c = makeClient(network);
  const handshake: Uint8Array[] = [];
  const send = c.transport.send.bind(c.transport);
  c.transport.send = (to: Address, data: Uint8Array) => {
    const type = data[0] & 0xf;
    if (type === PacketType.ConnectionRequest || type === PacketType.ConnectionResponse)
      handshake.push(data.slice());
    send(to, data);
  };
  return { ...c, handshake };
}

describe('netcode server: token tables under floods of valid tokens and replays', () => {
  for (const maxPendingHandshakes of [undefined, 8]) {
    const table =
      maxPendingHandshakes === undefined ? 'default table' : `${maxPendingHandshakes} pending handshakes`;
    it(`16 × maxClients unanswered valid requests: a fresh client connects within a second, and a captured handshake replayed from another address does not (${table})`, () => {
      const network = new MemoryNetwork();
      const clock = new Clock();
      const maxClients = 2;
      const s = makeServer(network, clock, [SERVER], { maxClients, maxPendingHandshakes });
      // A victim connects and leaves; its request and response were captured on the way.
      const victim = capturedClient(network);
      victim.client.connect(token(clock, 7n, [SERVER_ADDRESS], { expireSeconds: TOKEN_SECONDS }), clock.now);
      run(clock, 0.5, [s.server, victim.client]);
      assert.equal(victim.client.state, ClientState.Connected);
      victim.client.disconnect();
      run(clock, 0.1, [s.server]);
      assert.equal(s.server.connectedClients, 0);
      const requests = victim.handshake.filter((p) => (p[0] & 0xf) === PacketType.ConnectionRequest);
      const responses = victim.handshake.filter((p) => (p[0] & 0xf) === PacketType.ConnectionResponse);
      assert.ok(requests.length > 0 && responses.length > 0);

      new Flood(network, clock).send(16 * maxClients);
      run(clock, 1 / 60, [s.server]);

      // The replay, from an address of the attacker's: refused at the request, so the response
      // finds no handshake to answer.
      const attacker = network.createTransport('10.9.9.9:5000');
      const reused = s.server.counters.requestsTokenReused;
      for (const p of requests) attacker.send(SERVER_ADDRESS, p);
      run(clock, 1 / 60, [s.server]);
      for (const p of responses) attacker.send(SERVER_ADDRESS, p);
      run(clock, 1 / 60, [s.server]);
      assert.equal(s.server.counters.requestsTokenReused - reused, requests.length);
      assert.equal(s.server.connectedClients, 0, 'the replay connected');

      // A legitimate client with a fresh token.
      const fresh = makeClient(network);
      fresh.client.connect(token(clock, 8n, [SERVER_ADDRESS], { expireSeconds: TOKEN_SECONDS }), clock.now);
      run(clock, 1, [s.server, fresh.client]);
      assert.equal(fresh.client.state, ClientState.Connected);
      assert.deepEqual(
        s.events.connects.map((e) => e.clientId),
        [7n, 8n],
      );
      // Not vacuous: every flood request opened and was challenged (and overflowed the small table).
      assert.equal(s.server.counters.requestsBadToken, 0);
      assert.ok(s.server.counters.requestsAccepted >= 2 + 16 * maxClients);
      if (maxPendingHandshakes !== undefined) assert.ok(s.server.counters.handshakesEvicted > 0);
    });
  }

  it('a flood sustained through the handshake: a fresh client connects while the rate stays under maxPendingHandshakes per round trip', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    // 64 pending handshakes against 8 new ones per 1/60 s tick (480 a second): each lasts ~8 ticks,
    // and a zero-latency handshake needs 2 or 3.
    const s = makeServer(network, clock, [SERVER], { maxClients: 2, maxPendingHandshakes: 64 });
    const flood = new Flood(network, clock);
    flood.send(64);
    const fresh = makeClient(network);
    fresh.client.connect(token(clock, 8n, [SERVER_ADDRESS], { expireSeconds: TOKEN_SECONDS }), clock.now);
    for (let tick = 0; tick < 60 && fresh.client.state !== ClientState.Connected; tick++) {
      flood.send(8);
      run(clock, 1 / 60, [s.server, fresh.client]);
    }
    assert.equal(fresh.client.state, ClientState.Connected);
    assert.ok(s.server.counters.handshakesEvicted > 0, 'the table was full throughout');
  });

  it('a handshake the server answered with a denial, replayed from another address once there is room, does not connect', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 1 });
    // Both are challenged; the filler's response arrives first and takes the only slot, so the
    // victim's response (which an eavesdropper keeps) is answered with a denial and never
    // completes: its token is in no used-token record once its handshake entry expires.
    const filler = makeClient(network);
    const victim = capturedClient(network);
    filler.client.connect(token(clock, 1n, [SERVER_ADDRESS]), clock.now);
    victim.client.connect(token(clock, 2n, [SERVER_ADDRESS]), clock.now);
    run(clock, 0.5, [s.server, filler.client, victim.client]);
    assert.equal(filler.client.state, ClientState.Connected);
    assert.equal(victim.client.state, ClientState.ConnectionDenied);
    assert.ok(victim.handshake.some((p) => (p[0] & 0xf) === PacketType.ConnectionResponse));
    filler.client.disconnect();
    run(clock, 6, [s.server]); // past the victim's handshake timeout (5 s)
    assert.equal(s.server.connectedClients, 0);

    const attacker = network.createTransport('10.9.9.9:5000');
    for (const p of victim.handshake) {
      attacker.send(SERVER_ADDRESS, p);
      run(clock, 1 / 60, [s.server]);
    }
    assert.equal(s.server.connectedClients, 0, 'the replayed handshake connected');
    assert.deepEqual(
      s.events.connects.map((e) => e.clientId),
      [1n],
    );
  });

  it("a stale captured request spoofed from a client's own address mid-handshake does not overwrite its keys", () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxClients: 1 });
    // A token presented once, from elsewhere, to a full server: denied, never connected.
    const filler = makeClient(network);
    filler.client.connect(token(clock, 1n, [SERVER_ADDRESS]), clock.now);
    run(clock, 0.5, [s.server, filler.client]);
    const other = capturedClient(network);
    other.client.connect(token(clock, 3n, [SERVER_ADDRESS]), clock.now);
    run(clock, 0.5, [s.server, other.client]);
    assert.equal(other.client.state, ClientState.ConnectionDenied);
    const stale = other.handshake[0];
    filler.client.disconnect();
    run(clock, 6, [s.server]); // past any handshake entry of its own

    // The victim connects while the attacker sends the stale request from the victim's address
    // after every server update, ahead of the victim's own response.
    const victim = makeClient(network);
    victim.client.connect(token(clock, 2n, [SERVER_ADDRESS]), clock.now);
    const reused = s.server.counters.requestsTokenReused;
    for (let tick = 0; tick < 60 && victim.client.state !== ClientState.Connected; tick++) {
      clock.now += 1 / 60;
      s.server.update(clock.now);
      network.route(victim.transport.localAddress, SERVER_ADDRESS, stale);
      victim.client.update(clock.now);
    }
    assert.equal(victim.client.state, ClientState.Connected);
    assert.ok(s.server.counters.requestsTokenReused > reused);
  });

  it('maxPendingHandshakes below 4 × maxClients, fractional or not a number throws naming it', () => {
    for (const maxPendingHandshakes of [7, 8.5, Number.NaN, 2 ** 21]) {
      assert.throws(
        () => makeServer(new MemoryNetwork(), new Clock(), [SERVER], { maxClients: 2, maxPendingHandshakes }),
        (error: unknown) => error instanceof RangeError && /maxPendingHandshakes/.test(error.message),
      );
    }
    makeServer(new MemoryNetwork(), new Clock(), [SERVER], { maxClients: 2, maxPendingHandshakes: 8 });
  });
});
