/**
 * The demo's rules for its zoned arena (`npm start -- --zones 4`): each zone thread imports this
 * module. The zaps and the orbs' wandering are demo/rules.ts's (an orb's heading is in its `data`,
 * so it follows the orb from zone to zone); zone 0 alone spawns the orbs (they then move to the
 * zones they are in). A zap hits the orbs of the zapper's own zone.
 */

import { prng } from '../src/random/prng.js';
import type { ZoneInfo } from '../src/zones/zone-rules-module.js';
import { ARENA, arena, ORBS } from './game.js';
import { wanderOrbs, zap } from './rules.js';

export default function zonedDemoRules(zone: ZoneInfo) {
  const random = prng((0x5eed + zone.zone * 7919) >>> 0);
  const somewhere = () => ({ x: random() * ARENA, y: random() * ARENA });
  return arena.rules({
    onJoin(_game, player) {
      player.spawn({ x: ARENA / 2, y: ARENA / 2, score: 0, cooldown: 0 });
    },
    onInput(game, player, input) {
      zap(game, player, input, somewhere);
    },
    onTick(game) {
      if (zone.zone === 0 && game.data.spawned !== true) {
        game.data.spawned = true;
        for (let i = 0; i < ORBS; i++) game.spawn('orb', { ...somewhere(), glow: i & 15 });
      }
      wanderOrbs(game, random);
    },
  });
}
