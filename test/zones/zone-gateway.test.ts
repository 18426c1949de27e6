/**
 * ZoneGateway as a state machine (no sockets): routing of joins, leaves and inputs by the owners
 * table, stamping with the zones' tick numbers (on time, or late), the mirror's refusals (stale
 * epochs, stale entities, a keyframe's vanished entities) and hostile feeds, counted, never thrown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame, type GameDefinition } from '../../src/game/define-game.js';
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { gatewayOfPlayer, gatewayPlayerId } from '../../src/zones/gateway-player-ids.js';
import { ZoneGateway } from '../../src/zones/zone-gateway.js';
import type { FeedBatch, GatewayBatch } from '../../src/zones/zone-messages.js';
import { testSeed } from '../support/seed.js';
import { zoneGame } from '../support/zone-game.js';
import { twoZoneMap, WALKER, WANDERER } from '../support/zone-gateway-harness.js';

function gatewayOf(game: GameDefinition = zoneGame, options: { lateTicks?: number } = {}) {
  const sent: { zone: number; batch: GatewayBatch }[] = [];
  const gateway = new ZoneGateway({
    game,
    map: twoZoneMap(),
    gateway: 2,
    maxPlayers: 4,
    radius: 20,
    send: (zone, batch) => sent.push({ zone, batch }),
    ...options,
  });
  return { gateway, sent };
}

function feed(zone: number, tick: number, parts: Partial<FeedBatch> = {}): FeedBatch {
  return {
    zone,
    epoch: 0,
    tick,
    keyframe: false,
    entities: [],
    removed: [],
    owners: [],
    events: [],
    ...parts,
  };
}

const walker = (worldId: number, x: number) => ({
  worldId,
  typeIndex: WALKER,
  state: { x, y: 50, steps: 0 },
});
const wanderer = (worldId: number, x: number) => ({
  worldId,
  typeIndex: WANDERER,
  state: { x, y: 50, heading: 0 },
});

describe('ZoneGateway', () => {
  it('joins go to the spawn zone, leaves and traffic to the zone the owners table names', () => {
    const { gateway, sent } = gatewayOf();
    gateway.join(1);
    const playerId = gatewayPlayerId(2, 1, 1);
    assert.equal(gateway.playerIdAt(1), playerId);
    gateway.tick(1);
    assert.deepEqual(
      sent.map((s) => [s.zone, s.batch.tick, s.batch.joins]),
      [
        [0, 2, [playerId]],
        [1, 2, []],
      ],
    );
    const w = 7;
    gateway.receive(feed(0, 2, { entities: [walker(w, 45)], owners: [{ playerId, worldId: w }] }));
    gateway.receive(feed(1, 2));
    gateway.tick(2);
    assert.equal(gateway.world.serverTick, 2);
    assert.equal(gateway.zoneOf(1), 0);
    const entity = gateway.mirror.entry(w)!.entity;
    assert.equal(gateway.world.ownerOf(entity), 1, "the player's own mirror entity");
    // Zone 1 now hosts it (a handoff): the leave goes there.
    gateway.receive(feed(0, 3));
    gateway.receive(feed(1, 3, { entities: [walker(w, 51)], owners: [{ playerId, worldId: w }] }));
    gateway.tick(3);
    assert.equal(gateway.zoneOf(1), 1);
    assert.equal(gateway.mirror.entry(w)!.entity, entity, 'one mirror entity across zones');
    gateway.leave(1);
    sent.length = 0;
    gateway.tick(4);
    assert.deepEqual(
      sent.map((s) => [s.zone, s.batch.leaves]),
      [
        [0, []],
        [1, [playerId]],
      ],
    );
    // Tick 1 too: by the clock's tick 2 both zones had published later batches.
    assert.equal(gateway.stats().stampsOnTime, 3);
  });

  it("a zone's late record about a player who left never reaches the next player seated in the slot", () => {
    const { gateway, sent } = gatewayOf();
    gateway.join(0);
    const first = gateway.playerIdAt(0);
    gateway.tick(1);
    gateway.receive(feed(0, 2, { entities: [walker(7, 55)], owners: [{ playerId: first, worldId: 7 }] }));
    gateway.receive(feed(1, 2, { entities: [walker(7, 55)], owners: [{ playerId: first, worldId: 7 }] }));
    gateway.tick(2);
    assert.equal(gateway.zoneOf(0), 1);
    gateway.leave(0);
    gateway.join(0);
    const second = gateway.playerIdAt(0);
    assert.notEqual(second, first, 'a new id for the slot');
    assert.equal(gatewayOfPlayer(second), 2);
    sent.length = 0;
    gateway.tick(3);
    assert.deepEqual(
      sent.map((s) => [s.zone, s.batch.joins, s.batch.leaves]),
      [
        [0, [second], []],
        [1, [], [first]],
      ],
    );
    // Zone 1 drops the first player a tick later; zone 0 has not yet published the second's walker.
    gateway.receive(feed(1, 4, { removed: [7], owners: [{ playerId: first, worldId: -1 }] }));
    gateway.receive(feed(0, 4));
    gateway.tick(4);
    assert.equal(gateway.zoneOf(0), 0, "the second player's traffic still goes to the spawn zone");
    gateway.receive(feed(0, 5, { entities: [walker(8, 45)], owners: [{ playerId: second, worldId: 8 }] }));
    gateway.receive(feed(1, 5));
    gateway.tick(5);
    assert.equal(gateway.zoneOf(0), 0);
    assert.equal(gateway.world.ownerOf(gateway.mirror.entry(8)!.entity), 0);
    const ids = new Set([first, second]);
    for (let n = 0; n < 254; n++) {
      gateway.leave(0);
      gateway.join(0);
      ids.add(gateway.playerIdAt(0));
    }
    assert.equal(ids.size, 256, 'a slot gives 256 ids before one comes back');
  });

  it("stamps with the zones' tick numbers: on time when every zone's batch arrived, else lateTicks behind the clock", () => {
    const { gateway } = gatewayOf(zoneGame, { lateTicks: 2 });
    gateway.receive(feed(0, 1, { entities: [wanderer(1, 10)] }));
    gateway.tick(1);
    gateway.tick(2);
    assert.equal(gateway.world.serverTick, 0, 'zone 1 has not published tick 1, and it is not late yet');
    gateway.tick(3);
    assert.equal(gateway.world.serverTick, 1);
    assert.equal(gateway.stats().stampsLate, 1);
    gateway.receive(feed(0, 4));
    gateway.receive(feed(1, 4));
    gateway.tick(4);
    assert.equal(gateway.world.serverTick, 4, 'ticks 2 and 3 are covered by the batches of 4');
    assert.equal(gateway.stats().stampsOnTime, 3);
  });

  it('refuses a batch of a stale epoch, and an older state than the one it holds', () => {
    const { gateway } = gatewayOf();
    gateway.receive(feed(0, 1, { epoch: 2, entities: [wanderer(1, 10)] }));
    gateway.receive(feed(0, 1, { epoch: 1, entities: [wanderer(2, 10)] }));
    gateway.receive(feed(1, 2, { entities: [wanderer(1, 60)] }));
    gateway.receive(feed(0, 1, { epoch: 2, entities: [wanderer(1, 20)] }));
    gateway.receive(feed(0, 2, { epoch: 2 }));
    gateway.tick(1);
    gateway.tick(2);
    gateway.receive(feed(0, 1, { epoch: 2, entities: [wanderer(1, 30)], removed: [1] }));
    for (let tick = 3; tick <= 6; tick++) gateway.tick(tick);
    const stats = gateway.stats();
    assert.equal(stats.refused['stale-epoch'], 1);
    assert.equal(stats.refused['stale-entity'], 1);
    assert.equal(stats.refused['stale-removal'], 1);
    assert.equal(gateway.mirror.entry(2), undefined);
    assert.ok(Math.abs((gateway.world.get(gateway.mirror.entry(1)!.entity) as { x: number }).x - 60) < 0.02);
  });

  it("removes what vanished from two of a zone's keyframes in a row, unless another zone published it since", () => {
    const { gateway } = gatewayOf();
    gateway.receive(feed(0, 1, { entities: [wanderer(1, 10), wanderer(2, 48)] }));
    gateway.receive(feed(1, 1));
    gateway.tick(1);
    gateway.receive(feed(1, 2, { entities: [wanderer(2, 51)] }));
    gateway.receive(feed(0, 3, { keyframe: true }));
    gateway.receive(feed(1, 3));
    gateway.tick(3);
    assert.notEqual(gateway.mirror.entry(1), undefined, 'left out of one keyframe: maybe in flight, kept');
    assert.notEqual(gateway.mirror.entry(2), undefined, 'handed off: kept');
    gateway.receive(feed(0, 4, { keyframe: true }));
    gateway.receive(feed(1, 4));
    gateway.tick(4);
    assert.equal(gateway.mirror.entry(1), undefined, 'lost removal: gone by the second keyframe');
    assert.notEqual(gateway.mirror.entry(2), undefined, 'handed off: kept');
    assert.equal(gateway.stats().entities, 1);
  });

  it('keeps one mirror entity for an entity handed off at a keyframe, its new zone publishing it after', () => {
    const { gateway } = gatewayOf();
    gateway.receive(feed(0, 1, { entities: [wanderer(1, 49.5)] }));
    gateway.receive(feed(1, 1));
    gateway.tick(1);
    const first = gateway.mirror.entry(1)!.entity;
    // Released by zone 0 after tick 1: zone 0's keyframe of tick 2 (without it) is applied first,
    // then zone 1's batch of tick 2 (with it), in the same stamp.
    gateway.receive(feed(0, 2, { keyframe: true }));
    gateway.receive(feed(1, 2, { entities: [wanderer(1, 50.5)] }));
    gateway.tick(2);
    assert.equal(gateway.mirror.entry(1)?.entity, first, 'the same mirror entity: its ghost goes on');
    assert.equal(gateway.mirror.entry(1)?.zone, 1);
    // Released after tick 3 to a zone running behind: it comes a stamp after zone 0's keyframe.
    gateway.receive(feed(0, 3, { entities: [wanderer(2, 49.6)] }));
    gateway.receive(feed(1, 3));
    gateway.tick(3);
    const second = gateway.mirror.entry(2)!.entity;
    gateway.receive(feed(0, 4, { keyframe: true }));
    gateway.receive(feed(1, 4));
    gateway.tick(4);
    gateway.receive(feed(0, 5));
    gateway.receive(feed(1, 5, { entities: [wanderer(2, 50.4)] }));
    gateway.tick(5);
    assert.equal(gateway.mirror.entry(2)?.entity, second, 'the same mirror entity: its ghost goes on');
    assert.equal(gateway.world.isAlive(first) && gateway.world.isAlive(second), true);
    assert.equal(gateway.stats().entities, 2);
  });

  it("a zone flooding the gateway with batches fills its own share of the waiting room, not the other zones'", () => {
    const { gateway } = gatewayOf();
    // The share: maxAheadTicks (32) + lateTicks (2) + 4 batches waiting per zone.
    for (let n = 0; n < 60; n++) gateway.receive(feed(1, 1, { entities: [wanderer(9, 60)] }));
    assert.equal(gateway.stats().refused['too-many-waiting'], 60 - 38);
    gateway.receive(feed(0, 1, { entities: [wanderer(1, 10)] }));
    assert.equal(gateway.stats().refused['too-many-waiting'], 60 - 38, "zone 0's batch is taken");
    gateway.tick(1);
    assert.ok(gateway.mirror.entry(1) !== undefined, "zone 0's entity is in the mirror");
    // Stamped, the flood's batches left the room: zone 1 has its share again.
    gateway.receive(feed(1, 2));
    assert.equal(gateway.stats().refused['too-many-waiting'], 60 - 38);
  });

  it('refuses hostile feeds with reasons and never throws', () => {
    const tiny = defineGame({
      name: 'tiny',
      maxEntities: 2,
      entities: { dot: { state: t.object({ x: t.float(0, 100, 1 / 8) }), position: (s) => [s.x, 0] } },
      input: t.object({ dx: t.int(-1, 1) }),
      step: (s, i) => ({ x: s.x + i.dx }),
    });
    const { gateway } = gatewayOf(tiny);
    const dot = (worldId: number, x: unknown) => ({ worldId, typeIndex: 0, state: { x } });
    gateway.receive(
      feed(0, 1, { entities: [dot(-5, 1), dot(1.5, 1), dot(200 * 2 ** 24, 1), null as never] }),
    );
    gateway.receive(
      feed(0, 1, { entities: [{ worldId: 3, typeIndex: 9, state: {} }, dot(4, 'a'), dot(5, 1000)] }),
    );
    gateway.receive(feed(0, 1, { entities: [dot(6, 1), dot(7, 2), dot(8, 3)], removed: [99, -1] }));
    gateway.receive(feed(0, 1, { owners: [{ playerId: gatewayPlayerId(5, 1, 0), worldId: 12345 }] }));
    gateway.receive(feed(0, 1, { events: [{ to: -1, typeIndex: 0, reliable: true, value: { id: 1 } }] }));
    gateway.receive(feed(0, 1, { events: [{ to: -1, typeIndex: 7, reliable: true, value: {} }] }));
    gateway.receive(feed(0, 10_000));
    gateway.receive(feed(9, 1));
    gateway.receive({ ...feed(0, 1), entities: null } as unknown as FeedBatch);
    gateway.receive(null as unknown as FeedBatch);
    gateway.join(0);
    gateway.receive(feed(0, 1, { owners: [{ playerId: gatewayPlayerId(2, 1, 0), worldId: 12345 }] }));
    gateway.tick(1);
    gateway.tick(2);
    gateway.tick(3);
    const refused = gateway.stats().refused;
    assert.equal(refused['bad-world-id'], 4);
    assert.equal(refused['bad-type'], 1);
    assert.equal(refused['bad-state'], 2);
    assert.equal(refused['mirror-full'], 1);
    assert.equal(refused['unknown-removal'], 2);
    assert.equal(refused['unknown-owner'], 1, 'only for a player of this gateway');
    assert.equal(refused['bad-event'], 2);
    assert.equal(refused['future-tick'], 1);
    assert.equal(refused['bad-header'], 3);
    assert.equal(gateway.stats().entities, 2);
  });

  it('random hostile feeds: never throws, the mirror stays within its capacity and its tick the clock', () => {
    const seed = testSeed('zone gateway hostile feeds');
    const random = prng(seed);
    const { gateway } = gatewayOf();
    const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
    const anything = () => pick<unknown>([-1, 0, 1, 1.5, 2 ** 40, Number.NaN, 'x', null, {}, []]);
    for (let tick = 1; tick <= 300; tick++) {
      for (let n = 0; n < 3; n++) {
        const entities = Array.from({ length: Math.floor(random() * 6) }, () =>
          random() < 0.6
            ? wanderer(Math.floor(random() * 40), random() * 120 - 10)
            : random() < 0.9
              ? { worldId: anything(), typeIndex: anything(), state: anything() }
              : anything(),
        );
        const batch = feed(Math.floor(random() * 2), tick + Math.floor(random() * 8) - 4, {
          epoch: Math.floor(random() * 3),
          keyframe: random() < 0.1,
          entities: entities as FeedBatch['entities'],
          removed: Array.from({ length: Math.floor(random() * 3) }, () => Math.floor(random() * 40)),
          owners: [
            {
              playerId: gatewayPlayerId(2, 1, Math.floor(random() * 4)),
              worldId: Math.floor(random() * 40) - 1,
            },
          ],
          events: [
            {
              to: Math.floor(random() * 3) - 1,
              typeIndex: Math.floor(random() * 3),
              reliable: true,
              value: anything(),
            },
          ],
        });
        gateway.receive(random() < 0.05 ? (anything() as FeedBatch) : batch);
      }
      if (random() < 0.05) {
        const slot = Math.floor(random() * 4);
        if (gateway.plays(slot)) gateway.leave(slot);
        else gateway.join(slot);
      }
      gateway.tick(tick);
      assert.ok(gateway.world.serverTick <= tick);
      assert.ok(gateway.world.serverTick >= tick - 2);
      assert.ok(gateway.stats().entities <= gateway.world.capacity);
    }
  });
});
