import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { prng, randomInt } from '../../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  type Entity,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { type LinkConditions, NetworkSimulator } from '../../src/transport/simulator.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

/** The ghost section end to end: server world → MessageServer → lossy link → ClientMirror. */
const SEED = testSeed('replication ghosts');

const Cube = defineEntity(
  'cube',
  t.object({ position: t.vector3(t.float(-64, 64, 1 / 512)), rest: t.bool() }),
  { priority: 2, position: (v) => [v.position[0], v.position[1], v.position[2]] },
);
const Tag = defineEntity('tag', t.object({ name: t.string(12), team: t.int(0, 3) }), { priority: 0.5 });
const types = [Cube, Tag];
const Chat = defineMessage('chat', t.object({ text: t.string(40) }));
const factory = new MessageFactory([Chat]);
const CAPACITY = 48;
const HISTORY = 8;

type Value = { position: [number, number, number]; rest: boolean } | { name: string; team: number };

function randomValue(next: () => number, type: typeof Cube | typeof Tag): Value {
  if (type === Cube) {
    const c = () => (next() < 0.2 ? randomInt(next, 5) : (next() - 0.5) * 120);
    return { position: [c(), c(), c()], rest: next() < 0.5 };
  }
  return { name: 'x'.repeat(randomInt(next, 13)), team: randomInt(next, 4) };
}

/** A server with a ReplicationServer and `count` clients, each behind its own simulated link. */
function scene(seed: number, count: number, historyLength = HISTORY, spatial = false) {
  const world = new ServerWorld({ types, capacity: CAPACITY, historyLength });
  const replication = new ReplicationServer({
    world,
    maxClients: 4,
    interest: spatial
      ? { grid: { min: [-64, -64, -64], max: [64, 64, 64], cellSize: 16 }, radius: 40 }
      : undefined,
  });
  const session = messageSession({
    protocolId: 77n,
    factory,
    channels: [replication.channel, { kind: 'reliable-ordered' }],
    maxClients: 4,
  });
  const { network, server, clock } = session;
  const clients = Array.from({ length: count }, (_, i) => {
    const events: string[] = [];
    const alive = new Map<number, number>();
    const mirror = new ClientMirror({
      types,
      capacity: CAPACITY,
      historyLength,
      onCreate: (g) => {
        if (alive.has(g.id)) events.push(`created twice: ${g.id}`);
        alive.set(g.id, g.generation);
      },
      onUpdate: (g) => {
        if (alive.get(g.id) !== g.generation) events.push(`updated before created: ${g.id}`);
      },
      onDestroy: (g) => {
        if (alive.get(g.id) !== g.generation) events.push(`destroyed but not there: ${g.id}`);
        alive.delete(g.id);
      },
    });
    const link = new NetworkSimulator(network.createTransport(`10.0.0.${i + 1}:1`), {
      seed: (seed + i) >>> 0,
    });
    const client = new MessageClient({
      transport: link,
      aead: nobleAead,
      factory,
      channels: [mirror.channel, { kind: 'reliable-ordered' }],
    });
    client.connect(session.token(BigInt(i + 1)), clock.now);
    return { mirror, link, client, events };
  });
  const step = (dt: number) => {
    clock.now += dt;
    server.update(clock.now);
    for (const c of clients) c.client.update(clock.now);
  };
  for (let i = 0; i < 120 && !clients.every((c) => c.client.connected); i++) step(1 / 30);
  assert.ok(
    clients.every((c) => c.client.connected),
    'clients connect',
  );
  return { world, replication, server, clients, step, clock, token: session.token };
}

/** Every mirror holds exactly the server's live entities relevant to it, equal to their quantized values. */
function assertConverged(
  world: ServerWorld,
  clients: { mirror: ClientMirror; events: string[]; client: MessageClient }[],
  replication?: ReplicationServer,
) {
  for (const [k, { mirror, events, client }] of clients.entries()) {
    assert.deepEqual(events, [], `client ${k}: event order`);
    const view = replication?.view(client.client.clientIndex);
    for (let id = 0; id < CAPACITY; id++) {
      const entity = world.entity(id);
      const ghost = mirror.ghost(id);
      if (entity === null || (view !== undefined && view !== null && !view.has(id))) {
        assert.equal(ghost, null, `client ${k}: ghost ${id} left after destroy or leaving interest`);
        continue;
      }
      assert.ok(ghost !== null, `client ${k}: entity ${id} has no ghost`);
      assert.equal(ghost.type, entity.type, `client ${k}: ghost ${id}'s type`);
      assert.equal(ghost.generation, entity.generation, `client ${k}: ghost ${id}'s generation`);
      assert.deepEqual(ghost.value, world.get(entity), `client ${k}: ghost ${id}'s value`);
    }
  }
}

