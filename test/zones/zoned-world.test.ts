/**
 * A zoned world end to end: four zones in worker threads, a gateway on loopback UDP, real
 * GameClients. A player walks across zone borders with one ghost, never corrected; it sees the
 * wanderers of the zones around it; a zone thread killed under it is taken over while it stays
 * connected and keeps playing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { prng } from '../../src/random/prng.js';
import { ZonedWorld } from '../../src/zones/zoned-world.js';
import { testSeed } from '../support/seed.js';
import { until } from '../support/until.js';
import { SIDE, zoneGame } from '../support/zone-game.js';

const SEED = testSeed('zoned-world');
process.env.GW_ZONE_TEST_SEED = String(SEED);
process.env.GW_ZONE_TEST_WANDERERS = '80';

type Client = GameClient<typeof zoneGame>;

/**
 * Inputs the zones refused for reaching them after they stepped the input's tick: on a busy
 * machine a zone thread can run ahead of the gateway's sends, and a zone, like any server, then
 * repeats the player's last input, which the client's prediction corrects. That is the machine's
 * doing, in any world; a correction it does not explain is a fault of the zones.
 */
function lateInputs(world: ZonedWorld): number {
  return world.stats().zones.reduce((sum, z) => sum + (z.report?.inputsRefused.late ?? 0), 0);
}

async function play(
  client: Client,
  input: { dx: number; dy: number },
  what: string,
  check: () => boolean,
): Promise<void> {
  const timer = setInterval(() => client.update({ ...input, tick: 0 }), 1000 / 60);
  try {
    await until(what, 15_000, check);
  } finally {
    clearInterval(timer);
  }
}

