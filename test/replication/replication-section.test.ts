import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../../src/channels/index.js';
import { prng, randomBytes, randomInt } from '../../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  isGhostOf,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

/** The ghost section between two bare connections: costs, acks, reconnects and hostile input. */
const SEED = testSeed('replication section');

const Cube = defineEntity(
  'cube',
  t.object({ position: t.vector3(t.float(-64, 64, 1 / 512)), rest: t.bool() }),
);
const Tag = defineEntity('tag', t.object({ name: t.string(12), team: t.int(0, 3) }));
const types = [Cube, Tag];
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(40) }))]);
const CAPACITY = 32;

function pair(historyLength = 8) {
  const world = new ServerWorld({ types, capacity: CAPACITY, historyLength });
  const replication = new ReplicationServer({ world, maxClients: 2 });
  const mirror = new ClientMirror({ types, capacity: CAPACITY, historyLength });
  let server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  let client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  let now = 0;
  /** One packet server → client; acked when `deliver` (and the client took it). */
  const send = (deliver = true): { data: Uint8Array; record: PacketRecord; took: boolean } => {
    now += 1 / 30;
    const { data, record } = server.writePacket(now);
    const copy = data.slice();
    const took = deliver && client.readPacket(copy, 0, copy.length);
    if (took) server.acked(record);
    return { data: copy, record, took };
  };
  /** A new connection on both ends: a fresh sender on the server, an emptied mirror. */
  const reconnect = () => {
    server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  };
  return {
    world,
    mirror,
    send,
    reconnect,
    get client() {
      return client;
    },
  };
}

const cube = (x: number) => ({ position: [x, 1, 2] as [number, number, number], rest: false });

function snapshot(mirror: ClientMirror): string {
  return JSON.stringify([
    mirror.newestTick,
    ...[...mirror.ghosts()].map((g) => [g.id, g.generation, g.value, g.tick]),
  ]);
}

