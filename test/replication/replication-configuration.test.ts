import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { CONFIGURATION_DIFFERS, configurationHash } from '../../src/replication/configuration.js';
import {
  type AnyEntityType,
  ClientMirror,
  defineEntity,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';

/** Both ends must agree on types, capacity and historyLength: a client that does not says so. */
const Cube = defineEntity('cube', t.object({ x: t.float(-64, 64, 1 / 512), rest: t.bool() }));
const Tag = defineEntity('tag', t.object({ name: t.string(12) }));
const WideCube = defineEntity('cube', t.object({ x: t.float(-128, 128, 1 / 512), rest: t.bool() }));
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(8) }))]);

interface Ends {
  types: readonly AnyEntityType[];
  capacity: number;
  historyLength: number;
}
const SERVER: Ends = { types: [Cube, Tag], capacity: 32, historyLength: 8 };

function run(client: Ends) {
  const world = new ServerWorld(SERVER);
  const replication = new ReplicationServer({ world });
  const alarms: string[] = [];
  const mirror = new ClientMirror({ ...client, onConfigurationMismatch: (reason) => alarms.push(reason) });
  const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  const connection = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  const cube = world.create(Cube, { x: 1, rest: false });
  world.create(Tag, { name: 'red' });
  const sizes: number[] = [];
  const refusals: (string | null)[] = [];
  for (let i = 1; i <= 6; i++) {
    world.set(cube, { x: i, rest: false });
    world.tick();
    const { data, record } = server.writePacket(i * 0.2); // past resendInterval: creates ride again
    sizes.push(data.length);
    if (connection.readPacket(data, 0, data.length)) server.acked(record);
    else refusals.push(connection.lastRejection);
  }
  return { mirror, alarms, refusals, sizes };
}

describe('replication configuration agreement', () => {
  it('a client configured as the server is checked once and then replicates', () => {
    const { mirror, alarms, refusals } = run(SERVER);
    assert.deepEqual(refusals, []);
    assert.deepEqual(alarms, []);
    assert.equal(mirror.configurationChecked, true);
    assert.equal(mirror.configurationMismatches, 0);
    assert.equal(mirror.size, 2);
    assert.deepEqual(mirror.ghost(0)?.value, { x: 6, rest: false });
  });

  for (const [what, client] of [
    ['types in another order', { ...SERVER, types: [Tag, Cube] }],
    ['a type of another layout under the same name', { ...SERVER, types: [WideCube, Tag] }],
    ['a type missing', { ...SERVER, types: [Cube] }],
    ['capacity', { ...SERVER, capacity: 64 }],
    ['historyLength', { ...SERVER, historyLength: 16 }],
  ] as const) {
    it(`a client differing in ${what} refuses every section with the reason, and says so`, () => {
      const { mirror, alarms, refusals } = run(client);
      assert.equal(refusals.length, 6);
      for (const reason of refusals) assert.match(reason ?? '', /configuration differs from the server's/);
      assert.ok(refusals.every((r) => r?.includes(CONFIGURATION_DIFFERS)));
      assert.deepEqual(alarms, Array(6).fill(CONFIGURATION_DIFFERS));
      assert.equal(mirror.configurationMismatches, 6);
      assert.equal(mirror.configurationChecked, false);
      assert.equal(mirror.size, 0, 'nothing applied');
    });
  }

  it('the fingerprint rides only until the client acks it: 32 bits once, then 1 bit a section', () => {
    const { sizes } = run(SERVER);
    // The first section carries both creates and the fingerprint; later ones one small update.
    assert.ok(sizes[0] > sizes[1] + 4, `${sizes}`);
    assert.ok(
      sizes.slice(2).every((n) => n === sizes[1]),
      `${sizes}`,
    );
  });

  it('the fingerprint sees names, layouts, capacity and historyLength', () => {
    const h = configurationHash([Cube, Tag], 32, 8);
    assert.equal(configurationHash([Cube, Tag], 32, 8), h);
    for (const other of [
      configurationHash([Tag, Cube], 32, 8),
      configurationHash([WideCube, Tag], 32, 8),
      configurationHash([Cube, Tag], 33, 8),
      configurationHash([Cube, Tag], 32, 9),
    ])
      assert.notEqual(other, h);
  });
});
