/**
 * The replicated world `npm start` plays, server side: an arena of wandering orbs and one avatar
 * per bot. Avatars move only by their bot's inputs (an InputReceiver, one input consumed per
 * avatar per server tick, through the same `walk` the bots predict with); the server steps on a
 * fixed 60 Hz TickClock. Bots "zap" the orb they see nearest now and then; the server rewinds the
 * orbs to what that bot showed (LagCompensation) and measures how far the aim was from it. The
 * server's world is the only truth; each bot's ClientMirror is checked against it at the end.
 */

import { t } from '../src/index.js';
import { compileInterpolator, InputReceiver, LagCompensation, TickClock } from '../src/latency/index.js';
import { prng } from '../src/random/prng.js';
import {
  type ClientMirror,
  defineEntity,
  type Entity,
  ReplicationServer,
  type ReplicationServerOptions,
  ServerWorld,
} from '../src/replication/index.js';
import { PointCells } from './point-cells.js';

export const ARENA = 200; // metres, square
export const TICK_RATE = 60;
const ORBS = 400;
const RADIUS = 40;
export const CAPACITY = 512;
const coordinate = t.float(0, ARENA, 1 / 64);
/** Positions and aims are quantized to this (metres): a zap within it of the rewound orb is exact. */
export const STEP = 1 / 64;

/** An orb's hit radius (metres). */
export const HIT_RADIUS = 0.5;

export type Place = { x: number; y: number };
export type OrbValue = { x: number; y: number; glow: number };
export type AvatarValue = { x: number; y: number; bot: number; score: number };

export const Orb = defineEntity('orb', t.object({ x: coordinate, y: coordinate, glow: t.int(0, 15) }), {
  position: (v) => [v.x, v.y],
});
export const Avatar = defineEntity(
  'avatar',
  t.object({ x: coordinate, y: coordinate, bot: t.int(0, 63), score: t.uint16() }),
  { position: (v) => [v.x, v.y], priority: 4 },
);
export const types = [Orb, Avatar];
/**
 * The predicted part of an avatar: its place (the first fields of Avatar, encoded alike). Its
 * score is the server's alone (orbs it touches), shown from the mirror, never predicted.
 */
export const AvatarPlace = t.object({ x: coordinate, y: coordinate });
export const orbLerp = compileInterpolator(Orb.schema);
/** Other players' avatars are shown interpolated too (the demo page); bot and score step. */
export const avatarLerp = compileInterpolator(Avatar.schema);

/** A bot's input each tick: a step of at most 0.5 m each way, and now and then a zap at an orb. */
export const Walk = t.object({
  dx: t.float(-0.5, 0.5, 1 / 64),
  dy: t.float(-0.5, 0.5, 1 / 64),
  zap: t.bool(),
  target: t.int(0, CAPACITY - 1),
  aimX: coordinate,
  aimY: coordinate,
});
export type WalkValue = { dx: number; dy: number; zap: boolean; target: number; aimX: number; aimY: number };

const clamp = (v: number) => Math.min(ARENA, Math.max(0, v));

/**
 * The game's deterministic step, run by the server on each consumed input and replayed by the
 * bots' predictors. Inputs and places are on the 1/64 m grid, so the sums are exact and both ends
 * quantize to the same state.
 */
export function walk(state: Place, input: WalkValue): Place {
  return { x: clamp(state.x + input.dx), y: clamp(state.y + input.dy) };
}

/** One bot's zaps as the server judged them. */
export interface ZapTally {
  zaps: number;
  /** Within STEP of the orb rewound to what the bot showed. */
  exact: number;
  /** Within the orb's hit radius. */
  hits: number;
  errorSum: number;
  worst: number;
  /** Within the hit radius of the target's present place: what a server without rewinds would count. */
  presentHits: number;
  /** Zaps whose input carried no render tick (none shown yet). */
  blind: number;
}

/** Where an Arena runs: alone (`npm start`, the defaults) or as a room's simulation (demo/arena-room.ts). */
export interface ArenaOptions {
  /** Server ticks per second (default TICK_RATE, 60). */
  tickRate?: number;
  /** Client indices are in [0, maxClients) (default 64). */
  maxClients?: number;
  /** Makes the replication of the arena's world (default a ReplicationServer of its own; a room passes `Room.replicate`). */
  replicate?: (options: Omit<ReplicationServerOptions, 'maxClients'>) => ReplicationServer;
}

