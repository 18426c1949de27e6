/**
 * A private field this client does not hold is absent — no key, never a key holding undefined —
 * on every client path (the runtime side of the client-side types in private-field-types.test.ts):
 * `me` (predicted), `entities` (interpolated, and predicted near the player), the mirror's ghost
 * values (what its entity callbacks get), a spectator's view, a predicted spawn (local, then the
 * server's), a kill-cam and a replay's mirror and samples; and again after a withdraw. Over a real GameServer on loopback UDP.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { t } from '../../src/schema/schema.js';
import { until } from '../support/until.js';

const coord = t.float(-64, 64, 1 / 64);
const game = defineGame({
  name: 'private-absent',
  entities: {
    avatar: {
      state: t.object({ x: coord, ammo: t.uint8(), ping: t.object({ x: coord, y: coord }) }),
      visibility: { ammo: 'owner', ping: 'team' },
      position: (a) => [a.x, 0],
    },
    // Predicted near the player (by its move), with a team field.
    drone: {
      state: t.object({ x: coord, fuel: t.uint8() }),
      visibility: { fuel: 'team' },
      position: (d) => [d.x, 0],
      move: (d) => ({ ...d, x: d.x >= 30 ? -30 : d.x + 0.25 }),
      predict: { near: 1000 },
    },
    // A predicted spawn with a field no one holds (the server's spawns have no owner).
    shot: {
      state: t.object({ x: coord, dmg: t.uint8() }),
      visibility: { dmg: 'owner' },
      position: (s) => [s.x, 0],
      move: (s) => (s.x > 60 ? null : { ...s, x: s.x + 0.5 }),
      predict: 'spawner',
    },
  },
  player: 'avatar',
  // The input asks for a team (0: none, 1: team 0), and fires a shot.
  input: t.object({ team: t.int(0, 1), fire: t.bool() }),
  step: (a) => a,
  spawns: (a, input) => (input.fire ? [{ type: 'shot', key: 0, state: { x: a.x, dmg: 5 } }] : []),
});
type Input = { team: number; fire: boolean };

const rules = game.rules({
  onJoin(g, player) {
    player.spawn({ x: g.players.length, ammo: 7, ping: { x: 1, y: 1 } });
    if (g.entities.every((e) => e.type !== 'drone')) g.spawn('drone', { x: 0, fuel: 99 }).team = 0;
  },
  onTick(g) {
    for (const player of g.players) {
      const team = (player.input?.team ?? 0) === 1 ? 0 : null;
      if (player.team !== team) player.team = team;
    }
  },
});

/** `field` is absent from `state`: no key (`in`, keys, a spread), and it reads undefined. */
function absent(state: object, field: string, where: string): void {
  assert.ok(!(field in state), `${where}: '${field}' in state`);
  assert.ok(!Object.keys(state).includes(field), `${where}: ${field} among the keys`);
  assert.ok(!Object.hasOwn({ ...state }, field), `${where}: ${field} in a spread`);
  assert.equal((state as Record<string, unknown>)[field], undefined, `${where}: ${field} read`);
}

function held(state: object, field: string, where: string): void {
  assert.ok(Object.hasOwn(state, field), `${where}: ${field} not held`);
  assert.notEqual((state as Record<string, unknown>)[field], undefined, `${where}: ${field} undefined`);
}

type Client = GameClient<typeof game>;
const avatarOf = (c: Client) => c.entities.find((e) => e.type === 'avatar');
const droneOf = (c: Client) => c.entities.find((e) => e.type === 'drone');
/** The keys of each shot `b` shows, by whether it is still its local spawn (a negative id). */
const shotKeys = { local: [] as string[][], server: [] as string[][] };
function recordShots(c: Client): void {
  for (const e of c.entities)
    if (e.type === 'shot') shotKeys[e.id < 0 ? 'local' : 'server'].push(Object.keys(e.state));
}

