/**
 * A predicted player for the prediction bench and tests: its schemas, a deterministic step, and a
 * server that runs the same step on the inputs it received (quantizing after each step, as the
 * predictor does), with a feedback path of seeded delay and loss back to a Predictor.
 */

import { type Infer, t } from '../../src/index.js';
import { compileQuantizer, Predictor, type PredictorOptions } from '../../src/latency/index.js';

export const TICK_RATE = 60;

export const Player = t.object({
  position: t.vector3(t.float(-512, 512, 0.01)),
  velocity: t.vector3(t.float(-64, 64, 0.01)),
  facing: t.quaternion(),
  hp: t.int(0, 100),
  grounded: t.bool(),
});
export type Player = Infer<typeof Player>;

export const Move = t.object({
  x: t.int(-1, 1),
  z: t.int(-1, 1),
  jump: t.bool(),
  yaw: t.float(-Math.PI, Math.PI, 0.001),
});
export type Move = Infer<typeof Move>;

const SPEED = 5.3;
const GRAVITY = 9.81;
const DT = 1 / TICK_RATE;

/** The game's step: deterministic, allocating a new state, never touching its argument. */
export function simulate(s: Player, input: Move, _tick: number): Player {
  let vy = s.velocity[1];
  let y = s.position[1];
  let grounded = s.grounded;
  if (grounded && input.jump) {
    vy = 4.2;
    grounded = false;
  }
  if (!grounded) {
    vy -= GRAVITY * DT;
    y += vy * DT;
    if (y <= 0) {
      y = 0;
      vy = 0;
      grounded = true;
    }
  }
  const vx = input.x * SPEED;
  const vz = input.z * SPEED;
  const half = input.yaw / 2;
  return {
    position: [s.position[0] + vx * DT, y, s.position[2] + vz * DT],
    velocity: [vx, vy, vz],
    facing: [0, Math.sin(half), 0, Math.cos(half)],
    hp: s.hp,
    grounded,
  };
}

export function spawn(): Player {
  return { position: [0, 0, 0], velocity: [0, 0, 0], facing: [0, 0, 0, 1], hp: 100, grounded: true };
}

/** Inputs that hold a direction for a while, jump now and then, turn slowly. */
export function inputs(random: () => number, count: number): Move[] {
  const list: Move[] = [];
  let x = 1;
  let z = 0;
  let yaw = 0;
  for (let i = 0; i < count; i++) {
    if (random() < 0.05) x = Math.floor(random() * 3) - 1;
    if (random() < 0.05) z = Math.floor(random() * 3) - 1;
    yaw = Math.max(-3, Math.min(3, yaw + (random() - 0.5) * 0.1));
    list.push({ x, z, jump: random() < 0.02, yaw });
  }
  return list;
}

export const quantizePlayer = compileQuantizer(Player);

/**
 * The authoritative trajectory: state[k] after input k, quantized each step like the predictor's,
 * `push(tick, state)` letting the server move the entity on its own (a correction to inject).
 */
export function serverStates(
  moves: readonly Move[],
  push?: (tick: number, state: Player) => Player,
): Player[] {
  const quantizeMove = compileQuantizer(Move);
  const states = [quantizePlayer(spawn())];
  for (let k = 1; k < moves.length; k++) {
    let next = simulate(states[k - 1], quantizeMove(moves[k]), k);
    if (push !== undefined) next = push(k, next);
    states.push(quantizePlayer(next));
  }
  return states;
}

export function predictor(options: Partial<PredictorOptions<Player, Move>> = {}): Predictor<Player, Move> {
  const p = new Predictor<Player, Move>({
    schema: Player,
    inputSchema: Move,
    simulate,
    tickRate: TICK_RATE,
    ...options,
  });
  p.reset(spawn(), 0);
  return p;
}

export interface FeedbackRun {
  /** Ticks to run; the server applied input k at its tick k. */
  ticks: number;
  /** Round trip in ticks from predicting tick k to receiving the server's state for k. */
  rttTicks: number;
  /** Extra delay, uniform in [0, jitterTicks] ticks (reorders states). */
  jitterTicks: number;
  /** Chance that a state message is lost. */
  loss: number;
  /** Render frames per tick: shown() at alphas 1/f, 2/f, …, 1. */
  framesPerTick: number;
  /** Called each client tick after the states due were reconciled and the frames shown. */
  onTick?: (tick: number, p: Predictor<Player, Move>, shownX: readonly number[]) => void;
}

/** Runs a client predicting `moves` against `truth` with the feedback path described. */
export function runFeedback(
  p: Predictor<Player, Move>,
  moves: readonly Move[],
  truth: readonly Player[],
  random: () => number,
  run: FeedbackRun,
): { corrections: number[] } {
  const due: { at: number; tick: number }[] = [];
  const corrections: number[] = [];
  for (let c = 1; c < run.ticks; c++) {
    p.predict(c, moves[c]);
    if (random() >= run.loss)
      due.push({ at: c + run.rttTicks + Math.floor(random() * (run.jitterTicks + 1)), tick: c });
    // States arriving by now, in arrival order (ties by send order).
    const arrived = due.filter((d) => d.at <= c).sort((a, b) => a.at - b.at);
    for (const d of arrived) {
      due.splice(due.indexOf(d), 1);
      if (p.reconcile(truth[d.tick], d.tick)) corrections.push(p.stats.lastCorrection);
    }
    const shownX: number[] = [];
    for (let f = 1; f <= run.framesPerTick; f++) shownX.push(p.shown(f / run.framesPerTick).position[0]);
    run.onTick?.(c, p, shownX);
  }
  return { corrections };
}
