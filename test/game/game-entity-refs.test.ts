/**
 * Entity references (t.entity()) in a plain GameServer: an event's and a state's ids are the
 * server's entity ids, which are the client's ghost ids, so the client finds the entity named by
 * an `id` among `client.entities` (or `client.me`); -1 names none.
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
const pointing = defineGame({
  name: 'entity-refs',
  maxEntities: 100, // 101 values with none: 7 bits a reference
  entities: {
    avatar: { state: t.object({ x: coord, y: coord }) },
    // An orb names the avatar it follows (-1: none yet).
    orb: {
      state: t.object({ x: coord, tag: t.uint8(), follows: t.entity() }),
      // Recorded for lag compensation too: its states keep the reference.
      hitbox: (s) => ({ type: 'circle', x: s.x, y: 0, radius: 0.5 }),
    },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a, input) => ({ ...a, x: Math.max(-60, Math.min(60, a.x + input.dx / 4)) }),
  events: { pointed: t.object({ at: t.entity(), by: t.entity(), missing: t.entity() }) },
});

const rules = pointing.rules({
  onJoin(game, player) {
    if (game.entities.length === 0)
      // Created before the avatar, in an order that makes the orb's id differ from its tag.
      for (const tag of [30, 31, 32, 33]) game.spawn('orb', { x: tag - 40, tag, follows: -1 });
    const avatar = player.spawn({ x: 0, y: 0 });
    for (const e of game.entities) if (e.type === 'orb') e.state = { ...e.state, follows: avatar.id };
  },
  onTick(game) {
    const orb = game.entities.find((e) => e.type === 'orb' && e.state.tag === 32);
    for (const player of game.players)
      if (orb !== undefined && player.entity !== null)
        game.emit('pointed', { at: orb.id, by: player.entity.id, missing: -1 }, { to: player });
  },
});

describe('entity references in a GameServer', () => {
  it("an event names the right ghost and -1 none; a state names the player's avatar", async () => {
    const server = await GameServer.start(rules, { port: 0, transports: ['udp'] });
    const client = await GameClient.connect(pointing, server.url);
    const seen: { at: number; by: number; missing: number }[] = [];
    client.on('pointed', (value) => seen.push({ ...value }));
    const timer = setInterval(() => client.update({ dx: 0 }), 1000 / 60);
    try {
      await until('events and four orbs', 10_000, () => seen.length > 3 && client.entities.length === 4);
      const last = seen.at(-1)!;
      const at = client.entities.find((e) => e.id === last.at);
      assert.equal(at?.type, 'orb');
      assert.equal(at?.type === 'orb' && at.state.tag, 32, 'the event names the orb the rules pointed at');
      assert.equal(last.by, client.me?.id, "the event's `by` is the client's own entity");
      assert.equal(last.missing, -1);
      assert.equal(
        client.entities.find((e) => e.id === -1) ?? null,
        null,
        'none (-1) names no entity at the client',
      );
      for (const e of client.entities)
        assert.equal(e.type === 'orb' && e.state.follows, client.me?.id, 'each orb follows the avatar');
    } finally {
      clearInterval(timer);
      client.close();
      await server.close();
    }
  });

  it('a game binds references to its maxEntities: an id past it is refused at the emit', () => {
    const game = defineGame({
      name: 'entity-refs-bound',
      maxEntities: 8,
      entities: { avatar: { state: t.object({ x: t.uint8() }) } },
      input: t.object({ dx: t.int(-1, 1) }),
      step: (a) => a,
      events: { pointed: t.object({ at: t.entity() }) },
    });
    const schema = game.eventTypes.pointed.schema;
    assert.equal(schema.kind === 'object' && schema.fields.at.kind === 'entity' && schema.fields.at.ids, 8);
    assert.throws(() => game.eventTypes.pointed.codec.encode({ at: 8 }), RangeError);
    assert.equal(game.eventTypes.pointed.codec.encode({ at: 7 }).length, 1);
  });
});