describe('a private field not held is absent on every client path', () => {
  it('me, entities (interpolated and predicted), ghost values, a spectator, a replay; and after a withdraw', async () => {
    const server = await GameServer.start(rules, {
      port: 0,
      transports: ['udp'],
      spectators: { max: 1 },
    });
    const recording = server.record({ keepSeconds: 10, keyframeSeconds: 1 });
    const a = await GameClient.connect(game, server.url);
    const b = await GameClient.connect(game, server.url);
    const tv = await GameClient.connect(game, server.url, { spectate: true });
    const inputs: [Input, Input] = [
      { team: 1, fire: false }, // a on team 0
      { team: 0, fire: false }, // b on none
    ];
    const killcams: { followed: unknown; values: unknown[] }[] = [];
    a.onKillcam((cam) => {
      cam.seek(cam.endTick);
      killcams.push({
        followed: cam.followed(),
        values: [...cam.mirror.ghosts()].map((g) => g.value),
      });
    });
    const timer = setInterval(() => {
      a.update(inputs[0]);
      b.update(inputs[1]);
      recordShots(b);
      tv.update();
    }, 1000 / 60);
    try {
      await until(
        'everyone sees everything, a holds its team fields',
        10_000,
        () =>
          a.me?.state.ammo !== undefined &&
          b.me?.state.ammo !== undefined &&
          a.me.state.ping !== undefined &&
          droneOf(a)?.state.fuel !== undefined &&
          droneOf(a)?.predicted === true &&
          droneOf(b)?.predicted === true &&
          avatarOf(b) !== undefined &&
          tv.entities.length === 3,
      );
      // me: the owner field held; b has no team, so its own team field is absent.
      held(a.me!.state, 'ammo', 'a.me');
      held(a.me!.state, 'ping', 'a.me');
      held(b.me!.state, 'ammo', 'b.me');
      absent(b.me!.state, 'ping', 'b.me');
      // entities, interpolated: the other's avatar.
      absent(avatarOf(a)!.state, 'ammo', "a's view of b");
      absent(avatarOf(a)!.state, 'ping', "a's view of b");
      absent(avatarOf(b)!.state, 'ammo', "b's view of a");
      absent(avatarOf(b)!.state, 'ping', "b's view of a");
      // entities, predicted near the player: the drone (team 0's).
      held(droneOf(a)!.state, 'fuel', "a's drone");
      absent(droneOf(b)!.state, 'fuel', "b's drone");
      // The mirror's ghost values (what ClientMirror's onCreate / onUpdate hand over).
      const droneId = droneOf(b)!.id;
      absent(b.expert.mirror.ghost(droneId)!.value as object, 'fuel', "b's drone ghost");
      absent(b.expert.mirror.ghost(avatarOf(b)!.id)!.value as object, 'ammo', "b's ghost of a");
      held(a.expert.mirror.ghost(droneId)!.value as object, 'fuel', "a's drone ghost");
      // A spectator holds no owner or team field.
      for (const e of tv.entities)
        for (const field of game.privateFields[e.type]) absent(e.state, field, `spectator's ${e.type}`);

      // A withdraw: a leaves team 0; the fields it held go away as keys, not as undefined.
      inputs[0] = { team: 0, fire: false };
      await until(
        'the withdraw',
        10_000,
        () => droneOf(a)?.state.fuel === undefined && a.me?.state.ping === undefined,
      );
      absent(droneOf(a)!.state, 'fuel', "a's drone after the withdraw");
      absent(a.me!.state, 'ping', 'a.me after the withdraw');
      absent(a.expert.mirror.ghost(droneId)!.value as object, 'fuel', "a's drone ghost after the withdraw");
      held(a.me!.state, 'ammo', 'a.me after the withdraw');

      // A predicted spawn: b's local shot, then the server's, never with the field no one holds.
      inputs[1] = { team: 0, fire: true };
      await until('a local shot', 5_000, () => shotKeys.local.length > 0);
      inputs[1] = { team: 0, fire: false };
      await until('the server shot', 5_000, () => shotKeys.server.length > 0);
      for (const keys of [...shotKeys.local, ...shotKeys.server]) assert.deepEqual(keys, ['x']);

      // A kill-cam: a's own avatar followed, seen as a recording's audience sees it.
      const mine = server.simulation.players.find((p) => p.entity?.id === a.me!.id)!;
      server.killcam(mine, { seconds: 1, follow: mine.entity });
      await until('the kill-cam', 5_000, () => killcams.length === 1);
      absent(killcams[0].followed as object, 'ammo', 'kill-cam followed');
      absent(killcams[0].followed as object, 'ping', 'kill-cam followed');
      for (const value of killcams[0].values)
        for (const field of ['ammo', 'ping', 'fuel', 'dmg']) absent(value as object, field, 'kill-cam ghost');

      // A replay (opened like a kill-cam): the recording holds no private field.
      const replay = a.openReplay(recording.save({ seconds: 1 }));
      replay.seek(replay.endTick);
      let checked = 0;
      for (const ghost of replay.mirror.ghosts()) {
        const type = ghost.type.name as keyof typeof game.privateFields;
        const sample = replay.sample(ghost.id);
        assert.ok(sample !== null);
        for (const field of game.privateFields[type]) {
          absent(ghost.value as object, field, `replay ghost ${type}`);
          absent(sample, field, `replay sample ${type}`);
          checked++;
        }
      }
      assert.ok(checked >= 2 * 2 + 1, 'two avatars and a drone (and a shot, perhaps) in the replay');
    } finally {
      clearInterval(timer);
      a.close();
      b.close();
      tv.close();
      await server.close();
    }
  });
});