describe('ZonedWorld', () => {
  let world: ZonedWorld;
  const events: string[] = [];
  before(async () => {
    world = await ZonedWorld.start({
      rules: new URL('../support/zone-rules-module.js', import.meta.url),
      bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
      columns: 2,
      rows: 2,
      interestRadius: 30,
      handoff: { margin: 2, dwellSeconds: 0.3 },
      port: 0,
      transports: ['udp'],
      snapshotTicks: 5,
      onEvent: (event) => events.push(event),
    });
  });
  after(() => world.close());

  it('a player crosses zone borders with one ghost and no correction, seeing the zones around it', async () => {
    const client = await GameClient.connect(zoneGame, world.url);
    try {
      await play(client, { dx: 0, dy: 0 }, 'its own walker', () => client.me !== null);
      const lateBefore = lateInputs(world);
      const ghost = client.me!.id;
      // From the middle (where four zones meet) to the far corner and back across two borders.
      await play(
        client,
        { dx: 1, dy: 1 },
        'the walker past (70, 70)',
        () => (client.me?.state.x ?? 0) > 70 && (client.me?.state.y ?? 0) > 70,
      );
      await play(
        client,
        { dx: -1, dy: 0 },
        'the walker back past x = 30',
        () => (client.me?.state.x ?? 100) < 30,
      );
      await play(client, { dx: 0, dy: 0 }, 'a moment at rest', () => true);
      assert.equal(client.me?.id, ghost, 'the same ghost across every handoff');
      const zones = world.stats().zones.map((z) => ({
        zone: z.zone,
        refused: z.report?.inputsRefused,
        late: z.report?.lateArrivals,
        skipped: z.report?.ticksSkipped,
        tick: z.report?.tick,
      }));
      const explained = lateInputs(world) - lateBefore;
      assert.ok(
        client.stats().mispredictions <= 2 * explained,
        `no prediction was corrected but for inputs that reached their zone late (${explained}): ${JSON.stringify({ zones, gateway: world.stats().gateway })}`,
      );
      if (explained === 0) assert.equal(client.expert.predictor.stats().visualError, 0);
      const handoffs = world.stats().zones.reduce((sum, z) => sum + (z.report?.commits ?? 0), 0);
      assert.ok(handoffs >= 2, `${handoffs} handoffs`);
      // Each handoff into a zone is in its latency bins, taken in the same report: never less than a tick.
      for (const z of world.stats().zones) {
        const byTicks = z.handoffLatency?.byTicks ?? [];
        const measured = byTicks.reduce((sum, n) => sum + n, 0);
        assert.equal(measured, z.report?.handoffsIn, `zone ${z.zone}: every arrival measured once`);
        assert.equal(byTicks[0], 0, `zone ${z.zone}: no handoff stepped in its decision tick`);
        assert.equal(typeof z.nearBorder, 'number', `zone ${z.zone} counts its border entities`);
      }
      const seen = client.entities.filter((e) => e.type === 'wanderer').length;
      assert.ok(seen > 0 && seen < 80, `${seen} wanderers within its radius`);
      const gateway = world.stats().gateway!;
      assert.ok(
        gateway.stampsOnTime > gateway.stampsLate,
        `${gateway.stampsOnTime} on time, ${gateway.stampsLate} late`,
      );
    } finally {
      client.close();
    }
  });

  it('bots walking seeded random paths across borders are never corrected: each input applied once, in order', async () => {
    const random = prng(SEED);
    const lateBefore = lateInputs(world);
    const bots = await Promise.all([0, 1, 2].map(() => GameClient.connect(zoneGame, world.url)));
    try {
      const headings = bots.map(() => ({ dx: 0, dy: 0 }));
      const timer = setInterval(() => {
        bots.forEach((bot, i) => {
          // A new heading now and then; away from the walls, so every bot keeps moving across zones.
          if (random() < 0.03)
            headings[i] = { dx: Math.floor(random() * 3) - 1, dy: Math.floor(random() * 3) - 1 };
          const me = bot.me?.state;
          if (me !== undefined) {
            if (me.x < 20) headings[i].dx = 1;
            if (me.x > 80) headings[i].dx = -1;
            if (me.y < 20) headings[i].dy = 1;
            if (me.y > 80) headings[i].dy = -1;
          }
          bot.update({ ...headings[i], tick: 0 });
        });
      }, 1000 / 60);
      // Each bot's zone as its own walker shows it: a change is a handoff of that walker.
      const zones = bots.map(() => -1);
      const crossings = bots.map(() => 0);
      try {
        await until('every bot across a border twice', 30_000, () => {
          bots.forEach((bot, i) => {
            const me = bot.me?.state;
            if (me === undefined) return;
            const zone = world.map.zoneAt(me.x, me.y);
            if (zones[i] >= 0 && zone !== zones[i]) crossings[i]++;
            zones[i] = zone;
          });
          return crossings.every((n) => n >= 2);
        });
      } finally {
        clearInterval(timer);
      }
      const explained = lateInputs(world) - lateBefore;
      const why = JSON.stringify({
        zones: world.stats().zones.map((z) => ({
          zone: z.zone,
          refused: z.report?.inputsRefused,
          late: z.report?.lateArrivals,
        })),
        gateway: world.stats().gateway,
        bots: bots.map((bot) => bot.stats()),
      });
      for (const bot of bots) {
        assert.equal(bot.status, 'connected');
        assert.ok(
          bot.stats().mispredictions <= 2 * explained,
          `no prediction was corrected but for inputs that reached their zone late (${explained}): ${why}`,
        );
      }
    } finally {
      for (const bot of bots) bot.close();
    }
  });

  it('keeps a player connected and playing while the thread of its zone is killed and taken over', async () => {
    const client = await GameClient.connect(zoneGame, world.url);
    try {
      await play(client, { dx: 0, dy: 0 }, 'its own walker', () => client.me !== null);
      const ghost = client.me!.id;
      const zoneOfPlayer = world.map.zoneAt(client.me!.state.x, client.me!.state.y);
      await world.crashZone(zoneOfPlayer);
      assert.ok(world.stats().restarts >= 1, events.join('; '));
      const x = client.me!.state.x;
      await play(
        client,
        { dx: 1, dy: 0 },
        'the walker moving again after the takeover',
        () => (client.me?.state.x ?? 0) > x + 3,
      );
      assert.equal(client.me?.id, ghost, 'the same ghost after the takeover');
      assert.equal(client.status, 'connected');
      // The player is hosted again (restored from the zone's snapshot, or arrived since).
      await until('a zone hosting the player', 5000, () =>
        world.stats().zones.some((z) => (z.report?.players ?? 0) > 0),
      );
    } finally {
      client.close();
    }
  });
});