/** The server's side: the world, its replication and input channels, the orbs' motion, the zaps. */
export class Arena {
  readonly world = new ServerWorld({ types, capacity: CAPACITY });
  readonly replication: ReplicationServer;
  readonly inputs: InputReceiver<WalkValue>;
  /** Fixed rate with bounded catch-up: ticks keep time whatever the event loop's timer does. */
  readonly clock: TickClock;
  readonly lag: LagCompensation<OrbValue>;
  readonly zaps: ZapTally[] = [];
  /** Inputs the avatars took (one per avatar per tick once its client's inputs flow). */
  inputsTaken = 0;
  /** While frozen (the session draining), orbs rest and avatars only walk: mirrors can catch up. */
  frozen = false;
  private readonly orbs: Entity<OrbValue>[] = [];
  private readonly heading: number[] = [];
  /** Each orb's place as the world holds it (quantized), kept at every set: the touch test reads these, not the world. */
  private readonly orbX = new Float64Array(ORBS);
  private readonly orbY = new Float64Array(ORBS);
  /** Each orb's value as the world holds it (quantized), read back once per change: what is recorded for rewinds. */
  private readonly orbValues: OrbValue[] = [];
  /** The orbs by place, for the touch test: a few cells per avatar, not every orb. */
  private readonly orbCells = new PointCells(ORBS, ARENA, 4);
  /** 1 for an orb set since it was last recorded for rewinds (all at first). */
  private readonly orbMoved = new Uint8Array(ORBS).fill(1);
  private readonly avatars = new Map<number, Entity<AvatarValue>>();
  private readonly random: () => number;
  private readonly volume = new Float64Array(6);
  private afterTick: () => void = () => {};
  private readonly onTick = (tick: number): void => {
    this.step(tick);
    this.afterTick();
  };

  constructor(seed: number, options: ArenaOptions = {}) {
    const tickRate = options.tickRate ?? TICK_RATE;
    const maxClients = options.maxClients ?? 64;
    const replication: Omit<ReplicationServerOptions, 'maxClients'> = {
      world: this.world,
      interest: { grid: { min: [0, 0], max: [ARENA, ARENA], cellSize: RADIUS / 2 }, radius: RADIUS },
      // Each bot's ghost section gets 96 kbit/s while its link is good, 24 while RTT > 250 ms or loss > 10%.
      bandwidth: { kbps: 96 },
      flow: { badKbps: 24 },
    };
    this.replication =
      options.replicate?.(replication) ?? new ReplicationServer({ ...replication, maxClients });
    this.inputs = new InputReceiver({ schema: Walk, tickRate, maxClients });
    this.clock = new TickClock({ tickRate, startTick: this.world.serverTick });
    this.lag = new LagCompensation<OrbValue>({
      interpolator: orbLerp,
      tickRate,
      capacity: CAPACITY,
      maxClients,
      // No layout: the values recorded are the world's own (quantized), read back once per change.
      bounds: (s, out) => {
        out[0] = s.x - 0.5;
        out[1] = s.y - 0.5;
        out[3] = s.x + 0.5;
        out[4] = s.y + 0.5;
        out[2] = out[5] = 0;
      },
    });
    this.random = prng(seed);
    for (let i = 0; i < ORBS; i++) {
      this.orbs.push(
        this.world.create(Orb, { x: this.random() * ARENA, y: this.random() * ARENA, glow: i & 15 }),
      );
      this.heading.push(this.random() * 2 * Math.PI);
      this.keepPlace(i);
    }
  }

  /** Runs the server ticks due at `now` (seconds), `afterTick` after each; returns how many. */
  advance(now: number, afterTick: () => void): number {
    this.afterTick = afterTick;
    return this.clock.advance(now, this.onTick);
  }

  /** A connected bot's avatar: created on its first call, owned by it, followed by its view. */
  avatarOf(clientIndex: number, bot: number): Entity<AvatarValue> {
    let avatar = this.avatars.get(clientIndex);
    if (avatar === undefined || !this.world.isAlive(avatar)) {
      avatar = this.world.create(Avatar, { x: ARENA / 2, y: ARENA / 2, bot, score: 0 });
      this.world.setOwner(avatar, clientIndex);
      this.avatars.set(clientIndex, avatar);
      this.lag.resetStats(clientIndex);
    }
    const view = this.replication.view(clientIndex);
    if (view !== null && view.follow !== avatar.id) view.follow = avatar.id;
    return avatar;
  }

  /** One server tick (simulate), then the world stamped `tick`. */
  private step(tick: number): void {
    this.simulate(tick);
    if (this.world.tick() !== tick) throw new Error(`arena: the world's tick is not the clock's (${tick})`);
  }

  /**
   * The simulation of server tick `tick`, the world not yet stamped (a room's host stamps it): each
   * avatar takes its bot's input for this tick and walks (zapping if asked), a third of the orbs
   * wander, an orb an avatar touches scores, and the orbs are recorded for rewinds.
   */
  simulate(tick: number): void {
    const world = this.world;
    for (const [client, avatar] of this.avatars) {
      if (!world.isAlive(avatar)) continue;
      const input = this.inputs.take(client, tick);
      if (input === null) continue;
      this.inputsTaken++;
      const a = world.get(avatar);
      const to = walk(a, input);
      if (to.x !== a.x || to.y !== a.y) world.set(avatar, { ...a, x: to.x, y: to.y });
      if (input.zap) this.zap(client, input);
    }
    if (!this.frozen) this.wander();
    // The orbs that moved, as changes: a resting orb holds its place each tick, rewound exactly as
    // if recorded every tick (a third of them move each tick: a third of the recording).
    const orbs = this.orbs;
    const values = this.orbValues;
    const moved = this.orbMoved;
    for (let i = 0; i < orbs.length; i++) {
      if (moved[i] === 0) continue;
      moved[i] = 0;
      this.lag.recordChange(tick, orbs[i].id, values[i]);
    }
    this.lag.advance(tick);
  }

