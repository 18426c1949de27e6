import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import {
  ClientMirror,
  defineEntity,
  defineEvent,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { NetworkSimulator } from '../../src/transport/simulator.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

/** Flow modes end to end: the link's RTT, as the packet layer measures it, sets the section's rate. */
const SEED = testSeed('replication flow');
const Blob = defineEntity('blob', t.object({ a: t.uint32(), b: t.uint32(), c: t.uint32(), d: t.uint32() }));
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(8) }))]);
const CAPACITY = 200;
const HZ = 60;

/** One client behind a simulated link; a world of 200 entities all changing every tick (far more than any rate allows). */
function scene(flow: boolean) {
  const world = new ServerWorld({ types: [Blob], capacity: CAPACITY });
  const replication = new ReplicationServer({
    world,
    maxClients: 2,
    bandwidth: { kbps: 128 },
    ...(flow ? { flow: { badKbps: 32 } } : {}),
  });
  const session = messageSession({
    protocolId: 91n,
    factory,
    channels: [replication.channel],
    maxClients: 2,
  });
  const mirror = new ClientMirror({ types: [Blob], capacity: CAPACITY });
  const link = new NetworkSimulator(session.network.createTransport('10.0.0.9:9'), { seed: SEED });
  const client = new MessageClient({ transport: link, aead: nobleAead, factory, channels: [mirror.channel] });
  const entities = Array.from({ length: CAPACITY }, (_, i) => world.create(Blob, { a: i, b: 0, c: 0, d: 0 }));
  let n = 0;
  const step = () => {
    n++;
    for (const e of entities) world.set(e, { a: e.id, b: n, c: n * 7, d: n * 13 });
    world.tick();
    session.tick([client], 1 / HZ);
  };
  client.connect(session.token(1n), session.clock.now);
  for (let i = 0; i < 120 && !client.connected; i++) step();
  assert.ok(client.connected, 'the client connects');
  /** The section's bytes a second over the next `seconds` (the server socket's bytes, less one packet header each). */
  const rate = (seconds: number) => {
    const before = session.serverSocket.stats.bytesSent;
    for (let i = 0; i < seconds * HZ; i++) step();
    return ((session.serverSocket.stats.bytesSent - before) * 8) / 1000 / seconds;
  };
  return { replication, link, step, rate, index: client.client.clientIndex };
}

describe('replication flow modes (good / bad)', () => {
  it('a long round trip drops the client to the bad rate; a short one brings it back after the penalty', () => {
    const s = scene(true);
    assert.deepEqual(s.replication.flowStats(s.index), { mode: 'good', kbps: 128, penalty: 4, drops: 0 });
    const good = s.rate(3);
    // 128 kbit/s of sections plus each packet's netcode and packet headers.
    assert.ok(good > 120 && good < 128 + 60 * 0.5, `good mode sends ${good.toFixed(1)} kbit/s`);
    s.link.setConditions('outgoing', { latency: 150 });
    s.link.setConditions('incoming', { latency: 150 });
    s.rate(2); // the smoothed RTT climbs past 250 ms
    assert.equal(s.replication.flowStats(s.index)?.mode, 'bad');
    const bad = s.rate(3);
    assert.ok(bad < 32 + 60 * 0.5, `bad mode sends ${bad.toFixed(1)} kbit/s`);
    s.link.setConditions('outgoing', { latency: 10 });
    s.link.setConditions('incoming', { latency: 10 });
    s.rate(3);
    assert.equal(s.replication.flowStats(s.index)?.mode, 'bad', 'still paying the 4 s penalty');
    s.rate(3);
    assert.deepEqual(s.replication.flowStats(s.index), { mode: 'good', kbps: 128, penalty: 4, drops: 1 });
  });

  it('without flow modes the rate stays fixed, and there are no flow stats', () => {
    const s = scene(false);
    assert.equal(s.replication.flowStats(s.index), null);
    s.link.setConditions('outgoing', { latency: 150 });
    s.link.setConditions('incoming', { latency: 150 });
    s.rate(2);
    const rate = s.rate(3);
    assert.ok(rate > 120, `the fixed rate holds: ${rate.toFixed(1)} kbit/s`);
  });

  it('checks its options at construction', () => {
    const world = new ServerWorld({ types: [Blob], capacity: 4 });
    assert.throws(() => new ReplicationServer({ world, flow: { goodKbps: 10, badKbps: 20 } }), /badKbps/);
    assert.throws(() => new ReplicationServer({ world, flow: { rttThreshold: -1 } }), RangeError);
    assert.equal(
      new ReplicationServer({ world: new ServerWorld({ types: [Blob], capacity: 4 }) }).flowStats(0),
      null,
    );
  });
});

describe('what can never fit a section', () => {
  it('an entity type or event past the room throws at construction, naming it; what fits passes', () => {
    const Note = defineEntity('note', t.object({ text: t.string(600) }));
    const world = new ServerWorld({ types: [Blob, Note], capacity: 8 });
    assert.throws(
      () => new ReplicationServer({ world }),
      /entity type note may take \d+ bits.*could never be sent/,
    );
    assert.doesNotThrow(() => new ReplicationServer({ world, bandwidth: { bytesPerPacket: 700 } }));
    assert.throws(
      () => new ReplicationServer({ world, bandwidth: { bytesPerPacket: 700 }, budgetBytes: 400 }),
      /entity type note/,
    );
    const Shout = defineEvent('shout', t.object({ text: t.string(600) }));
    const small = new ServerWorld({ types: [Blob], capacity: 8 });
    assert.throws(() => new ReplicationServer({ world: small, events: [Shout] }), /an event shout may take/);
    assert.doesNotThrow(
      () => new ReplicationServer({ world: small, events: [Shout], bandwidth: { bytesPerPacket: 700 } }),
    );
  });
});

describe('refusals are visible to the game', () => {
  it("MessageClient.lastRejection says why the client refused the server's packets", () => {
    const world = new ServerWorld({ types: [Blob], capacity: 8 });
    const replication = new ReplicationServer({ world, maxClients: 2 });
    const session = messageSession({
      protocolId: 92n,
      factory,
      channels: [replication.channel],
      maxClients: 2,
    });
    const mirror = new ClientMirror({ types: [Blob], capacity: 16 }); // not the server's capacity
    const client = new MessageClient({
      transport: session.network.createTransport('10.0.0.8:8'),
      aead: nobleAead,
      factory,
      channels: [mirror.channel],
    });
    assert.equal(client.lastRejection, null);
    client.connect(session.token(1n), session.clock.now);
    world.create(Blob, { a: 1, b: 2, c: 3, d: 4 });
    for (let i = 0; i < 60; i++) {
      world.tick();
      session.tick([client]);
    }
    assert.ok(client.connected);
    assert.match(client.lastRejection ?? '', /replication configuration differs/);
    assert.equal(session.server.lastRejection(client.client.clientIndex), null, 'the server refused nothing');
    assert.throws(() => session.server.lastRejection(99), RangeError);
  });
});
