import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { toAddress } from '../../src/transport/address.js';
import { Clock, MemoryNetwork, makeClient, makeServer, token } from '../support/netcode-harness.js';

const SERVER = '10.0.0.100:40000';

/**
 * A server and a client ticking in lockstep at `hz` on one simulated clock (the server first, as
 * MessageServer / MessageClient and the game loop do), each sending one packet after its update.
 * `oneWayMs` of latency each way sits on the client's side (a NetworkSimulator); none is a plain
 * MemoryNetwork. Returns both ends' RTT figures after `seconds`.
 */
function lockstep(hz: number, oneWayMs: number, seconds = 3) {
  const network = new MemoryNetwork();
  const clock = new Clock();
  const s = makeServer(network, clock, [SERVER], { maxClients: 1 });
  const c = makeClient(network, oneWayMs > 0 ? { conditions: { latency: oneWayMs } } : {});
  c.client.connect(token(clock, 1n, [toAddress(SERVER)]), clock.now);
  const data = new Uint8Array(8);
  for (let k = 1; k <= seconds * hz; k++) {
    clock.now = k / hz;
    s.server.update(clock.now);
    if (s.server.isConnected(0)) s.server.send(0, data);
    c.client.update(clock.now);
    if (c.client.state === ClientState.Connected) c.client.send(data);
  }
  assert.equal(c.client.state, ClientState.Connected);
  return { server: s.server.endpoint(0), client: c.client.endpoint! };
}

describe('RTT over lockstep ticks', () => {
  // A packet sent after a tick's update waits ceil(L / dt) ticks for each one-way latency L (a
  // datagram due exactly on a tick is released on it), and one more tick because the two ends
  // take turns: whichever updates first reads the other's reply only at its next tick. So
  // RTT = (2 × ceil(L / dt) + 1) × dt, the same seen from either end.
  for (const hz of [20, 60, 200]) {
    for (const roundTripMs of [0, 60]) {
      const dt = 1000 / hz;
      const ticks = 2 * Math.ceil(roundTripMs / 2 / dt - 1e-9) + 1;
      const expected = ticks * dt;
      it(`${roundTripMs} ms round trip at ${hz} Hz reads ${ticks} tick${ticks === 1 ? '' : 's'}: ${expected.toFixed(2)} ms at both ends`, () => {
        const ends = lockstep(hz, roundTripMs / 2);
        for (const [name, e] of Object.entries(ends)) {
          assert.ok(Math.abs(e.rtt - expected) < 1e-6, `${name}: rtt ${e.rtt}, expected ${expected}`);
          // The history is a Float32Array: min and max within its rounding.
          assert.ok(Math.abs(e.rttMin - expected) < 1e-3, `${name}: rttMin ${e.rttMin}`);
          assert.ok(Math.abs(e.rttMax - expected) < 1e-3, `${name}: rttMax ${e.rttMax}`);
        }
      });
    }
  }
});
