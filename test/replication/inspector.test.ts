import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { prng, randomInt } from '../../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  type Entity,
  type InspectedPacket,
  ReplicationServer,
  type ReplicationServerOptions,
  ServerWorld,
} from '../../src/replication/index.js';
import { ghostTracesMade } from '../../src/replication/replication-inspector.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

/** The network inspector on a bare ghost section: bit accounting, waits, cost when closed. */
const SEED = testSeed('replication inspector');

const Cube = defineEntity(
  'cube',
  t.object({ position: t.vector3(t.float(-64, 64, 1 / 512)), rest: t.bool() }),
);
const types = [Cube];
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(40) }))]);
const CAPACITY = 256;

function scene(options: Partial<ReplicationServerOptions> = {}) {
  const world = new ServerWorld({ types, capacity: CAPACITY, historyLength: 8 });
  const replication = new ReplicationServer({ world, maxClients: 2, ...options });
  const mirror = new ClientMirror({ types, capacity: CAPACITY, historyLength: 8 });
  const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  let now = 0;
  const random = prng(SEED);
  const entities: Entity<{ position: [number, number, number]; rest: boolean }>[] = [];
  for (let i = 0; i < 120; i++) entities.push(world.create(Cube, { position: [i / 4, 1, 2], rest: false }));
  /** A tick moving a random few, then one packet (acked, but a random one in 8 lost). */
  const step = () => {
    for (let k = 0; k < 10; k++) {
      const entity = entities[randomInt(random, entities.length)];
      world.set(entity, { position: [randomInt(random, 120) - 60, 1, 2], rest: false });
    }
    world.tick();
    now += 1 / 30;
    const { data, record } = server.writePacket(now);
    if (randomInt(random, 8) > 0 && client.readPacket(data.slice(), 0, data.length)) server.acked(record);
  };
  return { world, replication, mirror, step };
}

