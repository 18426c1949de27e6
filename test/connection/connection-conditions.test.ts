import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { toAddress } from '../../src/transport/address.js';
import type { LinkConditions } from '../../src/transport/simulator.js';
import { Clock, MemoryNetwork, makeClient, makeServer, run, token } from '../support/netcode-harness.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('connection conditions');
const SERVER = '10.0.0.100:40000';
const LINKS: [string, LinkConditions | undefined][] = [
  ['a clean link', undefined],
  [
    '250 ms latency, 250 ms jitter, 5% loss, 10% duplicates',
    { latency: 250, jitter: 250, loss: 5, duplicates: 10 },
  ],
];

for (const [name, conditions] of LINKS) {
  /** Extra simulated seconds for handshakes and deliveries to cross a slow, lossy link. */
  const settle = conditions ? 3 : 0;
  const lossy = conditions !== undefined;
  let seed = SEED;
  const env = (maxClients = 256) => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    // The link's conditions are applied once, at the client (outgoing and incoming): wrapping
    // the server too would put every datagram through two lossy hops.
    const s = makeServer(network, clock, [SERVER], { maxClients });
    const client = () => makeClient(network, { conditions, seed: seed++ >>> 0 });
    return { network, clock, s, client };
  };
  /** Delivery without retransmission: all of it on a clean link, nearly all on a lossy one. */
  const assertDelivered = (got: number, sent: number, what: string) => {
    if (lossy) assert.ok(got >= sent * 0.85 && got <= sent, `${what}: ${got} of ${sent}`);
    else assert.equal(got, sent, what);
  };
  const timeout = 10;

  describe(`netcode scenarios on ${name} (seed ${SEED})`, () => {
    it('connect and exchange packets both ways', () => {
      const { clock, s, client } = env();
      const c = client();
      c.client.connect(token(clock, 1n, [toAddress(SERVER)], { timeoutSeconds: timeout }), clock.now);
      run(clock, 1 + settle, [s.server, c.client]);
      assert.equal(c.client.state, ClientState.Connected);
      for (let i = 0; i < 100; i++) {
        c.client.send(new Uint8Array([i]));
        s.server.send(0, new Uint8Array([i, 1]));
        run(clock, 1 / 30, [s.server, c.client]);
      }
      run(clock, 1 + settle, [s.server, c.client]);
      const fromClient = s.events.packets.map((p) => p.bytes[0]);
      assert.equal(new Set(fromClient).size, fromClient.length, 'no duplicates delivered');
      assertDelivered(fromClient.length, 100, 'client -> server');
      assertDelivered(c.packets.length, 100, 'server -> client');
    });

    it('a full server denies', () => {
      const { clock, s, client } = env(1);
      const first = client();
      const second = client();
      first.client.connect(token(clock, 1n, [toAddress(SERVER)], { timeoutSeconds: timeout }), clock.now);
      run(clock, 1 + settle, [s.server, first.client]);
      second.client.connect(token(clock, 2n, [toAddress(SERVER)], { timeoutSeconds: timeout }), clock.now);
      run(clock, 1 + settle, [s.server, first.client, second.client]);
      assert.equal(first.client.state, ClientState.Connected);
      assert.equal(second.client.state, ClientState.ConnectionDenied);
    });

    it('bad tokens are refused and the client times out', () => {
      const { clock, s, client } = env();
      const c = client();
      c.client.connect(
        token(clock, 3n, [toAddress(SERVER)], { protocolId: 5n, timeoutSeconds: 2 }),
        clock.now,
      );
      run(clock, 3 + settle, [s.server, c.client]);
      assert.equal(c.client.state, ClientState.ConnectionRequestTimedOut);
      assert.ok(s.server.counters.requestsInvalid > 0);
      assert.equal(s.server.connectedClients, 0);
    });

    it('falls back to the next server in the token', () => {
      const { clock, s, client } = env();
      const c = client();
      // The per-server timeout must exceed the link's worst round trip (up to 1 s when lossy).
      const perServer = lossy ? 3 : 1;
      const addresses = [toAddress('10.0.0.200:1'), toAddress(SERVER)];
      c.client.connect(token(clock, 4n, addresses, { timeoutSeconds: perServer }), clock.now);
      run(clock, perServer + 1 + settle, [s.server, c.client]);
      assert.equal(c.client.state, ClientState.Connected);
    });

    it('disconnect reasons: client leaves, kick, shut down, both timeouts', () => {
      const connected = () => {
        const e = env();
        const c = e.client();
        c.client.connect(token(e.clock, 5n, [toAddress(SERVER)], { timeoutSeconds: 3 }), e.clock.now);
        run(e.clock, 1 + settle, [e.s.server, c.client]);
        assert.equal(c.client.state, ClientState.Connected);
        return { ...e, c };
      };
      let e = connected();
      e.c.client.disconnect();
      // The simulated link keeps carrying what the client sent (a socket would have sent it at once).
      run(e.clock, 1 + settle, [e.s.server, e.c.transport]);
      assert.equal(e.s.events.disconnects[0]?.reason, 'client disconnected');

      e = connected();
      e.s.server.disconnect(0);
      run(e.clock, 1 + settle, [e.s.server, e.c.client]);
      assert.equal(e.s.events.disconnects[0].reason, 'kicked');
      assert.equal(e.c.client.state, ClientState.Disconnected);

      e = connected();
      e.s.server.stop();
      run(e.clock, 1 + settle, [e.s.server, e.c.client]);
      assert.equal(e.s.events.disconnects[0].reason, 'server shut down');
      assert.equal(e.c.client.state, ClientState.Disconnected);

      e = connected();
      run(e.clock, 5, [e.s.server]);
      assert.equal(e.s.events.disconnects[0].reason, 'timed out');

      e = connected();
      run(e.clock, 5, [e.c.client]);
      assert.equal(e.c.client.state, ClientState.ConnectionTimedOut);
    });

    it('timeouts disabled keep a silent connection up', () => {
      const { clock, s, client } = env();
      const c = client();
      c.client.connect(token(clock, 6n, [toAddress(SERVER)], { timeoutSeconds: -1 }), clock.now);
      run(clock, 1 + settle, [s.server, c.client]);
      run(clock, 20, [s.server]);
      run(clock, 20, [c.client]);
      assert.equal(s.server.connectedClients, 1);
      assert.equal(c.client.state, ClientState.Connected);
    });

    it('reconnects, restarts, and serves many clients and two servers', () => {
      const { network, clock, s, client } = env(64);
      const clients = Array.from({ length: 32 }, () => client());
      clients.forEach((c, i) => {
        c.client.connect(
          token(clock, BigInt(100 + i), [toAddress(SERVER)], { timeoutSeconds: timeout }),
          clock.now,
        );
      });
      run(clock, 1 + settle, [s.server, ...clients.map((c) => c.client)]);
      assert.equal(s.server.connectedClients, 32);

      const first = clients[0];
      first.client.disconnect();
      run(clock, 1 + settle, [s.server, ...clients.map((c) => c.client)]);
      first.client.connect(token(clock, 100n, [toAddress(SERVER)], { timeoutSeconds: timeout }), clock.now);
      run(clock, 1 + settle, [s.server, ...clients.map((c) => c.client)]);
      assert.equal(first.client.state, ClientState.Connected, 'reconnected');

      s.server.stop();
      s.server.start();
      run(clock, 1 + settle, [s.server, ...clients.map((c) => c.client)]);
      assert.equal(s.server.connectedClients, 0);
      first.client.connect(token(clock, 100n, [toAddress(SERVER)], { timeoutSeconds: timeout }), clock.now);
      run(clock, 1 + settle, [s.server, first.client]);
      assert.equal(first.client.state, ClientState.Connected, 'connected to the restarted server');

      const other = makeServer(network, clock, ['10.0.0.101:1']);
      const c2 = client();
      c2.client.connect(
        token(clock, 200n, [toAddress('10.0.0.101:1')], { timeoutSeconds: timeout }),
        clock.now,
      );
      run(clock, 1 + settle, [s.server, other.server, first.client, c2.client]);
      assert.equal(other.server.connectedClients, 1);
      assert.equal(s.server.connectedClients, 1);
    });
  });
}
