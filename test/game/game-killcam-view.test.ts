/**
 * A kill-cam in a game with relevancy, over real UDP: the clip the victim is sent holds, tick by
 * tick, only what the killer's view held (GameServer.killcam with `follow`): an entity far from
 * the killer is never in it, one that runs past appears when it came within the radius and goes
 * when it left, an entity without a position is always there; the clip plays on the client with
 * the killer's view delay. Without `follow` the clip holds the whole public world.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import type { ReplayPlayer } from '../../src/latency/replay-player.js';
import { t } from '../../src/schema/schema.js';
import { pumpClients as pump } from '../support/pump-clients.js';

const RADIUS = 20;
const coord = t.float(-256, 256, 1 / 16);
const field = defineGame({
  name: 'killcam-field',
  tickRate: 30,
  entities: {
    avatar: { state: t.object({ x: coord, y: coord }), position: (a) => [a.x, a.y] },
    /** Runs along y = 0 from x = -60 to 60, a metre a tick: past the avatar at the origin. */
    runner: { state: t.object({ x: coord, y: coord }), position: (r) => [r.x, r.y] },
    /** Moves every tick, always far from the avatar. */
    far: { state: t.object({ x: coord, y: coord }), position: (f) => [f.x, f.y] },
    /** No position: relevant everywhere. */
    clock: { state: t.object({ ticks: t.uint16() }) },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a) => a,
});

const rules = field.rules({
  onJoin(game, player) {
    player.spawn({ x: 0, y: 0 });
    game.spawn('runner', { x: -60, y: 0 });
    game.spawn('far', { x: 150, y: 150 });
    game.spawn('clock', { ticks: 0 });
  },
  onTick(game) {
    for (const e of game.entities) {
      const s = e.state as { x: number; y: number; ticks: number };
      if (e.type === 'runner' && s.x < 60) e.state = { ...s, x: s.x + 1 };
      if (e.type === 'far') e.state = { ...s, x: s.x === 150 ? 151 : 150 };
      if (e.type === 'clock') e.state = { ticks: (s.ticks + 1) & 0xffff };
    }
  },
});

/** Per tick of a kill-cam, by seeking to it: which of the named entities its mirror holds. */
function presence(cam: ReplayPlayer, ids: Record<string, number>): Map<number, Set<string>> {
  const byTick = new Map<number, Set<string>>();
  for (let tick = cam.startTick; tick <= cam.endTick; tick++) {
    cam.seek(tick);
    // The frames up to 3 ahead are applied: the mirror holds the newest tick's ghosts.
    const held = new Set(Object.keys(ids).filter((name) => cam.mirror.ghost(ids[name]) !== null));
    byTick.set(Math.min(cam.endTick, tick + 3), held);
  }
  return byTick;
}

describe('kill-cams from the killer view', () => {
  let server: GameServer;
  before(async () => {
    server = await GameServer.start(rules, {
      port: 0,
      transports: ['udp'],
      relevancy: { radius: RADIUS, bounds: [-256, -256, 256, 256] },
    });
  });
  after(() => server.close());

  it("holds only what the followed entity's view held, tick by tick, and plays with its view delay", async () => {
    server.record({ keepSeconds: 10, keyframeSeconds: 1 });
    const client = await GameClient.connect(field, server.url);
    const killcams: { replay: ReplayPlayer; follow: number }[] = [];
    client.onKillcam((replay, follow) => killcams.push({ replay, follow }));
    try {
      const entity = (type: string) => server.simulation.entities.find((e) => e.type === type);
      await pump([client], 'the runner past the avatar', 10000, () => {
        const runner = entity('runner')?.state as { x: number } | undefined;
        return runner !== undefined && runner.x >= 40 && client.me !== null;
      });
      const player = server.simulation.players[0];
      const ids = {
        avatar: player.entity!.id,
        runner: entity('runner')!.id,
        far: entity('far')!.id,
        clock: entity('clock')!.id,
      };
      const viewSent = server.killcam(player, { seconds: 3, follow: player.entity });
      const wholeSent = server.killcam(player, { seconds: 3 }); // no one followed: the whole public world
      await pump([client], 'the kill-cams', 5000, () => killcams.length === 2);
      const [viewCam, wholeCam] = [await viewSent, await wholeSent];
      assert.ok(viewCam.sent && wholeCam.sent, 'both kill-cams are sent');
      const [viewBytes, wholeBytes] = [viewCam.bytes, wholeCam.bytes];
      assert.ok(
        viewBytes < wholeBytes,
        `the killer's view (${viewBytes} B) is less than the world (${wholeBytes} B)`,
      );

      const { replay: cam, follow } = killcams[0];
      assert.equal(follow, ids.avatar);
      assert.ok(cam.viewDelayTicks > 0, `the killer's view delay (${cam.viewDelayTicks} ticks)`);
      const seen = presence(cam, ids);
      const runnerTicks = [...seen].filter(([, held]) => held.has('runner')).map(([tick]) => tick);
      for (const [tick, held] of seen) {
        assert.ok(!held.has('far'), `tick ${tick}: the far entity is never in the clip`);
        assert.ok(held.has('avatar') && held.has('clock'), `tick ${tick}: the followed entity and the clock`);
      }
      assert.ok(!seen.get(cam.startTick + 3)!.has('runner'), 'the runner is out of view at the start');
      assert.ok(!seen.get(cam.endTick)!.has('runner'), 'and out of view again at the end');
      // In view from 20 m before the avatar (entering) to 23 m past it (leaving at 1.15 × 20).
      assert.ok(runnerTicks.length >= 40 && runnerTicks.length <= 46, `in view ${runnerTicks.length} ticks`);
      assert.equal(
        runnerTicks.at(-1)! - runnerTicks[0] + 1,
        runnerTicks.length,
        'in view once, without a gap',
      );
      cam.seek(runnerTicks[0] + 5);
      const shown = cam.sample(ids.runner) as { x: number };
      assert.ok(Math.abs(shown.x) <= RADIUS * 1.15, `the runner shown in view, at x = ${shown.x}`);
      cam.seek(cam.startTick);
      cam.play(2);
      cam.advance(0.5);
      assert.equal(cam.renderTick, cam.startTick + 30);
      assert.ok(cam.followed() !== null, 'the followed avatar is shown');

      const whole = presence(killcams[1].replay, ids);
      for (const [tick, held] of whole) {
        assert.ok(held.has('far') && held.has('runner'), `tick ${tick}: without follow, everything`);
      }
    } finally {
      client.close();
    }
  });
});
