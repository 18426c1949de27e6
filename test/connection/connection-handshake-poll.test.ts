import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { toAddress } from '../../src/transport/address.js';
import { Clock, MemoryNetwork, makeClient, makeServer, token } from '../support/netcode-harness.js';

const SERVER = '10.0.0.100:40000';

function setup() {
  const network = new MemoryNetwork();
  const clock = new Clock();
  const s = makeServer(network, clock, [SERVER]);
  const c = makeClient(network);
  clock.now = 1;
  s.server.update(clock.now);
  c.client.connect(token(clock, 42n, [toAddress(SERVER)]), clock.now);
  return { network, clock, s, c };
}

describe('netcode handshake between server updates', () => {
  it('receiveHandshakes answers the request and the response: connected with no server update', () => {
    const { clock, s, c } = setup();
    const step = (dt: number) => {
      clock.now += dt;
      c.client.update(clock.now);
      s.server.receiveHandshakes(clock.now);
    };
    step(0.001); // request out, challenge back
    assert.equal(s.server.stats().requestsAccepted, 1);
    step(0.001); // challenge in, response out at once, keep-alive back
    assert.deepEqual(s.events.connects, [{ index: 0, clientId: 42n }]);
    step(0.001);
    assert.equal(c.client.state, ClientState.Connected);
  });

  it('a connected client datagram waits for update, then is handled in arrival order', () => {
    const { clock, s, c } = setup();
    for (let i = 0; i < 3; i++) {
      clock.now += 0.001;
      c.client.update(clock.now);
      s.server.receiveHandshakes(clock.now);
    }
    assert.equal(c.client.state, ClientState.Connected);
    c.client.send(new Uint8Array([1]));
    c.client.send(new Uint8Array([2]));
    clock.now += 0.001;
    s.server.receiveHandshakes(clock.now);
    assert.equal(s.events.packets.length, 0, 'payloads are not handled between updates');
    c.client.send(new Uint8Array([3]));
    s.server.update(clock.now);
    assert.deepEqual(
      s.events.packets.map((p) => p.bytes[0]),
      [1, 2, 3],
    );
    assert.equal(s.server.deferredDropped, 0);
  });

  it('handshake packets between updates are checked as in update: garbage is counted, not answered', () => {
    const { network, clock, s } = setup();
    const rogue = network.createTransport('10.0.0.9:5000');
    rogue.send(toAddress(SERVER), new Uint8Array(100)); // a connection request's type byte, wrong size
    rogue.send(toAddress(SERVER), Uint8Array.of(0x12, 1, 2, 3)); // a response from an unknown address
    clock.now += 0.001;
    s.server.receiveHandshakes(clock.now);
    assert.equal(s.server.stats().requestsInvalid, 1);
    assert.equal(s.server.stats().unknownAddress, 1);
    let answers = 0;
    rogue.receive(() => answers++);
    assert.equal(answers, 0);
  });

  it('the client answers a challenge in the update that receives it', () => {
    const { clock, s, c } = setup();
    clock.now += 0.001;
    c.client.update(clock.now); // request out
    s.server.update(clock.now); // challenge back
    const sent = c.transport.stats().sent;
    // Well within the request resend interval (0.1 s): only the challenge can make it send.
    clock.now += 0.001;
    c.client.update(clock.now);
    assert.equal(c.client.state, ClientState.SendingConnectionResponse);
    assert.equal(c.transport.stats().sent, sent + 1);
    s.server.receiveHandshakes(clock.now);
    assert.equal(s.events.connects.length, 1);
  });

  it('between two updates, receiveHandshakes takes at most maxDatagramsPerUpdate datagrams in all', () => {
    const network = new MemoryNetwork();
    const clock = new Clock();
    const s = makeServer(network, clock, [SERVER], { maxDatagramsPerUpdate: 8 });
    clock.now = 1;
    s.server.update(clock.now);
    const rogue = network.createTransport('10.0.0.9:5000');
    const flood = () => {
      for (let i = 0; i < 20; i++) rogue.send(toAddress(SERVER), new Uint8Array(100));
    };
    const tick = () => {
      clock.now += 0.001;
      return clock.now;
    };
    flood();
    for (let i = 0; i < 3; i++) s.server.receiveHandshakes(tick());
    assert.equal(s.server.stats().requestsInvalid, 8);
    s.server.update(tick());
    assert.equal(s.server.stats().requestsInvalid, 16, 'update takes its own 8');
    s.server.receiveHandshakes(tick());
    assert.equal(s.server.stats().requestsInvalid, 20, 'a fresh budget after the update');
  });
});
