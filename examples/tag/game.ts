// The tag game, declared once: the server (rules.ts) and every client (bots.ts, a page) import it.
import { defineGame, t } from 'ghostwire';

// #region rules
/** The field is 20 m square; an avatar walks 0.15 m a tick (4.5 m/s at the default 30 ticks a second). */
const SPEED = 0.15;
const clamp = (v: number) => Math.max(-10, Math.min(10, v));
// #endregion

const coord = t.float(-10, 10, 1 / 64);

export const tag = defineGame({
  name: 'tag',
  entities: {
    // Each player's own entity (the only type here): its client predicts it with `step`.
    avatar: {
      state: t.object({ x: coord, y: coord, it: t.bool(), score: t.uint16() }),
      hitbox: (a) => ({ type: 'circle', x: a.x, y: a.y, radius: 0.5 }),
    },
  },
  input: t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1) }),
  step: (a, input) => ({ ...a, x: clamp(a.x + input.dx * SPEED), y: clamp(a.y + input.dy * SPEED) }),
  events: { tagged: t.object({ tagger: t.uint16(), target: t.uint16() }) },
});