describe(`ghost section (seed ${SEED})`, () => {
  it('an idle world costs nothing: no section at all once everything is acked', () => {
    const p = pair();
    assert.equal(p.send().data.length, 1, 'before the first tick');
    for (let i = 0; i < 10; i++) p.world.create(Cube, cube(i));
    p.world.tick();
    assert.ok(p.send().data.length > 10);
    assert.equal(p.mirror.size, 10);
    const ghost = p.mirror.ghost(0)!;
    assert.ok(isGhostOf(ghost, Cube) && !isGhostOf(ghost, Tag));
    if (isGhostOf(ghost, Cube)) assert.equal(ghost.value.position[0], 0); // typed by Cube's schema
    for (let i = 0; i < 5; i++) {
      p.world.tick();
      assert.equal(p.send().data.length, 1, 'an idle tick sends only the packet terminator');
    }
  });

  it('updates go against the acked baseline, and absolute when it is too old', () => {
    const p = pair(4);
    const e = p.world.create(Cube, cube(0));
    p.world.tick();
    p.send();
    const sizes: number[] = [];
    for (let i = 1; i <= 6; i++) {
      p.world.set(e, cube(i / 512));
      p.world.tick();
      sizes.push(p.send(false).data.length); // lost: the baseline stays at the create
    }
    // Small deltas while the client still holds the baseline, then absolute (more bytes).
    assert.ok(sizes[0] < sizes[5], `sizes ${sizes}`);
    assert.ok(p.send().took);
    assert.deepEqual(p.mirror.ghost(e.id)?.value, p.world.get(e));
  });

  it('things moving every tick cost 7 bits an update: next id, the reference, repeat, a delta', () => {
    const sizes = [20, 28].map((count) => {
      const p = pair();
      const cubes = Array.from({ length: count }, (_, i) => p.world.create(Cube, cube(i)));
      p.world.tick();
      p.send();
      let size = 0;
      for (let step = 1; step <= 3; step++) {
        for (const [i, e] of cubes.entries()) p.world.set(e, cube(i + step / 512));
        p.world.tick();
        const sent = p.send();
        assert.ok(sent.took);
        size = sent.data.length;
      }
      for (const [i, e] of cubes.entries()) assert.deepEqual(p.mirror.ghost(e.id)?.value, cube(i + 3 / 512));
      return size;
    });
    // Each update after the first: id 1 (`1`, the next id), baseline 1 (the reference), the
    // repeat prefix 1 and x's class-0 delta 4: 8 more updates, 56 bits, 7 bytes.
    assert.equal(sizes[1] - sizes[0], 7, `sizes ${sizes}`);
  });

  it('a thing changing now and then names its baseline in a bit: the newest state the client holds', () => {
    const p = pair();
    const e = p.world.create(Cube, cube(0));
    p.world.tick();
    p.send();
    for (let i = 0; i < 30; i++) {
      p.world.tick();
      p.send();
    }
    // Head: tick 32, configuration bit 1, empty destroys and creates 2, count 6 (of 0..32), the
    // reference 1 (`1`: the newest held). The update: id 1, baseline 1 (the reference), flags of
    // 4 lanes and x's class-0 delta 4. The events bit 1, channel framing 2. 30 ticks back, naming
    // the tick took 35.
    p.world.set(e, cube(1 / 512));
    p.world.tick();
    assert.equal(p.send(false).data.length, Math.ceil((32 + 1 + 2 + 6 + 1 + 1 + 1 + 8 + 1 + 2) / 8));
    // That write was lost (never acked): the client may or may not hold it, so the next update
    // names its baseline's tick, the create's 32 ticks back (the reference: `0`, `11` + 32 bits).
    p.world.set(e, cube(2 / 512));
    p.world.tick();
    const { data, took } = p.send();
    assert.ok(took);
    assert.equal(data.length, Math.ceil((32 + 1 + 2 + 6 + 35 + 1 + 1 + 8 + 1 + 2) / 8));
    assert.deepEqual(p.mirror.ghost(e.id)?.value, cube(2 / 512));
  });

  it('a destroy rides until acked; a reused id gets a new ghost', () => {
    const p = pair();
    const events: string[] = [];
    const mirror = p.mirror as unknown as { options: Record<string, unknown> };
    mirror.options.onCreate = (g: { id: number; generation: number }) =>
      events.push(`+${g.id}.${g.generation}`);
    mirror.options.onDestroy = (g: { id: number; generation: number }) =>
      events.push(`-${g.id}.${g.generation}`);
    const a = p.world.create(Tag, { name: 'a', team: 1 });
    p.world.tick();
    p.send();
    p.world.destroy(a);
    p.world.tick();
    p.send(false);
    const b = p.world.create(Tag, { name: 'b', team: 2 });
    assert.equal(b.id, a.id);
    p.world.tick();
    p.send();
    assert.deepEqual(events, [
      `+${a.id}.${a.generation}`,
      `-${a.id}.${a.generation}`,
      `+${b.id}.${b.generation}`,
    ]);
    assert.equal(p.mirror.ghost(b.id)?.generation, b.generation);
  });

  it('a field that takes no bits (t.string(0)) replicates: its empty encoding is a whole state', () => {
    const Blank = defineEntity('blank', t.object({ note: t.string(0), n: t.int(0, 7) }));
    const world = new ServerWorld({ types: [Blank], capacity: 4 });
    const replication = new ReplicationServer({ world, maxClients: 1 });
    const mirror = new ClientMirror({ types: [Blank], capacity: 4 });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    const blank = world.create(Blank, { note: '', n: 5 });
    world.tick();
    const { data } = server.writePacket(1 / 30);
    const copy = data.slice();
    assert.ok(client.readPacket(copy, 0, copy.length), client.lastRejection ?? '');
    assert.deepEqual(mirror.ghost(blank.id)?.value, { note: '', n: 5 });
  });

  it('refuses a stale section: an older packet arriving late changes nothing', () => {
    const p = pair();
    const e = p.world.create(Cube, cube(1));
    p.world.tick();
    const old = p.send(false);
    for (let i = 0; i < 4; i++) p.send(); // the create is resent after resendInterval (0.1 s)
    assert.equal(p.mirror.size, 1);
    p.world.set(e, cube(2));
    p.world.tick();
    p.send();
    assert.equal(p.mirror.ghost(e.id)?.tick, 2);
    const before = snapshot(p.mirror);
    assert.equal(p.client.readPacket(old.data, 0, old.data.length), false);
    assert.match(p.client.lastRejection ?? '', /stale section/);
    assert.equal(snapshot(p.mirror), before);
  });

  it('a reconnecting client is sent everything again', () => {
    const p = pair();
    for (let i = 0; i < 4; i++) p.world.create(Cube, cube(i));
    p.world.tick();
    p.send();
    assert.equal(p.mirror.size, 4);
    p.reconnect();
    assert.equal(p.mirror.size, 0, 'a new connection starts empty');
    p.world.tick();
    p.send();
    assert.equal(p.mirror.size, 4, 'and is sent everything again');
  });

  it('hostile input: random bytes and flipped bits never throw, and a refused packet changes nothing', () => {
    const next = prng(SEED);
    const p = pair();
    const cubes = [];
    const tags = [];
    const packets: Uint8Array[] = [];
    for (let frame = 0; frame < 60; frame++) {
      if (cubes.length < 12) cubes.push(p.world.create(Cube, cube(frame / 8)));
      if (tags.length < 8) tags.push(p.world.create(Tag, { name: 'tag', team: 1 }));
      p.world.set(cubes[randomInt(next, cubes.length)], cube((next() - 0.5) * 100));
      p.world.set(tags[randomInt(next, tags.length)], {
        name: 'x'.repeat(randomInt(next, 13)),
        team: randomInt(next, 4),
      });
      const live = next() < 0.5 ? cubes : tags;
      if (next() < 0.1) p.world.destroy(live.splice(randomInt(next, live.length), 1)[0]);
      p.world.tick();
      const sent = p.send(next() < 0.7);
      if (sent.data.length > 1) packets.push(sent.data);
    }
    let refused = 0;
    for (let k = 0; k < 2000; k++) {
      let data: Uint8Array;
      if (k % 2 === 0) {
        data = randomBytes(next, 1 + randomInt(next, 64));
      } else {
        data = packets[randomInt(next, packets.length)].slice();
        for (let f = 1 + randomInt(next, 3); f > 0; f--)
          data[randomInt(next, data.length)] ^= 1 << randomInt(next, 8);
      }
      const before = snapshot(p.mirror);
      const took = p.client.readPacket(data, 0, data.length);
      if (!took) {
        refused++;
        assert.equal(snapshot(p.mirror), before, 'a refused packet applied something');
        assert.ok(p.client.lastRejection !== null);
      }
    }
    assert.ok(refused > 1000, `refused ${refused}`);
  });

  it('with interest, a positioned entity is a ghost only while near the view; others everywhere', () => {
    const Ball = defineEntity(
      'ball',
      t.object({ x: t.float(-100, 100, 1 / 64), y: t.float(-100, 100, 1 / 64) }),
      {
        position: (v) => [v.x, v.y],
      },
    );
    const world = new ServerWorld({ types: [Ball, Tag], capacity: 8 });
    const replication = new ReplicationServer({
      world,
      maxClients: 1,
      interest: { grid: { min: [-100, -100], max: [100, 100], cellSize: 10 }, radius: 20 },
    });
    const ends: string[] = [];
    const mirror = new ClientMirror({
      types: [Ball, Tag],
      capacity: 8,
      onDestroy: (g, _tick, reason) => ends.push(`${g.id} ${reason}`),
    });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    let now = 0;
    const step = () => {
      world.tick();
      for (let i = 0; i < 4; i++) {
        now += 1 / 30;
        const { data, record } = server.writePacket(now);
        assert.ok(client.readPacket(data, 0, data.length), client.lastRejection ?? '');
        server.acked(record);
      }
    };
    replication.view(0)!.setCenter(0, 0);
    const ball = world.create(Ball, { x: 50, y: 0 });
    const tag = world.create(Tag, { name: 'everywhere', team: 0 });
    step();
    assert.equal(mirror.ghost(ball.id), null, 'far: not relevant');
    assert.ok(mirror.ghost(tag.id) !== null, 'no position: relevant everywhere');
    world.set(ball, { x: 10, y: 5 });
    step();
    assert.deepEqual(mirror.ghost(ball.id)?.value, world.get(ball));
    world.set(ball, { x: 22, y: 0 }); // within the leave radius (20 × 1.15): kept
    step();
    assert.deepEqual(mirror.ghost(ball.id)?.value, world.get(ball));
    world.set(ball, { x: 40, y: 0 });
    step();
    assert.equal(mirror.ghost(ball.id), null, 'left: destroyed on the client');
    assert.deepEqual(ends, [`${ball.id} out-of-scope`]);
    world.set(ball, { x: 0, y: 0 });
    step();
    world.destroy(ball);
    step();
    assert.deepEqual(ends, [`${ball.id} out-of-scope`, `${ball.id} destroyed`]);
  });

  it('a section never passes its channel budget, whatever mix of sets, baselines and losses (property)', () => {
    const next = prng(SEED + 7);
    const BUDGET = 40;
    const world = new ServerWorld({ types, capacity: CAPACITY, historyLength: 8 });
    const replication = new ReplicationServer({ world, maxClients: 1, budgetBytes: BUDGET });
    const mirror = new ClientMirror({ types, capacity: CAPACITY, historyLength: 8 });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    const cubes = Array.from({ length: CAPACITY }, (_, i) => world.create(Cube, cube(i)));
    const values = cubes.map((_, i) => cube(i));
    let now = 0;
    let largest = 0;
    for (let step = 0; step < 600; step++) {
      // Every other id (full-length id gaps), each changing a random set of lanes by random steps.
      for (let i = 0; i < CAPACITY; i += 2) {
        if (next() < 0.5) continue;
        const v = values[i];
        for (let axis = 0; axis < 3; axis++)
          if (next() < 0.5)
            v.position[axis] = Math.max(-60, Math.min(60, v.position[axis] + (next() - 0.5) * 4));
        if (next() < 0.3) v.rest = !v.rest;
        world.set(cubes[i], v);
      }
      world.tick();
      now += 1 / 60;
      const { data, record } = server.writePacket(now);
      largest = Math.max(largest, data.length);
      // The channel's budget, plus its present bit and the packet's end bit, rounded to a byte.
      assert.ok(data.length <= BUDGET + 1, `step ${step}: a packet of ${data.length} bytes`);
      const fate = next();
      if (fate < 0.2) continue; // lost
      assert.ok(client.readPacket(data, 0, data.length), client.lastRejection ?? '');
      if (fate < 0.4) continue; // its ack lost
      server.acked(record);
    }
    assert.ok(largest >= BUDGET - 8, `packets filled up to ${largest} bytes`);
  });

  it('a bandwidth budget caps the section: a burst of creates goes out at the configured rate', () => {
    const world = new ServerWorld({ types, capacity: CAPACITY });
    const replication = new ReplicationServer({
      world,
      maxClients: 1,
      bandwidth: { bytesPerPacket: 50, kbps: 2, burstBytes: 100 },
    });
    const mirror = new ClientMirror({ types, capacity: CAPACITY });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    for (let i = 0; i < CAPACITY; i++) world.create(Tag, { name: 'abcdefghijkl', team: i & 3 });
    world.tick();
    let bytes = 0;
    let now = 0;
    for (let i = 0; i < 60; i++) {
      now += 1 / 60;
      const { data, record } = server.writePacket(now);
      assert.ok(data.length <= 50 + 2, `packet of ${data.length} bytes`);
      bytes += data.length - 1;
      assert.ok(client.readPacket(data, 0, data.length));
      server.acked(record);
    }
    // One second at 2 kbit/s (250 bytes) plus the burst, give or take the channel headers.
    assert.ok(bytes <= 100 + 250 + 60, `sent ${bytes} bytes`);
    assert.ok(mirror.size > 0 && mirror.size < CAPACITY, `${mirror.size} ghosts so far`);
    for (let i = 0; i < 600 && mirror.size < CAPACITY; i++) {
      now += 1 / 60;
      const { data, record } = server.writePacket(now);
      assert.ok(client.readPacket(data, 0, data.length));
      server.acked(record);
    }
    assert.equal(mirror.size, CAPACITY, 'everything arrives in time');
  });
});
