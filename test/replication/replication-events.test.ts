import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import {
  type BandwidthBudgetOptions,
  ClientMirror,
  defineEntity,
  defineEvent,
  type EventLimits,
  type ReceivedEvent,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { WriteStream } from '../../src/serialize/write-stream.js';

/** Events in the ghost section between two bare connections: order, loss, repeats, misuse, hostile input. */
const Tag = defineEntity('tag', t.object({ name: t.string(12), team: t.int(0, 3) }));
const Explosion = defineEvent('explosion', t.object({ radius: t.int(1, 8) }));
const Chat = defineEvent('chat', t.object({ n: t.uint16(), text: t.string(20) }));
const types = [Tag];
const events = [Explosion, Chat];
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);
const CAPACITY = 16;

function pair(
  limits: EventLimits = {},
  budgetBytes?: number,
  // Room for the full windows these tests send in a packet (the default bucket is 256 kbit/s).
  bandwidth: BandwidthBudgetOptions = { bytesPerPacket: 4096, kbps: 1e6 },
) {
  const world = new ServerWorld({ types, capacity: CAPACITY, historyLength: 8 });
  const replication = new ReplicationServer({
    world,
    maxClients: 2,
    events,
    eventLimits: limits,
    budgetBytes,
    bandwidth,
  });
  const log: string[] = [];
  const received: ReceivedEvent[] = [];
  const mirror = new ClientMirror({
    types,
    capacity: CAPACITY,
    historyLength: 8,
    events,
    onCreate: (g) => log.push(`+${g.id}`),
    onDestroy: (g) => log.push(`-${g.id}`),
    onEvent: (e) => {
      received.push(e);
      if (e.is(Explosion)) log.push(`boom ${e.value.radius} on ${e.ghost?.id ?? 'world'}`);
      else if (e.is(Chat)) log.push(`chat ${e.value.n}`);
    },
  });
  const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  let now = 0;
  /** One packet server → client; acked when delivered and taken. */
  const send = (deliver = true, ack = true) => {
    now += 1 / 30;
    const { data, record } = server.writePacket(now);
    const copy = data.slice();
    const took = deliver && client.readPacket(copy, 0, copy.length);
    if (took && ack) server.acked(record);
    return { data: copy, record, took };
  };
  const step = (deliver = true, ack = true) => {
    world.tick();
    return send(deliver, ack);
  };
  return { world, replication, mirror, client, server, send, step, log, received };
}

/** A hand-made packet holding one ghost section (after the client checked the configuration). */
function forge(tick: number, events: (ws: WriteStream) => void): Uint8Array {
  const ws = new WriteStream(256);
  ws.bool(true); // the channel entry (one channel: no index)
  ws.bits(tick, 32);
  ws.bits(0, 1); // no configuration
  ws.bits(0, 1); // no destroys
  ws.bits(0, 1); // no creates
  ws.int(0, 0, CAPACITY); // an update count of 0
  ws.bits(1, 1); // events follow
  events(ws);
  ws.bool(false); // no more channel entries
  return ws.finish().slice();
}

