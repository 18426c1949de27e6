/**
 * A zone gateway over loopback UDP with real GameClients, its two zones played by hand: clients
 * see entities of both zones within their radius and not beyond, an entity handed from zone 0 to
 * zone 1 stays one ghost whose state goes on, and a player walking across the border is told its
 * own entity by mirror id, predicts it, and is never corrected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { gatewayOfPlayer } from '../../src/zones/gateway-player-ids.js';
import { until } from '../support/until.js';
import { zoneGame } from '../support/zone-game.js';
import { type GatewayScene, startGatewayScene, WANDERER } from '../support/zone-gateway-harness.js';

/** Updates the clients at 60 Hz with `input` until `check` holds. */
async function play(
  clients: GameClient<typeof zoneGame>[],
  input: { dx: number; dy: number },
  what: string,
  check: () => boolean,
  each: () => void = () => {},
): Promise<void> {
  const timer = setInterval(() => {
    for (const client of clients) client.update({ ...input, tick: 0 });
    each();
  }, 1000 / 60);
  try {
    await until(what, 8000, check);
  } finally {
    clearInterval(timer);
  }
}

const STILL = { dx: 0, dy: 0 };

describe('zone gateway over loopback UDP', () => {
  let scene: GatewayScene;
  before(async () => {
    scene = await startGatewayScene();
  });
  after(() => scene.close());

  it('joins go to the spawn zone; the client is told its own entity by mirror id; it sees both zones within its radius only', async () => {
    const [zone0, zone1] = scene.zones;
    const near0 = zone0.spawn(WANDERER, { x: 40, y: 50, heading: 0 });
    const near1 = zone1.spawn(WANDERER, { x: 60, y: 50, heading: 0 });
    const far1 = zone1.spawn(WANDERER, { x: 95, y: 50, heading: 0 });
    const client = await GameClient.connect(zoneGame, scene.host.url);
    try {
      const mirrorOf = (worldId: number) => scene.gateway.mirror.entry(worldId)?.entity.id ?? -2;
      await play([client], STILL, 'its own entity and the near ones', () => {
        const ids = new Set(client.entities.map((e) => e.id));
        return client.me !== null && ids.has(mirrorOf(near0)) && ids.has(mirrorOf(near1));
      });
      assert.ok(
        zone0.batches.some((b) => b.joins.length === 1),
        'the join went to zone 0',
      );
      assert.ok(
        zone1.batches.every((b) => b.joins.length === 0),
        'no join went to zone 1',
      );
      const playerId = scene.gateway.playerIdAt(0);
      assert.equal(gatewayOfPlayer(playerId), 3, 'the gateway index is in the high bits');
      assert.equal(client.me?.id, mirrorOf(zone0.players.get(playerId)!));
      assert.ok(mirrorOf(far1) >= 0, 'the far entity is in the mirror');
      // A second on: the far one (35 m away, radius 20) still never shown.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await play([client], STILL, 'a few more ticks', () => true);
      assert.ok(!client.entities.some((e) => e.id === mirrorOf(far1)), 'the far entity is not shown');
    } finally {
      client.close();
    }
    await until('the leave to reach zone 0', 5000, () => zone0.players.size === 0);
    for (const id of [near0, near1, far1]) (id >>> 24 === 0 ? zone0 : zone1).destroy(id);
  });

  it("sends a zone's events to their player, or to every client; another player's are not sent", async () => {
    const [zone0, zone1] = scene.zones;
    const clients = [
      await GameClient.connect(zoneGame, scene.host.url),
      await GameClient.connect(zoneGame, scene.host.url),
    ];
    try {
      await play(clients, STILL, 'both players', () => clients.every((c) => c.me !== null));
      const got: number[][] = [[], []];
      for (const [i, client] of clients.entries()) client.on('turned', (value) => got[i].push(value.heading));
      const turned = 1; // the game's first event, after ghostwire.owner
      const playerId = scene.gateway.playerIdAt(0);
      const mirrorId = scene.gateway.mirror.entry(zone0.players.get(playerId)!)!.entity.id;
      const target = clients.findIndex((c) => c.me?.id === mirrorId);
      assert.ok(target >= 0);
      zone0.events.push({ to: playerId, typeIndex: turned, reliable: true, value: { heading: 3 } });
      zone1.events.push({ to: -1, typeIndex: turned, reliable: true, value: { heading: 5 } });
      zone1.events.push({ to: 7 * 65536, typeIndex: turned, reliable: true, value: { heading: 6 } });
      await play(clients, STILL, 'the events', () => got[0].length + got[1].length >= 3);
      // A moment more: nothing else comes.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await play(clients, STILL, 'a few more ticks', () => true);
      assert.deepEqual([...got[target]].sort(), [3, 5], 'its own, and the one for everyone');
      assert.deepEqual(
        got[1 - target],
        [5],
        "the one for everyone; not the other player's, nor a stranger's",
      );
    } finally {
      for (const client of clients) client.close();
    }
    await until('the leaves to reach zone 0', 5000, () => zone0.players.size === 0);
  });

  it('an entity handed from zone 0 to zone 1 keeps its ghost, its state goes on, a late batch from zone 0 is refused', async () => {
    const [zone0, zone1] = scene.zones;
    zone0.wandererSpeed = 0.25;
    zone1.wandererSpeed = 0.25;
    const walkerId = zone0.spawn(WANDERER, { x: 46, y: 50, heading: 0 });
    const client = await GameClient.connect(zoneGame, scene.host.url);
    try {
      const entry = () => scene.gateway.mirror.entry(walkerId);
      await play([client], STILL, 'the wanderer shown', () =>
        client.entities.some((e) => e.id === entry()?.entity.id),
      );
      const entity = entry()!.entity;
      const ghost = entity.id;
      let lastX = 0;
      let blinks = 0;
      let backwards = 0;
      const watch = () => {
        const shown = client.entities.find((e) => e.id === ghost);
        if (shown === undefined) blinks++;
        else {
          const x = (shown.state as { x: number }).x;
          if (x < lastX - 1e-9) backwards++;
          lastX = x;
        }
      };
      zone0.publishing = false; // its next batches arrive late, by hand
      zone0.handOff(walkerId, zone1);
      await play(
        [client],
        STILL,
        'the wanderer past 52 in zone 1',
        () => entry()?.zone === 1 && lastX > 52,
        watch,
      );
      assert.equal(entry()?.entity, entity, 'the same mirror entity');
      assert.equal(blinks, 0, 'the ghost never left the client');
      assert.equal(backwards, 0, 'its x only grew');
      const stale = {
        ...zone0.held[0],
        entities: [{ worldId: walkerId, typeIndex: WANDERER, state: { x: 1, y: 1, heading: 0 } }],
      };
      const before = scene.gateway.stats().refused['stale-entity'];
      scene.gateway.receive(stale);
      await play(
        [client],
        STILL,
        'the stale batch applied',
        () => scene.gateway.stats().refused['stale-entity'] > before,
      );
      assert.ok(
        (scene.gateway.world.get(entity) as { x: number }).x > 50,
        'the old zone did not overwrite it',
      );
    } finally {
      zone0.publishing = true;
      client.close();
      zone0.wandererSpeed = 0;
      zone1.wandererSpeed = 0;
      zone1.destroy(walkerId);
    }
  });

  it('a player walking across the border: inputs follow the owners table, prediction is never corrected', async () => {
    const [zone0, zone1] = scene.zones;
    zone0.handoffX = 50;
    zone0.handoffTo = zone1;
    const client = await GameClient.connect(zoneGame, scene.host.url);
    try {
      await play([client], STILL, 'its own entity', () => client.me !== null);
      const ghost = client.me!.id;
      await play([client], { dx: 1, dy: 0 }, 'its walker past x = 60 in zone 1', () => {
        const playerId = scene.gateway.playerIdAt(0);
        return scene.gateway.zoneOf(0) === 1 && (client.me?.state.x ?? 0) > 60 && zone1.players.has(playerId);
      });
      await play([client], STILL, 'the walker at rest', () => true);
      assert.equal(client.me?.id, ghost, 'the same ghost across the handoff');
      const playerId = scene.gateway.playerIdAt(0);
      const late = zone1.batches.filter((b) => b.inputs.some((i) => i.playerId === playerId));
      assert.ok(late.length > 0, 'inputs went to zone 1 after the handoff');
      assert.equal(client.stats().mispredictions, 0, 'no prediction was corrected');
      assert.equal(client.expert.predictor.stats().visualError, 0);
    } finally {
      client.close();
      zone0.handoffTo = null;
    }
  });

  it("a player whose zone's batches come a tick after their stamp: each stamp reports the input its state is after, so nothing is corrected", async () => {
    const [zone0] = scene.zones;
    const client = await GameClient.connect(zoneGame, scene.host.url);
    // Zone 0's batch of tick T reaches the gateway only after it stamped T (late, without it): each
    // stamp then shows the walker's state of the tick before.
    const release = () => {
      const stamped = scene.gateway.world.serverTick;
      let kept = 0;
      for (const feed of zone0.held) {
        if (feed.tick <= stamped) scene.gateway.receive(feed);
        else zone0.held[kept++] = feed;
      }
      zone0.held.length = kept;
    };
    try {
      await play([client], STILL, 'its own entity', () => client.me !== null);
      const lateBefore = scene.gateway.stats().stampsLate;
      zone0.publishing = false;
      const x = scene.gateway.world.get(
        scene.gateway.mirror.entry(zone0.players.values().next().value!)!.entity,
      ) as {
        x: number;
      };
      const walked = () => {
        const own = zone0.players.values().next().value;
        const entry = own === undefined ? undefined : scene.gateway.mirror.entry(own);
        return entry !== undefined && (scene.gateway.world.get(entry.entity) as { x: number }).x > x.x + 10;
      };
      await play(
        [client],
        { dx: 1, dy: 0 },
        'the walker 10 m on as the gateway stamps it, its zone late all along',
        walked,
        release,
      );
      const stamped = scene.gateway.world.serverTick;
      await play(
        [client],
        STILL,
        'the walker at rest',
        () => scene.gateway.world.serverTick > stamped + 10,
        release,
      );
      const stats = scene.gateway.stats();
      assert.ok(stats.stampsLate > lateBefore + 10, `the walk was stamped late: ${JSON.stringify(stats)}`);
      assert.equal(client.stats().mispredictions, 0, 'no prediction was corrected');
    } finally {
      zone0.publishing = true;
      release();
      client.close();
    }
  });
});