describe(`network inspector (seed ${SEED})`, () => {
  it('per-entity bits add up to the section: head + destroys + creates + updates, events the rest', () => {
    const s = scene();
    const packets: InspectedPacket[] = [];
    const stop = s.replication.inspect().watch(0, (p) => packets.push(p));
    for (let i = 0; i < 40; i++) s.step();
    stop();
    assert.ok(packets.length >= 30, `${packets.length} packets traced`);
    let creates = 0;
    let deltas = 0;
    for (const p of packets) {
      const { bits } = p;
      assert.equal(bits.head + bits.destroys + bits.creates + bits.updates + bits.events, bits.total);
      // No events are emitted: their trailer is its 1-bit head alone, so a wrong state measure
      // (which would land in `events`) shows here.
      assert.equal(bits.events, 1, `tick ${p.tick}`);
      const sum = (verdicts: string[]) =>
        p.entities.filter((e) => verdicts.includes(e.verdict)).reduce((a, e) => a + e.bits, 0);
      assert.equal(sum(['create']), bits.creates);
      assert.equal(sum(['delta', 'absolute']), bits.updates);
      for (const e of p.entities) {
        assert.equal(e.type, 'cube');
        assert.ok(e.distance >= 0 && Number.isFinite(e.priority));
        if (e.verdict === 'unchanged' || e.verdict === 'skipped') assert.equal(e.bits, 0);
        assert.equal(e.waited !== null, e.verdict === 'waited');
      }
      creates += p.entities.filter((e) => e.verdict === 'create').length;
      deltas += p.entities.filter((e) => e.verdict === 'delta').length;
    }
    assert.ok(creates >= 120 && deltas > 0, `${creates} creates, ${deltas} deltas traced`);
  });

  it('waited reasons match what limited the packet: the bandwidth budget or the packet room', () => {
    const tight = scene({ bandwidth: { bytesPerPacket: 40 } });
    const reasons = new Set<string>();
    tight.replication.inspect().watch(0, (p) => {
      assert.ok(p.budgetLimited);
      for (const e of p.entities) if (e.waited !== null) reasons.add(e.waited);
    });
    for (let i = 0; i < 5; i++) tight.step();
    assert.ok(reasons.has('budget'), [...reasons].join());
    assert.ok(!reasons.has('room'));

    const small = scene({ budgetBytes: 40 });
    const roomReasons = new Set<string>();
    small.replication.inspect().watch(0, (p) => {
      assert.ok(!p.budgetLimited);
      for (const e of p.entities) if (e.waited !== null) roomReasons.add(e.waited);
    });
    for (let i = 0; i < 5; i++) small.step();
    assert.ok(roomReasons.has('room'), [...roomReasons].join());
    assert.ok(!roomReasons.has('budget'));

    const roomy = scene({ bandwidth: { bytesPerPacket: 1150, kbps: 100_000 }, budgetBytes: 1150 });
    for (let i = 0; i < 10; i++) roomy.step(); // the creates go through
    let waited = 0;
    let packets = 0;
    roomy.replication.inspect().watch(0, (p) => {
      packets++;
      waited += p.entities.filter((e) => e.verdict === 'waited').length;
    });
    for (let i = 0; i < 10; i++) roomy.step();
    assert.ok(packets >= 8);
    assert.equal(waited, 0, 'everything fits: nothing waits');
  });

  it('costs nothing closed: no trace made without a watcher, and none left after the last stop', () => {
    const s = scene();
    const before = ghostTracesMade();
    const inspector = s.replication.inspect();
    for (let i = 0; i < 10; i++) s.step();
    assert.equal(ghostTracesMade(), before, 'an inspector without watchers makes no trace');
    let seen = 0;
    const stopA = inspector.watch(0, () => seen++);
    const stopB = inspector.watch(0, () => seen++);
    assert.equal(inspector.watcherCount, 2);
    s.step();
    assert.equal(seen, 2);
    assert.equal(ghostTracesMade(), before + 1, 'one trace per watched client');
    stopA();
    stopA();
    s.step();
    assert.equal(seen, 3);
    stopB();
    assert.equal(inspector.watcherCount, 0);
    for (let i = 0; i < 5; i++) s.step();
    assert.equal(seen, 3, 'stopped: no more packets');
    assert.equal(ghostTracesMade(), before + 1);
    assert.throws(() => inspector.watch(2, () => {}), /clientIndex/);
  });

  it('per-field bits on demand: the changed fields of each written entity, inside its bits', () => {
    const s = scene();
    let fieldRows = 0;
    let positions = 0;
    let plain = 0;
    const inspector = s.replication.inspect();
    const stopPlain = inspector.watch(0, (p) => {
      plain += p.entities.filter((e) => e.fields !== undefined).length;
    });
    s.step();
    assert.equal(plain, 0, 'no fields unless asked');
    const stop = inspector.watch(
      0,
      (p) => {
        for (const e of p.entities) {
          if (e.fields === undefined) {
            assert.ok(!['create', 'delta', 'absolute'].includes(e.verdict), `${e.verdict} without fields`);
            continue;
          }
          fieldRows++;
          const sum = e.fields.reduce((a, f) => a + f.bits, 0);
          assert.ok(sum < e.bits, `${sum} of ${e.bits} bits`);
          // A delta of nothing: moved and moved back to its baseline's value between two sends.
          if (e.verdict === 'delta' && sum === 0) assert.deepEqual(e.fields, []);
          else assert.ok(sum > 0, `${e.verdict}: ${sum} of ${e.bits} bits in fields`);
          if (e.verdict === 'delta' && sum > 0) {
            // Only x moves: the one field changed.
            assert.deepEqual(
              e.fields.map((f) => f.path),
              ['.position[0]'],
            );
            positions++;
          }
        }
      },
      { fields: true },
    );
    for (let i = 0; i < 20; i++) s.step();
    stop();
    stopPlain();
    assert.ok(fieldRows > 0 && positions > 0, `${fieldRows} rows, ${positions} deltas`);
  });

  it('whoSees lists the clients holding a ghost', () => {
    const s = scene({ bandwidth: { bytesPerPacket: 1150, kbps: 100_000 }, budgetBytes: 1150 });
    const inspector = s.replication.inspect();
    assert.deepEqual(inspector.whoSees(0), []);
    for (let i = 0; i < 20; i++) s.step();
    assert.deepEqual(inspector.whoSees(0), [{ client: 0, state: 'live' }]);
    assert.deepEqual(inspector.whoSees(CAPACITY - 1), []);
    assert.throws(() => inspector.whoSees(CAPACITY), /id/);
  });

  it("a match recorder's virtual client is neither listed by whoSees nor watchable", () => {
    const s = scene({ bandwidth: { bytesPerPacket: 1150, kbps: 100_000 }, budgetBytes: 1150 });
    const recorder = s.replication.record({ tickRate: 30 });
    const inspector = s.replication.inspect();
    for (let i = 0; i < 20; i++) {
      s.step();
      recorder.capture();
    }
    assert.ok(recorder.lastTick >= 0, 'the recorder captured ticks');
    assert.deepEqual(inspector.whoSees(0), [{ client: 0, state: 'live' }]);
    assert.throws(() => inspector.watch(2, () => {}), /clientIndex/);
  });
});