describe('replication events', () => {
  it('a global event reaches the client once, typed, after the state of its tick', () => {
    const p = pair();
    const a = p.world.create(Tag, { name: 'a', team: 1 });
    p.replication.emit(Chat, { n: 7, text: 'hi' }, { reliable: true });
    p.replication.emit(Explosion, { radius: 3 }, { entity: a });
    p.step();
    assert.deepEqual(p.log, ['+0', 'chat 7', 'boom 3 on 0'], 'creates first, then reliable, then unreliable');
    const boom = p.received[1];
    assert.equal(boom.tick, p.world.serverTick);
    assert.equal(boom.ghost, p.mirror.ghost(a.id));
    for (let i = 0; i < 5; i++) p.step();
    assert.equal(p.received.length, 2, 'nothing twice');
    assert.equal(p.replication.eventStats.acked, 1);
  });

  it('an event emitted after the tick waits for the next one', () => {
    const p = pair();
    p.world.tick();
    p.replication.emit(Explosion, { radius: 1 });
    p.send();
    assert.equal(p.received.length, 0);
    p.step();
    assert.equal(p.received.length, 1);
    assert.equal(p.received[0].tick, 2);
  });

  it('sequence numbers wrap: 70,000 reliable and 70,000 unreliable events, each once, in order', () => {
    const p = pair({ pendingSize: 4096 });
    const seen = { reliable: 0, unreliable: 0, outOfOrder: 0 };
    p.received.length = 0;
    const total = 70_000;
    let emitted = 0;
    let expectedUnreliable = 0;
    for (let step = 0, drain = 0; drain < 20; step++) {
      if (emitted === total) drain++; // then the resends of the last losses
      const before = emitted;
      for (let k = 0; k < 50 && emitted < total; k++, emitted++) {
        p.replication.emit(Chat, { n: emitted & 0xffff, text: '' }, { reliable: true });
        p.replication.emit(Chat, { n: emitted & 0xffff, text: '' });
      }
      // Now and then a loss: reliable ones are resent, unreliable ones are gone.
      const delivered = step % 7 !== 3;
      if (delivered) expectedUnreliable += emitted - before; // they ride the packet of their step
      const sent = p.step(delivered);
      if (sent.took) p.client.readPacket(sent.data, 0, sent.data.length); // a repeat dispatches nothing
      for (const e of p.received) {
        if (!e.is(Chat)) continue;
        if (e.reliable) {
          if (e.value.n !== (seen.reliable & 0xffff)) seen.outOfOrder++;
          seen.reliable++;
        } else seen.unreliable++;
      }
      p.received.length = 0;
    }
    assert.equal(p.replication.eventStats.overflowed, 0);
    assert.equal(seen.outOfOrder, 0);
    assert.equal(seen.reliable, total);
    assert.equal(
      seen.unreliable,
      expectedUnreliable,
      'the unreliable events of every packet delivered, once',
    );
  });

  it('a full window, delivered and never acked, is resent and taken as repeats', () => {
    const p = pair();
    p.step();
    for (let n = 0; n < 256; n++) p.replication.emit(Explosion, { radius: 1 + (n & 7) }, { reliable: true });
    assert.ok(p.step(true, false).took);
    assert.equal(p.received.length, 256);
    for (let i = 0; i < 5; i++) {
      const sent = p.step();
      assert.ok(sent.took, p.client.lastRejection ?? '');
    }
    assert.equal(p.replication.eventStats.acked, 256);
    assert.equal(p.received.length, 256, 'no repeats dispatched');
  });

  it('a new connection starts the sequences again', () => {
    const p = pair();
    for (let n = 0; n < 3; n++) p.replication.emit(Chat, { n, text: '' }, { reliable: true });
    p.step();
    const server = new MessageConnection({ factory, channels: [p.replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [p.mirror.channel], clientIndex: 0 });
    for (let n = 3; n < 6; n++) p.replication.emit(Chat, { n, text: '' }, { reliable: true });
    p.world.tick();
    const { data } = server.writePacket(1);
    assert.ok(client.readPacket(data, 0, data.length), client.lastRejection ?? '');
    assert.deepEqual(
      p.received.map((e) => (e.is(Chat) ? e.value.n : -1)),
      [0, 1, 2, 3, 4, 5],
    );
  });

  it('an entity event goes only to clients the entity is relevant to', () => {
    const Ball = defineEntity('ball', t.object({ x: t.int(0, 100) }), { position: (v) => [v.x, 0] });
    const world = new ServerWorld({ types: [Ball], capacity: CAPACITY });
    const replication = new ReplicationServer({
      world,
      events,
      interest: { grid: { min: [0, 0], max: [100, 100], cellSize: 10 }, radius: 10 },
    });
    const got: string[] = [];
    const mirror = new ClientMirror({
      types: [Ball],
      capacity: CAPACITY,
      events,
      onEvent: (e) => got.push(`${e.name} ${e.ghost?.id ?? '-'}`),
    });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    const near = world.create(Ball, { x: 5 });
    const far = world.create(Ball, { x: 90 });
    replication.view(0)?.setCenter(0, 0);
    let now = 0;
    const step = () => {
      world.tick();
      now += 1 / 30;
      const { data, record } = server.writePacket(now);
      if (client.readPacket(data, 0, data.length)) server.acked(record);
    };
    step();
    replication.emit(Explosion, { radius: 1 }, { entity: near });
    replication.emit(Explosion, { radius: 1 }, { entity: far, reliable: true });
    replication.emit(Explosion, { radius: 1 }, { to: 1 }); // another client's
    for (let i = 0; i < 3; i++) step();
    assert.deepEqual(got, [`explosion ${near.id}`]);
    assert.equal(replication.eventStats.queued, 1);
  });

  it('with no client, events emitted every step do not pile up', () => {
    const world = new ServerWorld({ types, capacity: CAPACITY });
    const replication = new ReplicationServer({ world, events, eventLimits: { pendingSize: 4 } });
    for (let i = 0; i < 100; i++) {
      for (let k = 0; k < 4; k++) replication.emit(Explosion, { radius: 1 });
      world.tick();
    }
    assert.equal(replication.eventStats.emitted, 400);
  });

  it('misuse throws at the call', () => {
    const p = pair({ pendingSize: 2 });
    const Other = defineEvent('other', t.object({ x: t.bool() }));
    const e = p.world.create(Tag, { name: 'e', team: 0 });
    assert.throws(() => p.replication.emit(Other, { x: true }), /not in this server's events/);
    assert.throws(() => p.replication.emit(Explosion, { radius: 9 }), RangeError);
    assert.throws(() => p.replication.emit(Explosion, { radius: Number.NaN }), RangeError);
    assert.throws(() => p.replication.emit(Explosion, { radius: 1 }, { to: 2 }), /to must be/);
    assert.throws(() => p.replication.emit(Explosion, { radius: 1 }, { reliable: 1 as never }), TypeError);
    p.world.destroy(e);
    assert.throws(() => p.replication.emit(Explosion, { radius: 1 }, { entity: e }), /not a live entity/);
    p.replication.emit(Explosion, { radius: 1 });
    p.replication.emit(Explosion, { radius: 1 });
    assert.throws(() => p.replication.emit(Explosion, { radius: 1 }), /wait for world.tick/);
    assert.equal(p.replication.eventStats.emitted, 2, 'a refused emit is not counted');
    assert.throws(
      () => new ReplicationServer({ world: new ServerWorld({ types, capacity: 4 }), events: [Chat, Chat] }),
      /twice/,
    );
    assert.throws(() => new ClientMirror({ types, capacity: 4, events: [{} as never] }), TypeError);
  });

  it('reliable events survive loss and repeats: exactly once, in emit order', () => {
    const p = pair();
    for (let n = 0; n < 40; n++) {
      p.replication.emit(Chat, { n, text: 'x'.repeat(n % 20) }, { reliable: true });
      const lost = n % 3 !== 0;
      const sent = p.step(!lost);
      // A repeated packet (no replay protection at this level) changes nothing.
      if (sent.took) p.client.readPacket(sent.data, 0, sent.data.length);
    }
    for (let i = 0; i < 30; i++) p.step();
    const ns = p.received.map((e) => (e.is(Chat) ? e.value.n : -1));
    assert.deepEqual(
      ns,
      Array.from({ length: 40 }, (_, n) => n),
    );
    assert.ok(p.replication.eventStats.resent > 0);
    assert.equal(p.replication.eventStats.acked, 40);
  });

  it('unreliable events are written at most once and never dispatched twice', () => {
    const p = pair();
    for (let n = 0; n < 20; n++) {
      p.replication.emit(Chat, { n, text: '' });
      const sent = p.step(n % 2 === 0);
      p.client.readPacket(sent.data, 0, sent.data.length); // a repeat, or the late copy of a lost one
    }
    const ns = p.received.map((e) => (e.is(Chat) ? e.value.n : -1));
    assert.equal(new Set(ns).size, ns.length, `no repeats: ${ns}`);
    assert.equal(ns.length, 20, 'every packet arrived once at least');
    assert.equal(p.replication.eventStats.resent, 0);
  });

  it('an entity event goes with its create, never before it and never after the destroy', () => {
    const p = pair();
    const a = p.world.create(Tag, { name: 'a', team: 1 });
    p.replication.emit(Explosion, { radius: 2 }, { entity: a, reliable: true });
    p.step(false); // create and event lost together
    p.step(); // the create waits for its resend interval: so does the event
    assert.deepEqual(p.log, []);
    for (let i = 0; i < 4; i++) p.step();
    assert.deepEqual(p.log, ['+0', 'boom 2 on 0']);
    // Destroyed in the step the event was emitted in: the event is dropped, counted.
    p.replication.emit(Explosion, { radius: 5 }, { entity: a, reliable: true });
    p.world.destroy(a);
    for (let i = 0; i < 3; i++) p.step();
    assert.deepEqual(p.log, ['+0', 'boom 2 on 0', '-0']);
    assert.equal(p.replication.eventStats.droppedGone, 1);
  });

  it('a reliable event written, then orphaned before its ack, is cancelled: the client moves past it', () => {
    const p = pair();
    const a = p.world.create(Tag, { name: 'a', team: 1 });
    p.step();
    p.replication.emit(Explosion, { radius: 4 }, { entity: a, reliable: true });
    p.step(false); // lost
    p.world.destroy(a);
    p.replication.emit(Chat, { n: 1, text: 'after' }, { reliable: true });
    for (let i = 0; i < 8; i++) p.step();
    assert.deepEqual(p.log, ['+0', '-0', 'chat 1']);
    assert.equal(p.mirror.eventsDropped, 1);
  });

  it('the budget holds: what does not fit waits, in order', () => {
    const p = pair({}, 40);
    for (let n = 0; n < 30; n++)
      p.replication.emit(Chat, { n, text: 'twenty bytes of text' }, { reliable: true });
    let most = 0;
    for (let i = 0; i < 40; i++) most = Math.max(most, p.step().data.length);
    assert.ok(most <= 40 + 8, `packets of ${most} bytes`);
    assert.deepEqual(
      p.received.map((e) => (e.is(Chat) ? e.value.n : -1)),
      Array.from({ length: 30 }, (_, n) => n),
    );
  });

  it('a full reliable queue reports the client and keeps the order of what it holds', () => {
    const overflows: number[] = [];
    const p = pair({ reliableQueueSize: 4, onOverflow: (client) => overflows.push(client) });
    p.step();
    for (let n = 0; n < 6; n++) p.replication.emit(Chat, { n, text: '' }, { reliable: true });
    p.step(true, false); // delivered, never acked
    assert.deepEqual(overflows, [0, 0]);
    assert.equal(p.replication.eventStats.overflowed, 2);
    assert.deepEqual(
      p.received.map((e) => (e.is(Chat) ? e.value.n : -1)),
      [0, 1, 2, 3],
    );
  });

  it('unreliable events that wait too long are dropped', () => {
    // A bucket of 64 bytes refilled at 8 bytes a second: a packet or two of events, then a wait.
    const p = pair({ unreliableMaxAge: 0.05 }, undefined, {
      bytesPerPacket: 64,
      burstBytes: 64,
      kbps: 0.064,
    });
    for (let n = 0; n < 6; n++) p.replication.emit(Chat, { n, text: 'twenty bytes of text' });
    for (let i = 0; i < 10; i++) p.step();
    assert.ok(p.replication.eventStats.droppedExpired > 0);
    assert.ok(p.received.length < 6);
  });

  it('a mirror listing other events refuses the server, saying the configuration differs', () => {
    const world = new ServerWorld({ types, capacity: CAPACITY });
    const replication = new ReplicationServer({ world, events });
    const mirror = new ClientMirror({ types, capacity: CAPACITY, events: [Chat, Explosion] });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    world.create(Tag, { name: 'a', team: 0 });
    world.tick();
    const { data } = server.writePacket(0.1);
    assert.equal(client.readPacket(data, 0, data.length), false);
    assert.match(client.lastRejection ?? '', /configuration differs/);
  });

  it('hostile events parts are refused whole, with a reason, changing nothing', () => {
    const p = pair();
    p.world.create(Tag, { name: 'a', team: 1 });
    p.step();
    const tick = p.world.serverTick;
    const before = p.log.length;
    const cases: [string, RegExp, (ws: WriteStream) => void][] = [
      [
        'unknown type',
        /int out of range/,
        (ws) => {
          ws.bits(1, 1);
          ws.bits(0, 16);
          ws.bits(3, 2); // types 0, 1 and 2 (cancelled)
        },
      ],
      [
        'entity event for a ghost not held',
        /does not have/,
        (ws) => {
          ws.bits(0, 1);
          ws.bits(1, 1);
          ws.bits(0, 1); // Explosion
          ws.bits(1, 1);
          ws.int(5, 0, CAPACITY - 1);
          ws.bits(0, 1); // the section's tick
          ws.int(1, 1, 8);
          ws.bits(0, 1);
          ws.bits(0, 16);
        },
      ],
      [
        'reliable sequence outside the window',
        /outside the window/,
        (ws) => {
          ws.bits(1, 1);
          ws.bits(1000, 16);
          ws.int(0, 0, 2);
          ws.bits(0, 1);
          ws.bits(0, 1);
          ws.int(1, 1, 8);
          ws.bits(0, 1);
          ws.bits(0, 1);
        },
      ],
      [
        'bad payload',
        /event chat: .*out of range/,
        (ws) => {
          ws.bits(1, 1);
          ws.bits(0, 16);
          ws.int(1, 0, 2); // Chat
          ws.bits(0, 1);
          ws.bits(0, 1);
          ws.int(3, 0, Chat.maxBytes);
          for (let i = 0; i < 3; i++) ws.bits(0xff, 8); // a string longer than 20 bytes
          ws.bits(0, 1);
          ws.bits(0, 1);
        },
      ],
      ['an events part without events', /without events/, (ws) => ws.bits(0, 2)],
      [
        'event tick after the section',
        /event tick/,
        (ws) => {
          ws.bits(1, 1);
          ws.bits(0, 16);
          ws.int(0, 0, 2);
          ws.bits(0, 1);
          ws.bits(0b11, 2);
          ws.bits(tick + 5, 32);
          ws.int(1, 1, 8);
          ws.bits(0, 1);
          ws.bits(0, 1);
        },
      ],
    ];
    for (const [name, reason, events] of cases) {
      const packet = forge(tick, events);
      assert.equal(p.client.readPacket(packet, 0, packet.length), false, name);
      assert.match(p.client.lastRejection ?? '', reason, name);
    }
    assert.equal(p.log.length, before, 'nothing dispatched');
    assert.equal(p.mirror.size, 1);
    // The real stream carries on.
    p.replication.emit(Chat, { n: 9, text: 'ok' }, { reliable: true });
    p.step();
    assert.deepEqual(p.log.slice(before), ['chat 9']);
  });
});
