/**
 * The demo's server rules: orbs wander (a third of them each tick); a zap is judged against the
 * orbs as the zapping player saw them (`game.hitTest`, lag compensation), at most one every
 * ZAP_TICKS per player; a hit scores and sends the orb elsewhere. Seeded: the same seed, the same
 * orbs.
 */
import { prng } from '../src/random/prng.js';
import { ARENA, arena, ORB_RADIUS, ORBS } from './game.js';

/** Ticks between two zaps of one player (a third of a second). */
const ZAP_TICKS = 10;

export interface ZapCount {
  zaps: number;
  hits: number;
}

/** The rules, with a seed for the orbs, the zaps counted into `zaps` and each onTick's milliseconds to `timed`. */
export function demoRules(seed: number, zaps: ZapCount, timed: (ms: number) => void) {
  const random = prng(seed);
  const heading = new Map<number, number>();
  const somewhere = () => ({ x: random() * ARENA, y: random() * ARENA });
  return arena.rules({
    onJoin(_game, player) {
      player.spawn({ x: ARENA / 2, y: ARENA / 2, score: 0 });
    },
    onInput(game, player, input) {
      const me = player.state;
      if (!input.zap || me === null || game.tick < Number(player.data.nextZap ?? 0)) return;
      player.data.nextZap = game.tick + ZAP_TICKS;
      zaps.zaps++;
      const shape = { type: 'circle', x: input.aimX, y: input.aimY, radius: ORB_RADIUS / 2 } as const;
      const [orb] = game.hitTest(player, shape);
      if (orb?.type !== 'orb') return;
      zaps.hits++;
      orb.state = { ...somewhere(), glow: (orb.state.glow + 1) & 15 };
      player.state = { ...me, score: (me.score + 1) & 0xffff };
      game.emit('zapped', { by: player.entity!.id, orb: orb.id }, { reliable: false });
    },
    onTick(game) {
      const started = performance.now();
      if (heading.size === 0)
        for (let i = 0; i < ORBS; i++) heading.set(game.spawn('orb', { ...somewhere(), glow: i & 15 }).id, 0);
      for (const orb of game.entities) {
        if (orb.type !== 'orb' || random() > 0.33) continue;
        const turn = heading.get(orb.id)! + (random() - 0.5) * 0.4;
        const x = orb.state.x + Math.cos(turn) * 0.2;
        const y = orb.state.y + Math.sin(turn) * 0.2;
        const out = x < 0 || x > ARENA || y < 0 || y > ARENA;
        heading.set(orb.id, out ? turn + Math.PI : turn);
        if (!out) orb.state = { ...orb.state, x, y };
      }
      timed(performance.now() - started);
    },
  });
}
