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

type ArenaHooks = NonNullable<Parameters<typeof arena.rules>[0]>;
type OnInput = Parameters<NonNullable<ArenaHooks['onInput']>>;

/**
 * A player's zap at its aim, at most one every ZAP_TICKS: null when it did not zap, else whether
 * it hit an orb (which then goes to `elsewhere()`, one glow brighter, and scores).
 */
export function zap(
  game: OnInput[0],
  player: OnInput[1],
  input: OnInput[2],
  elsewhere: () => { x: number; y: number },
): boolean | null {
  const me = player.state;
  if (!input.zap || me === null || game.tick < Number(player.data.nextZap ?? 0)) return null;
  player.data.nextZap = game.tick + ZAP_TICKS;
  const shape = { type: 'circle', x: input.aimX, y: input.aimY, radius: ORB_RADIUS / 2 } as const;
  const [orb] = game.hitTest(player, shape);
  if (orb?.type !== 'orb') return false;
  orb.state = { ...elsewhere(), glow: (orb.state.glow + 1) & 15 };
  player.state = { ...me, score: (me.score + 1) & 0xffff };
  game.emit('zapped', { by: player.entity!.id, orb: orb.id }, { reliable: false });
  return true;
}

/**
 * A third of the orbs (picked by `random`) step along their heading, kept in the orb's data so it
 * moves with the orb from zone to zone; an orb turns back at a wall.
 */
export function wanderOrbs(game: OnInput[0], random: () => number): void {
  for (const orb of game.entities) {
    if (orb.type !== 'orb' || random() > 0.33) continue;
    const turn = Number(orb.data.heading ?? 0) + (random() - 0.5) * 0.4;
    const x = orb.state.x + Math.cos(turn) * 0.2;
    const y = orb.state.y + Math.sin(turn) * 0.2;
    const out = x < 0 || x > ARENA || y < 0 || y > ARENA;
    orb.data.heading = out ? turn + Math.PI : turn;
    if (!out) orb.state = { ...orb.state, x, y };
  }
}

/** What the rules tell the demo's gamer services of each signed-in player (demo/gamer.ts). */
export interface DemoAccountHooks {
  joined(userId: string): void;
  left(userId: string): void;
  /** Its zap hit an orb: one more on the zaps leaderboard. */
  hit(userId: string): void;
}

/**
 * The rules, with a seed for the orbs, the zaps counted into `zaps`, each onTick's milliseconds to
 * `timed`, and signed-in players' joins, leaves and hits to `accounts`.
 */
export function demoRules(
  seed: number,
  zaps: ZapCount,
  timed: (ms: number) => void,
  accounts: DemoAccountHooks | null = null,
) {
  const random = prng(seed);
  const somewhere = () => ({ x: random() * ARENA, y: random() * ARENA });
  return arena.rules({
    onJoin(_game, player) {
      player.spawn({ x: ARENA / 2, y: ARENA / 2, score: 0, cooldown: 0 });
      if (player.userId !== null) accounts?.joined(player.userId);
    },
    onLeave(_game, player) {
      if (player.userId !== null) accounts?.left(player.userId);
    },
    onInput(game, player, input) {
      const hit = zap(game, player, input, somewhere);
      if (hit === null) return;
      zaps.zaps++;
      if (hit) zaps.hits++;
      if (hit && player.userId !== null) accounts?.hit(player.userId);
    },
    onTick(game) {
      const started = performance.now();
      if (game.data.spawned !== true) {
        game.data.spawned = true;
        for (let i = 0; i < ORBS; i++) game.spawn('orb', { ...somewhere(), glow: i & 15 });
      }
      wanderOrbs(game, random);
      timed(performance.now() - started);
    },
  });
}
