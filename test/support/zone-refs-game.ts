/**
 * A zoned game whose events name entities (t.entity()), and its rules as a zoned world's rules
 * module (the default export; zone threads import it). On a 100 × 100 map cut in two zones:
 *
 * - zone 0 spawns ORBS orbs over the whole map once (the ones in zone 1's half are handed there,
 *   so their local ids in zone 1 have nothing to do with the ids they had in zone 0), and each
 *   zone spawns one orb of its own (tag 100 + zone), so both zones use the same local ids;
 * - every POINT_TICKS ticks each zone tells everyone `pointed { at, tag }` for each orb it owns,
 *   and each player it hosts `mine { me }` naming the player's walker;
 * - zone 1 spawns an orb (tag DOOMED) at every pointing, destroys it the next tick and points at
 *   its old local id: that reference must arrive as none (-1), never as another entity.
 */
import { defineGame } from '../../src/game/define-game.js';
import { t } from '../../src/schema/schema.js';
import type { ZoneInfo } from '../../src/zones/zone-rules-module.js';

export const ORBS = 12;
export const DOOMED = 500;
const POINT_TICKS = 5;
const coordinate = t.float(0, 100, 1 / 64);
const clamp = (v: number) => Math.min(100, Math.max(0, v));

export const refsGame = defineGame({
  name: 'zone-refs',
  tickRate: 30,
  maxEntities: 256,
  entities: {
    walker: { state: t.object({ x: coordinate, y: coordinate }), position: (s) => [s.x, s.y] },
    orb: { state: t.object({ x: coordinate, y: coordinate, tag: t.uint16() }), position: (s) => [s.x, s.y] },
  },
  player: 'walker',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (s, i) => ({ ...s, x: clamp(s.x + i.dx * 0.5) }),
  events: {
    pointed: t.object({ at: t.entity(), tag: t.uint16() }),
    mine: t.object({ me: t.entity() }),
  },
});

export default function rules(zone: ZoneInfo) {
  return refsGame.rules({
    onJoin(_game, player) {
      player.spawn({ x: 40, y: 50 });
    },
    onTick(game) {
      const data = game.data as { spawned?: boolean; doomed?: number; ticks?: number };
      if (data.spawned !== true) {
        data.spawned = true;
        if (zone.zone === 0)
          for (let i = 0; i < ORBS; i++)
            game.spawn('orb', { x: 5 + (i % 4) * 30, y: 10 + Math.floor(i / 4) * 30, tag: i });
        game.spawn('orb', { x: zone.zone === 0 ? 20 : 80, y: 90, tag: 100 + zone.zone });
      }
      if (data.doomed !== undefined) {
        game.entities.find((e) => e.id === data.doomed)?.destroy();
        game.emit('pointed', { at: data.doomed, tag: DOOMED });
        data.doomed = undefined;
      }
      data.ticks = (data.ticks ?? 0) + 1;
      if (data.ticks % POINT_TICKS !== 0) return;
      for (const e of game.entities)
        if (e.type === 'orb') game.emit('pointed', { at: e.id, tag: e.state.tag }, { reliable: false });
      if (zone.zone === 1) data.doomed = game.spawn('orb', { x: 90, y: 5, tag: DOOMED }).id;
      for (const player of game.players)
        if (player.entity !== null) game.emit('mine', { me: player.entity.id }, { to: player });
    },
  });
}
