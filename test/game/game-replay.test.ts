/**
 * GameServer.record and kill-cams over real UDP on loopback: the match recorded once, saved as a
 * .gwr file a GameClient opens apart from the live game, and a kill-cam sent to one player as a
 * reliable block and played in a second mirror; a corrupt kill-cam is refused and counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { encodeKillcam } from '../../src/game/killcam-wire.js';
import type { ReplayPlayer } from '../../src/latency/replay-player.js';
import { ReplayError } from '../../src/replication/recording/replay-error.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';

describe('game recording and kill-cams', () => {
  let server: GameServer;
  before(async () => {
    server = await GameServer.start(arenaRules(emptyLog()), { port: 0, transports: ['udp'] });
  });
  after(() => server.close());

  it('records the match, saves the last seconds, and sends a kill-cam the client plays in a second mirror', async () => {
    const recording = server.record({ keepSeconds: 4, keyframeSeconds: 1 });
    assert.equal(server.record(), recording, 'one recording per server');
    const client = await GameClient.connect(arena, server.url);
    const killcams: { replay: ReplayPlayer; follow: number }[] = [];
    client.onKillcam((replay, follow) => killcams.push({ replay, follow }));
    try {
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'three seconds recorded with the player walking',
        10000,
        () => recording.lastTick - recording.firstTick > 90 && (client.me?.state.x ?? 0) > 3,
      );
      // The ring keeps keepSeconds (from the keyframe before): never much more.
      await play(
        [client],
        () => STILL,
        'six seconds recorded',
        10000,
        () => recording.lastTick > 180,
      );
      assert.ok(recording.lastTick - recording.firstTick < 4 * 30 + 30 + 1, 'the ring is trimmed');

      const file = recording.save({ seconds: 2 });
      const replay = client.openReplay(file);
      assert.equal(replay.endTick - replay.startTick + 1, 60);
      assert.equal(replay.tickRate, 30);
      const player = server.simulation.players[0];
      const id = player.entity!.id;
      replay.seek(replay.endTick);
      assert.ok(replay.mirror.ghost(id) !== null, "the player's avatar is in the recording");
      assert.equal(client.expert.mirror.ghost(id)?.type, replay.mirror.ghost(id)?.type);

      const sent = server.killcam(player, { seconds: 1, follow: player.entity });
      await play(
        [client],
        () => STILL,
        'the kill-cam to arrive',
        5000,
        () => killcams.length === 1,
      );
      const result = await sent;
      assert.ok(result.sent && result.bytes > 8, `sent: ${JSON.stringify(result)}`);
      const { replay: cam, follow } = killcams[0];
      assert.equal(follow, id);
      assert.equal(cam.following, id);
      assert.equal(cam.endTick - cam.startTick + 1, 30);
      // The others as the killer saw them: its interpolation delay behind its own entity.
      assert.ok(
        cam.viewDelayTicks > 0 && cam.viewDelayTicks < 15,
        `view delay ${cam.viewDelayTicks} ticks (the client's interpolation delay)`,
      );
      cam.play(2);
      cam.advance(0.25);
      assert.equal(cam.renderTick, cam.startTick + 15);
      const shown = cam.followed() as { x: number } | null;
      assert.ok(shown !== null && shown.x > 3, 'the followed avatar is shown where it was');
      assert.notEqual(cam.mirror, client.expert.mirror, 'a second mirror: the live game goes on');
      // Without relevancy the killer's view is the whole public world: the target is in the clip.
      const target = server.simulation.entities.find((e) => e.type === 'target')!;
      assert.ok(cam.mirror.ghost(target.id) !== null, 'a game without relevancy: everything');

      // A corrupt clip is refused and counted, never thrown out of update().
      const clip = recording.save({ seconds: 1 });
      clip[clip.length >> 1] ^= 0xff;
      assert.throws(() => client.openReplay(clip), ReplayError);
      server.messages.sendBlock(player.index, 2, encodeKillcam(id, clip));
      await play(
        [client],
        () => STILL,
        'the corrupt kill-cam to be refused',
        5000,
        () => client.stats().killcamsRefused === 1,
      );
      // A view delay that is not one (NaN, negative, past 255 ticks) is refused too.
      for (const delay of [Number.NaN, -1, 256])
        server.messages.sendBlock(player.index, 2, encodeKillcam(id, file, delay));
      await play(
        [client],
        () => STILL,
        'the kill-cams with bad view delays to be refused',
        5000,
        () => client.stats().killcamsRefused === 4,
      );
      assert.equal(killcams.length, 1);
    } finally {
      client.close();
      recording.stop();
    }
  });

  it('refuses a kill-cam before recording, or for no player', () => {
    const nobody = { index: -1 } as never;
    assert.throws(() => server.killcam(nobody), /not recording/, 'the recording was stopped');
    const recording = server.record();
    assert.equal(recording.stopped, false, 'a new recording after stop()');
    assert.throws(() => server.killcam(nobody), /viewer must be a connected player/);
  });
});
