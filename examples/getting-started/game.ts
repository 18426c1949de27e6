// The game, declared once in a module both ends import: its entities, the input, and the step
// that applies an input to a player's own entity.
import { defineGame, t } from 'ghostwire';

// A state must fit its schema: `clamp` stops a walker at the field's edge (±100 m) on both ends;
// without it, a step past the edge is an error.
const coord = t.float(-100, 100, 1 / 64, { clamp: true });

export const walkers = defineGame({
  name: 'walkers',
  tickRate: 30, // server ticks a second (the default)
  entities: {
    walker: { state: t.object({ x: coord, y: coord }) },
  },
  player: 'walker', // each player's own entity: its client predicts it, and shows the others interpolated
  input: t.object({ dx: t.int(-1, 1), dy: t.int(-1, 1) }),
  // Deterministic: the server runs it on each input, the client runs it ahead of the server.
  step: (w, input) => ({ x: w.x + input.dx / 8, y: w.y + input.dy / 8 }),
  events: { joined: t.object({ id: t.uint16() }) }, // server → clients, typed
});
