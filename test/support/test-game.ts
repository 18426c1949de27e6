/**
 * A small game for the game API's tests: avatars that walk a quarter metre a tick (so every
 * received state is a multiple of 0.25 and an interpolated one is not), a target the server moves
 * every tick (for lag compensation), and an input that can fire at an aim. Its rules record what
 * happened for the tests to read; GameClient loops are pumped at 60 Hz.
 */
import { defineGame } from '../../src/game/define-game.js';
import type { GameClient } from '../../src/game/game-client.js';
import type { GameRules } from '../../src/game/game-rules.js';
import { t } from '../../src/schema/schema.js';
import { until } from './until.js';

const coord = t.float(-64, 64, 1 / 64);

export const arena = defineGame({
  name: 'test-arena',
  tickRate: 30,
  entities: {
    avatar: {
      state: t.object({ x: coord, y: coord, score: t.uint16() }),
      hitbox: (a) => ({ type: 'circle', x: a.x, y: a.y, radius: 0.5 }),
    },
    target: {
      state: t.object({ x: coord, y: coord }),
      hitbox: (s) => ({ type: 'circle', x: s.x, y: s.y, radius: 0.5 }),
    },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1), fire: t.bool(), aimX: coord, aimY: coord, mode: t.int(0, 1) }),
  step: (a, input) => ({ ...a, x: Math.max(-60, Math.min(60, a.x + input.dx * 0.25)) }),
  events: { fired: t.object({ by: t.uint16(), hit: t.bool() }) },
  messages: { chat: t.object({ text: t.string(64) }), ready: t.object({}) },
});

export type ArenaInput = { dx: number; fire: boolean; aimX: number; aimY: number; mode: number };
export const STILL: ArenaInput = { dx: 0, fire: false, aimX: 0, aimY: 0, mode: 0 };

/** What the rules saw: shots by mode (0: aimed where the client showed the target, 1: where it is now). */
export interface ArenaLog {
  joins: number;
  leaves: number;
  shots: [number, number];
  hits: [number, number];
  /** The avatar's largest |x| step in one tick (hostile inputs must not exceed the legal 0.25). */
  largestStep: number;
  /** Chat lines received, as "<player index>: <text>". */
  chat: string[];
  /** Each joining player's userId, in joining order. */
  userIds: (string | null)[];
}

/** The arena's rules: a target sweeping x at 0.25 m a tick on y = 10; shots judged with hitTest. */
export function arenaRules(log: ArenaLog, options: { moveTarget?: boolean } = {}): GameRules {
  const last = new Map<number, number>();
  return arena.rules({
    onJoin(game, player) {
      log.joins++;
      log.userIds.push(player.userId);
      player.spawn({ x: 0, y: player.index * 2, score: 0 });
      if (game.entities.every((e) => e.type !== 'target')) game.spawn('target', { x: -40, y: 10 });
    },
    onLeave() {
      log.leaves++;
    },
    onMessage(_game, player, message) {
      if (message.name === 'chat') log.chat.push(`${player.index}: ${message.value.text}`);
    },
    onInput(game, player, input) {
      const x = player.state?.x ?? 0;
      const before = last.get(player.index);
      if (before !== undefined) log.largestStep = Math.max(log.largestStep, Math.abs(x - before));
      last.set(player.index, x);
      if (!input.fire) return;
      const hit =
        game.hitTest(player, { type: 'circle', x: input.aimX, y: input.aimY, radius: 0.05 }).length > 0;
      log.shots[input.mode]++;
      if (hit) log.hits[input.mode]++;
      game.emit('fired', { by: player.entity?.id ?? 0, hit }, { to: player });
    },
    onTick(game) {
      if (options.moveTarget === false) return;
      for (const e of game.entities)
        if (e.type === 'target') e.state = { ...e.state, x: e.state.x >= 40 ? -40 : e.state.x + 0.25 };
    },
  });
}

export function emptyLog(): ArenaLog {
  return { joins: 0, leaves: 0, shots: [0, 0], hits: [0, 0], largestStep: 0, chat: [], userIds: [] };
}

/** Calls every client's update(input(client)) at 60 Hz until `check` holds (fails after `ms`). */
export async function play(
  clients: GameClient[],
  input: (client: GameClient) => ArenaInput,
  what: string,
  ms: number,
  check: () => boolean,
): Promise<void> {
  const timer = setInterval(() => {
    for (const client of clients) client.update(input(client));
  }, 1000 / 60);
  try {
    await until(what, ms, check);
  } finally {
    clearInterval(timer);
  }
}