  /** Rewinds the orbs to what the bot showed with this input and measures its aim at the target. */
  private zap(client: number, input: WalkValue): void {
    let tally = this.zaps[client];
    if (tally === undefined) {
      tally = { zaps: 0, exact: 0, hits: 0, errorSum: 0, worst: 0, presentHits: 0, blind: 0 };
      this.zaps[client] = tally;
    }
    const view = this.inputs.viewTick(client);
    if (!Number.isFinite(view)) {
      tally.blind++;
      return;
    }
    const base = Math.floor(view);
    const v = this.volume;
    v[0] = input.aimX - 1;
    v[1] = input.aimY - 1;
    v[3] = input.aimX + 1;
    v[4] = input.aimY + 1;
    let error = Number.POSITIVE_INFINITY;
    this.lag.rewind(client, base, view - base, v, (id, orb) => {
      if (id === input.target) error = Math.hypot(orb.x - input.aimX, orb.y - input.aimY);
    });
    tally.zaps++;
    if (error <= STEP) tally.exact++;
    if (error <= HIT_RADIUS) tally.hits++;
    if (Number.isFinite(error)) tally.errorSum += error;
    tally.worst = Math.max(tally.worst, error);
    const present = this.world.entity(input.target);
    if (present !== null && present.type === Orb) {
      const o = this.world.get(present) as OrbValue;
      if (Math.hypot(o.x - input.aimX, o.y - input.aimY) <= HIT_RADIUS) tally.presentHits++;
    }
  }

  private wander(): void {
    const world = this.world;
    for (let i = 0; i < this.orbs.length; i++) {
      if (this.random() > 0.33) continue;
      const orb = this.orbs[i];
      const v = this.orbValues[i];
      this.heading[i] += (this.random() - 0.5) * 0.4;
      const x = v.x + Math.cos(this.heading[i]) * 0.2;
      const y = v.y + Math.sin(this.heading[i]) * 0.2;
      if (x < 0 || x > ARENA || y < 0 || y > ARENA) this.heading[i] += Math.PI;
      world.set(orb, { x: clamp(x), y: clamp(y), glow: v.glow });
      this.keepPlace(i);
    }
    // The first orb within a metre each way of each avatar (an orb an earlier avatar touched has moved).
    const orbX = this.orbX;
    const orbY = this.orbY;
    for (const avatar of this.avatars.values()) {
      if (!world.isAlive(avatar)) continue;
      const a = world.get(avatar);
      const hit = this.orbCells.firstWithin(a.x, a.y, 1, orbX, orbY);
      if (hit < 0) continue;
      const o = this.orbValues[hit];
      world.set(this.orbs[hit], {
        ...o,
        x: this.random() * ARENA,
        y: this.random() * ARENA,
        glow: (o.glow + 1) & 15,
      });
      this.keepPlace(hit);
      world.set(avatar, { ...a, score: (a.score + 1) & 0xffff });
    }
  }

  /** Reads orb `i`'s value back from the world (quantized as every reader sees it). */
  private keepPlace(i: number): void {
    const v = this.world.get(this.orbs[i]) as OrbValue;
    this.orbValues[i] = v;
    this.orbX[i] = v.x;
    this.orbY[i] = v.y;
    this.orbMoved[i] = 1;
    this.orbCells.place(i, v.x, v.y);
  }

  /** A client left: its avatar goes, so the next client in its slot starts with one of its own. */
  leave(clientIndex: number): void {
    const avatar = this.avatars.get(clientIndex);
    this.avatars.delete(clientIndex);
    if (avatar !== undefined && this.world.isAlive(avatar)) this.world.destroy(avatar);
  }

  /** The server's avatar of a client (null before it connected). */
  avatar(clientIndex: number): AvatarValue | null {
    const avatar = this.avatars.get(clientIndex);
    return avatar === undefined || !this.world.isAlive(avatar) ? null : this.world.get(avatar);
  }

  /**
   * Ghosts in `mirror` that differ from what the server holds for the client's relevant entities
   * (wrong type, generation or quantized value, missing, or left behind): 0 when in sync.
   */
  mismatches(clientIndex: number, mirror: ClientMirror): number {
    const view = this.replication.view(clientIndex);
    let wrong = 0;
    for (let id = 0; id < CAPACITY; id++) {
      const entity = this.world.entity(id);
      const ghost = mirror.ghost(id);
      const relevant = entity !== null && view?.has(id) === true;
      if (!relevant || entity === null) {
        if (ghost !== null) wrong++;
        continue;
      }
      if (ghost === null || ghost.type !== entity.type || ghost.generation !== entity.generation) wrong++;
      else if (JSON.stringify(ghost.value) !== JSON.stringify(this.world.get(entity))) wrong++;
    }
    return wrong;
  }
}
