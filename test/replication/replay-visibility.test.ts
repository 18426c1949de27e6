import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { ReplayPlayer } from '../../src/latency/replay-player.js';
import { prng, randomInt } from '../../src/random/prng.js';
import {
  defineEntity,
  type Entity,
  group,
  owner,
  ReplicationServer,
  ServerWorld,
  when,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

/**
 * A recording is the public audience: whatever the owners, groups and predicates, the recorder's
 * virtual client is never a part holder, and a user predicate is never asked about it.
 */
const SEED = testSeed('replay visibility');
const MAX_CLIENTS = 2;
const asked = new Set<number>();
const Avatar = defineEntity(
  'avatar',
  t.object({ x: t.int(0, 1000), secret: t.uint16(), plan: t.uint16(), dossier: t.uint16() }),
  {
    visibility: {
      secret: owner(),
      plan: group(),
      // Admits every client it is asked about: the recorder must never be asked.
      dossier: when((client) => {
        asked.add(client);
        return true;
      }),
    },
  },
);
const CONFIG = { types: [Avatar], capacity: 64, historyLength: 8 };
const factory = new MessageFactory([defineMessage('chat', t.object({ n: t.uint8() }))]);

describe(`a recording holds no private field (seed ${SEED})`, () => {
  it('owner, group and predicate parts, with owners, groups and revisits changing, never reach the file', () => {
    const random = prng(SEED);
    const world = new ServerWorld(CONFIG);
    const replication = new ReplicationServer({ world, maxClients: MAX_CLIENTS });
    // Real clients over bare connections: each tick's packet runs the server's per-tick refresh.
    const connections = Array.from(
      { length: MAX_CLIENTS },
      (_, clientIndex) => new MessageConnection({ factory, channels: [replication.channel], clientIndex }),
    );
    const recorder = replication.record({ tickRate: 30, keyframeSeconds: 1 });
    const avatars: Entity<{ x: number; secret: number; plan: number; dossier: number }>[] = [];
    for (let i = 0; i < 6; i++) {
      const a = world.create(Avatar, { x: i, secret: 1000 + i, plan: 2000 + i, dossier: 3000 + i });
      world.setOwner(a, i % MAX_CLIENTS);
      world.setGroup(a, i % 3);
      avatars.push(a);
    }
    for (let tick = 1; tick <= 120; tick++) {
      for (const a of avatars) {
        const v = world.get(a);
        world.set(a, {
          x: randomInt(random, 1000),
          secret: (v.secret + 1) & 0xffff,
          plan: (v.plan + 1) & 0xffff,
          dossier: (v.dossier + 1) & 0xffff,
        });
      }
      if (tick % 10 === 0) {
        const a = avatars[randomInt(random, avatars.length)];
        world.setOwner(a, randomInt(random, 3) === 0 ? null : randomInt(random, MAX_CLIENTS));
        world.setGroup(a, randomInt(random, 4));
        world.revisit(a);
        replication.setGroups(randomInt(random, MAX_CLIENTS), 0xffffffff);
        replication.revisitClient(randomInt(random, MAX_CLIENTS));
      }
      world.tick();
      for (const connection of connections) {
        const { record } = connection.writePacket(tick / 30);
        connection.acked(record);
      }
      recorder.capture();
    }
    assert.ok(
      [...asked].every((client) => client < MAX_CLIENTS),
      `the predicate was asked about ${[...asked]}`,
    );
    assert.ok(asked.size > 0, 'the predicate was asked about the real clients');
    // The recorder's index is refused where a real client's is expected.
    assert.throws(() => replication.setGroups(MAX_CLIENTS, 1), /clientIndex/);
    assert.throws(() => replication.revisitClient(MAX_CLIENTS), /clientIndex/);

    const player = ReplayPlayer.open(recorder.save(), CONFIG);
    let checked = 0;
    for (let tick = player.startTick; tick <= player.endTick; tick += 7) {
      player.seek(tick);
      for (const ghost of player.mirror.ghosts()) {
        const value = ghost.value as Record<string, unknown>;
        assert.equal(typeof value.x, 'number');
        for (const field of ['secret', 'plan', 'dossier']) {
          assert.equal(player.mirror.holds(ghost.id, field), false, `tick ${tick}: ${field} held`);
          assert.equal(value[field], undefined, `tick ${tick}: ${field} in the recording`);
        }
        checked++;
      }
    }
    assert.ok(checked >= 6 * 10, `${checked} ghosts checked`);
  });
});