/** Random creates, sets and destroys for 8 s over random bad links, then 30 s with no changes. */
function runRandom(seed: number, spatial: boolean) {
  const next = prng(seed);
  const s = scene(seed, 1 + randomInt(next, 3), 2 + randomInt(next, 8), spatial);
  s.clients.forEach((c) => {
    const conditions: LinkConditions = {
      latency: randomInt(next, 500),
      jitter: randomInt(next, 100),
      loss: randomInt(next, 51),
      duplicates: randomInt(next, 20),
      reorder: randomInt(next, 20),
    };
    c.link.setConditions('outgoing', conditions);
    c.link.setConditions('incoming', conditions);
    if (spatial)
      s.replication.view(c.client.client.clientIndex)!.setCenter((next() - 0.5) * 80, (next() - 0.5) * 80, 0);
  });
  const live: Entity<Value>[] = [];
  for (let frame = 0; frame < 240; frame++) {
    const ops = randomInt(next, 6);
    for (let k = 0; k < ops; k++) {
      const r = next();
      if ((r < 0.3 || live.length === 0) && s.world.size < CAPACITY) {
        const type = next() < 0.7 ? Cube : Tag;
        live.push(s.world.create(type as never, randomValue(next, type)) as Entity<Value>);
      } else if (r < 0.85 && live.length > 0) {
        const e = live[randomInt(next, live.length)];
        s.world.set(e, randomValue(next, e.type as never));
      } else if (live.length > 0) {
        const i = randomInt(next, live.length);
        s.world.destroy(live[i]);
        live.splice(i, 1);
      }
    }
    s.world.tick();
    s.step(1 / 30);
  }
  // Changes stop; the world keeps ticking and traffic settles.
  for (let frame = 0; frame < 30 * 30; frame++) {
    s.world.tick();
    s.step(1 / 30);
  }
  assertConverged(s.world, s.clients, spatial ? s.replication : undefined);
  return s;
}

describe(`replication ghosts (seed ${SEED})`, () => {
  it('converges: random worlds over bad links reach every client exactly', () => {
    for (let run = 0; run < 3; run++) runRandom((SEED + run * 7919) >>> 0, false);
  });

  it('converges with interest: each client holds exactly the entities near its view', () => {
    let seen = 0;
    let hidden = 0;
    for (let run = 0; run < 2; run++) {
      const s = runRandom((SEED + run * 104729) >>> 0, true);
      for (const c of s.clients) {
        seen += c.mirror.size;
        hidden += s.world.size - c.mirror.size;
      }
    }
    assert.ok(seen > 0 && hidden > 0, `interest both shows and hides (${seen} shown, ${hidden} hidden)`);
  });

  it('a client that disconnects frees its view; reconnecting, it is sent everything again', () => {
    const s = scene(SEED, 1);
    const c = s.clients[0];
    for (let i = 0; i < 10; i++) s.world.create(Tag, { name: `t${i}`, team: i & 3 });
    for (let i = 0; i < 30; i++) {
      s.world.tick();
      s.step(1 / 30);
    }
    assert.equal(c.mirror.size, 10);
    const index = c.client.client.clientIndex;
    c.client.disconnect();
    for (let i = 0; i < 30; i++) s.step(1 / 30);
    assert.equal(s.replication.view(index), null, 'the view is dropped with the connection');
    c.client.connect(s.token(9n), s.clock.now);
    for (let i = 0; i < 60; i++) {
      s.world.tick();
      s.step(1 / 30);
    }
    assert.ok(c.client.connected);
    assert.ok(s.replication.view(c.client.client.clientIndex) !== null);
    assert.equal(c.mirror.size, 10);
    assertConverged(s.world, s.clients);
  });

  it('an entity always relevant to a client stops being so when it ends: a new one under its id is not', () => {
    const s = scene(SEED, 1, HISTORY, true);
    const c = s.clients[0];
    const index = c.client.client.clientIndex;
    const far = { position: [60, 60, 60] as [number, number, number], rest: false };
    const first = s.world.create(Cube, far);
    s.world.tick();
    s.replication.view(index)!.addAlwaysRelevant(first.id);
    for (let i = 0; i < 20; i++) {
      s.world.tick();
      s.step(1 / 30);
    }
    assert.ok(c.mirror.ghost(first.id) !== null, 'always relevant, however far');
    s.world.destroy(first);
    s.world.tick();
    const second = s.world.create(Cube, far);
    assert.equal(second.id, first.id, 'the id is reused');
    for (let i = 0; i < 20; i++) {
      s.world.tick();
      s.step(1 / 30);
    }
    assert.equal(c.mirror.ghost(second.id), null, 'the new entity is far away and not always relevant');
    assert.equal(s.replication.view(index)!.alwaysRelevant.indexOf(first.id), -1);
  });
});
