/**
 * The demo's rules for its zoned arena (`npm start -- --zones 4`): each zone thread imports this
 * module. As demo/rules.ts, but what must follow an orb from zone to zone lives in the orb's
 * `data` (its heading), and zone 0 alone spawns the orbs (they then move to the zones they are
 * in). A zap hits the orbs of the zapper's own zone.
 */

import { prng } from '../src/random/prng.js';
import type { ZoneInfo } from '../src/zones/zone-rules-module.js';
import { ARENA, arena, ORB_RADIUS, ORBS } from './game.js';

const ZAP_TICKS = 10;

export default function zonedDemoRules(zone: ZoneInfo) {
  const random = prng((0x5eed + zone.zone * 7919) >>> 0);
  const somewhere = () => ({ x: random() * ARENA, y: random() * ARENA });
  return arena.rules({
    onJoin(_game, player) {
      player.spawn({ x: ARENA / 2, y: ARENA / 2, score: 0 });
    },
    onInput(game, player, input) {
      const me = player.state;
      if (!input.zap || me === null || game.tick < Number(player.data.nextZap ?? 0)) return;
      player.data.nextZap = game.tick + ZAP_TICKS;
      const shape = { type: 'circle', x: input.aimX, y: input.aimY, radius: ORB_RADIUS / 2 } as const;
      const [orb] = game.hitTest(player, shape);
      if (orb?.type !== 'orb') return;
      orb.state = { ...somewhere(), glow: (orb.state.glow + 1) & 15 };
      player.state = { ...me, score: (me.score + 1) & 0xffff };
      game.emit('zapped', { by: player.entity!.id, orb: orb.id }, { reliable: false });
    },
    onTick(game) {
      if (zone.zone === 0 && game.data.spawned !== true) {
        game.data.spawned = true;
        for (let i = 0; i < ORBS; i++) game.spawn('orb', { ...somewhere(), glow: i & 15 }).data.heading = 0;
      }
      for (const orb of game.entities) {
        if (orb.type !== 'orb' || random() > 0.33) continue;
        const turn = Number(orb.data.heading ?? 0) + (random() - 0.5) * 0.4;
        const x = orb.state.x + Math.cos(turn) * 0.2;
        const y = orb.state.y + Math.sin(turn) * 0.2;
        const out = x < 0 || x > ARENA || y < 0 || y > ARENA;
        orb.data.heading = out ? turn + Math.PI : turn;
        if (!out) orb.state = { ...orb.state, x, y };
      }
    },
  });
}
