/**
 * The stack's one rule for time (src/time/check-time.ts): every `update(now)` and every call that
 * takes `now` throws a RangeError on NaN, ±Infinity or a time earlier than the last, and changes
 * nothing when it does. Equal times are accepted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { ClientState } from '../../src/connection/client.js';
import { ReliableEndpoint } from '../../src/packet/endpoint.js';
import { t } from '../../src/schema/index.js';
import { toAddress } from '../../src/transport/address.js';
import { NetworkSimulator } from '../../src/transport/simulator.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { Clock, MemoryNetwork, makeClient, makeServer, run, token } from '../support/netcode-harness.js';

const BAD = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
const SERVER = '10.0.0.100:40000';

/** `update` accepts `start` and `start` again, then refuses every bad time and still accepts a later one. */
function obeysTheRule(name: string, update: (now: number) => void, start: number): void {
  update(start);
  update(start); // equal times: several calls in one tick
  for (const bad of [...BAD, start - 0.001, start - 1e6])
    assert.throws(() => update(bad), RangeError, `${name}.update(${bad}) must throw`);
  update(start + 1);
}

function connectedPair() {
  const network = new MemoryNetwork();
  const clock = new Clock();
  const s = makeServer(network, clock, [SERVER]);
  const c = makeClient(network);
  c.client.connect(token(clock, 42n, [toAddress(SERVER)]), clock.now);
  run(clock, 1, [s.server, c.client]);
  assert.equal(c.client.state, ClientState.Connected);
  return { network, clock, s, c };
}

describe('time rule: non-finite or backwards time throws at the call', () => {
  it('ReliableEndpoint.update(NaN) throws and reports no outstanding packet lost', () => {
    const lost: number[] = [];
    const endpoint = new ReliableEndpoint({
      transmit: () => {},
      process: () => true,
      onLost: (s) => lost.push(s),
    });
    endpoint.update(1);
    for (let i = 0; i < 10; i++) endpoint.sendPacket(new Uint8Array(8), 8);
    assert.throws(() => endpoint.update(Number.NaN), /finite/);
    assert.deepEqual(lost, []);
    assert.equal(endpoint.counters.packetsLost, 0);
    obeysTheRule('ReliableEndpoint', (now) => endpoint.update(now), 2);
    assert.throws(
      () => new ReliableEndpoint({ transmit: () => {}, process: () => true }, {}, Number.NaN),
      RangeError,
    );
  });

  it('ReliableEndpoint.advanceTime obeys the rule and only moves the clock: nothing is reported lost until update', () => {
    const lost: number[] = [];
    const endpoint = new ReliableEndpoint({
      transmit: () => {},
      process: () => true,
      onLost: (s) => lost.push(s),
    });
    endpoint.update(1);
    endpoint.sendPacket(new Uint8Array(8), 8);
    obeysTheRule('ReliableEndpoint.advanceTime', (now) => endpoint.advanceTime(now), 2);
    endpoint.advanceTime(100);
    assert.deepEqual(lost, []);
    assert.throws(() => endpoint.update(99), RangeError, 'advanceTime moved the clock');
    endpoint.update(100);
    assert.deepEqual(lost, [0]);
  });

  it('Server.update(NaN) with a packet queued throws; the client still times out later', () => {
    const { clock, s, c } = connectedPair();
    c.client.send(new Uint8Array(4));
    c.client.update(clock.now); // the packet is now queued at the server
    assert.throws(() => s.server.update(Number.NaN), /finite/);
    // Nothing was taken from the queue: a valid update receives the packet.
    const before = s.events.packets.length;
    s.server.update(clock.now);
    assert.equal(s.events.packets.length, before + 1);
    // The slot's receive time stayed a number: silence now times the client out (5 s token timeout).
    run(clock, 6, [s.server]);
    assert.deepEqual(
      s.events.disconnects.map((d) => d.reason),
      ['timed out'],
    );
  });

  it('a very negative time does not kick clients: it throws', () => {
    const { clock, s } = connectedPair();
    assert.throws(() => s.server.update(-1e9), /backwards/);
    run(clock, 0.5, [s.server]);
    assert.equal(s.events.disconnects.length, 0);
  });

  it('Server, Client and Client.connect obey the rule', () => {
    const { clock, s, c } = connectedPair();
    obeysTheRule('Server', (now) => s.server.update(now), clock.now);
    obeysTheRule('Client', (now) => c.client.update(now), clock.now);
    assert.throws(() => c.client.connect(token(clock, 7n, [toAddress(SERVER)]), clock.now - 5), /backwards/);
    assert.equal(c.client.state, ClientState.Connected); // the failed call changed nothing
  });

  it('transports and the simulator obey the rule', async () => {
    const network = new MemoryNetwork();
    const memory = network.createTransport('10.0.0.1:1');
    obeysTheRule('MemoryTransport', (now) => memory.update(now), 3);
    const simulator = new NetworkSimulator(network.createTransport('10.0.0.1:2'), { seed: 1, now: 3 });
    obeysTheRule('NetworkSimulator', (now) => simulator.update(now), 3);
    const udp = await UdpTransport.open({ address: '127.0.0.1:0' });
    try {
      obeysTheRule('UdpTransport', (now) => udp.update(now), 3);
    } finally {
      udp.close();
    }
  });

  it('MessageConnection.writePacket obeys the rule', () => {
    const connection = new MessageConnection({
      factory: new MessageFactory([defineMessage('ping', t.object({}))]),
      channels: [{ kind: 'reliable-ordered' }],
    });
    obeysTheRule('MessageConnection', (now) => connection.writePacket(now), 0);
  });
});
