/**
 * Entity references in a zoned world, end to end: two zones in a worker thread, the gateway on
 * loopback UDP, a real GameClient. Each zone's rules name entities by their local ids; the client
 * must find each named orb among its own entities by the id it receives, whichever zone emitted
 * it, including orbs created in zone 0 and handed to zone 1, and a player's own walker after it
 * crossed into zone 1. A reference to a destroyed entity arrives as none (-1).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { t } from '../../src/schema/schema.js';
import { ZoneGateway } from '../../src/zones/zone-gateway.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import type { FeedBatch } from '../../src/zones/zone-messages.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import { ZonedWorld } from '../../src/zones/zoned-world.js';
import { until } from '../support/until.js';
import { DOOMED, ORBS, refsGame } from '../support/zone-refs-game.js';

describe('entity references in a zoned world', () => {
  let world: ZonedWorld;
  before(async () => {
    world = await ZonedWorld.start({
      rules: new URL('../support/zone-refs-game.js', import.meta.url),
      bounds: { minX: 0, minY: 0, maxX: 100, maxY: 100 },
      columns: 2,
      rows: 1,
      interestRadius: 150, // every entity in view: each named orb has a ghost to be found
      handoff: { margin: 2, dwellSeconds: 0.1 },
      threads: 1,
      port: 0,
      transports: ['udp'],
    });
  });
  after(() => world.close());

  it('an event names the ghost the zone meant, from either zone, and a destroyed entity as none', async () => {
    const client = await GameClient.connect(refsGame, world.url);
    const wrong: string[] = [];
    const found = new Set<number>();
    const doomed: number[] = [];
    const mine = { right: 0, wrong: 0, afterCrossing: 0 };
    client.on('pointed', ({ at, tag }) => {
      if (tag === DOOMED) {
        doomed.push(at);
        return;
      }
      const entity = client.entities.find((e) => e.id === at);
      if (entity === undefined) return; // not shown yet
      if (entity.type === 'orb' && entity.state.tag === tag) found.add(tag);
      else wrong.push(`orb ${tag} as ${at}: ${entity.type} ${JSON.stringify(entity.state)}`);
    });
    client.on('mine', ({ me }) => {
      const own = client.me;
      if (own === null) return;
      if (me !== own.id) mine.wrong++;
      else if (own.state.x > 60) mine.afterCrossing++;
      else mine.right++;
    });
    const walk = (dx: number) => setInterval(() => client.update({ dx }), 1000 / 60);
    let timer = walk(0);
    try {
      // A wrong reference ends the wait at once: it is reported below.
      const done = () => wrong.length > 0 || mine.wrong > 0;
      await until(
        'its walker and every orb',
        15_000,
        () => done() || (client.me !== null && found.size === ORBS + 2),
      );
      clearInterval(timer);
      timer = walk(1);
      // Past x = 60 the walker is zone 1's: `mine` then comes from zone 1, with zone 1's local id.
      await until(
        '`mine` from zone 1',
        15_000,
        () => done() || (mine.afterCrossing >= 3 && doomed.length >= 3),
      );
    } finally {
      clearInterval(timer);
      client.close();
    }
    assert.deepEqual(wrong, [], 'no reference names another entity');
    assert.deepEqual(
      [...found].sort((a, b) => a - b),
      [...Array.from({ length: ORBS }, (_, i) => i), 100, 101],
    );
    assert.equal(mine.wrong, 0, "`mine` always names the player's own walker");
    assert.ok(mine.right > 0);
    assert.deepEqual(new Set(doomed), new Set([-1]), 'a destroyed entity is none');
    assert.equal(world.stats().gateway?.refused['bad-event'], 0);
  });

  it('refuses at the start a game with references in entity states, inputs or messages', async () => {
    const stateRef = defineGame({
      name: 'zone-state-refs',
      entities: {
        walker: { state: t.object({ x: t.uint8(), target: t.entity() }), position: (s) => [s.x, 0] },
      },
      input: t.object({ dx: t.int(-1, 1) }),
      step: (s) => s,
    });
    assert.throws(() => zoneCodecs(stateRef), /entities\.walker\.state holds an entity reference/);
    const messageRef = defineGame({
      name: 'zone-message-refs',
      entities: { walker: { state: t.object({ x: t.uint8() }) } },
      input: t.object({ dx: t.int(-1, 1) }),
      step: (s) => s,
      messages: { pick: t.object({ what: t.entity() }) },
    });
    assert.throws(() => zoneCodecs(messageRef), /messages\.pick holds an entity reference/);
  });

  it('a hostile feed: a reference past the zones is refused on the wire; the gateway maps any other stray to none', () => {
    const event = { to: -1, typeIndex: 1, reliable: true, value: { at: (3 << 24) | 4, tag: 1 } };
    const feed = (
      zone: number,
      events: FeedBatch['events'],
      entities: FeedBatch['entities'] = [],
    ): FeedBatch => ({
      zone,
      epoch: 0,
      tick: 1,
      keyframe: false,
      entities,
      removed: [],
      owners: [],
      events,
    });
    // Written by a world of 256 zones, read by one of 2: zone 3's world id is refused with its path.
    const bytes = zoneCodecs(refsGame)
      .encodeFeedBatch(feed(0, [event]))
      .slice();
    const read = zoneCodecs(refsGame, { zoneLimit: 2 }).decodeFeedBatch(bytes);
    assert.equal(read.ok, false);
    if (!read.ok) assert.match(read.reason, /events\[0\]\.value/);

    const map = new ZoneMap({
      minX: 0,
      minY: 0,
      maxX: 100,
      maxY: 100,
      columns: 2,
      rows: 1,
      cellZones: [0, 1],
    });
    const gateway = new ZoneGateway({
      game: refsGame,
      map,
      gateway: 0,
      maxPlayers: 2,
      radius: 50,
      send: () => {},
    });
    const sent: unknown[] = [];
    const emit = gateway.replication.emit.bind(gateway.replication);
    gateway.replication.emit = ((type, value, options) => {
      sent.push((value as { at: unknown }).at);
      emit(type, value, options);
    }) as typeof emit;
    const at = (value: unknown) => ({ ...event, value: { at: value, tag: 1 } });
    const orb = { worldId: 5, typeIndex: 1, state: { x: 1, y: 1, tag: 7 } };
    gateway.receive(feed(0, [at(5), at(6), at(2 ** 40), at(-7), at(5.5), at(-1), at('x')], [orb]));
    gateway.receive(feed(1, []));
    gateway.tick(1);
    const mirrorId = gateway.mirror.mirrorIdOf(5);
    assert.ok(mirrorId >= 0);
    assert.deepEqual(sent, [mirrorId, -1, -1, -1, -1, -1, 'x']);
    assert.equal(gateway.stats().refused['bad-event'], 1, 'a reference that is not a number is refused');
  });
});
