/**
 * The W4 arena scene (issue 10, benchmark 2), shared by every W4 contestant so they replicate the
 * same world: `entities` entities random-walking at 5 m/s on a 2 km × 2 km map, 20 Hz. Each tick
 * an entity turns by a uniform random angle in [-0.25, +0.25) rad, steps 0.25 m along its
 * heading, and where the step would leave the map it stays put and its heading is mirrored
 * (x wall: π − h, y wall: −h). Headings are kept in [0, 2π). Start positions and headings are
 * uniform; kind is uniform in 0..3 and never changes. Every number comes from one mulberry32
 * stream (src/random/prng.ts) seeded by `seed`, drawn in a fixed order, so a seed replays the
 * scene exactly. Client c follows entity (c × 10) mod entities and sees what lies within 150 m
 * (leaving beyond 150 × 1.15 m, the replication layer's default hysteresis).
 *
 * What is sent per entity, at the quantization {@link W4_ENTITY} declares: x and y at 1/64 m
 * (17 bits each), heading at 0.01 rad (10 bits), kind in 0..3 (2 bits). {@link quantizeEntity}
 * gives the integers a ghostwire codec of that schema writes, so other libraries can be fed the
 * very same values.
 */
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { compressedFloat, quantize } from '../../src/serialize/compressed-float.js';

export const W4_MAP = 2000;
export const W4_SPEED = 5;
export const W4_HZ = 20;
export const W4_RADIUS = 150;
export const W4_LEAVE_FACTOR = 1.15;
export const W4_ENTITIES = 10_000;
export const W4_KINDS = 4;
/** Client c follows entity (c × W4_FOLLOW_STRIDE) mod entities. */
export const W4_FOLLOW_STRIDE = 10;
/** The largest heading change per tick, either way (radians). */
export const W4_TURN = 0.25;
const TWO_PI = 2 * Math.PI;

/** One W4 entity on the wire. */
export const W4_ENTITY = t.object({
  x: t.float(0, W4_MAP, 1 / 64),
  y: t.float(0, W4_MAP, 1 / 64),
  heading: t.float(0, TWO_PI, 0.01),
  kind: t.int(0, W4_KINDS - 1),
});

/** The same ranges as {@link W4_ENTITY}'s float fields. */
export const W4_POSITION_SPEC = compressedFloat(0, W4_MAP, 1 / 64);
export const W4_HEADING_SPEC = compressedFloat(0, TWO_PI, 0.01);

/** The entity client `client` follows. */
export function followedEntity(client: number, entities: number): number {
  return (client * W4_FOLLOW_STRIDE) % entities;
}

export class W4Scene {
  readonly count: number;
  readonly x: Float64Array;
  readonly y: Float64Array;
  /** Radians in [0, 2π). */
  readonly heading: Float64Array;
  readonly kind: Uint8Array;
  /** Ticks stepped so far. */
  tick = 0;
  private readonly next: () => number;

  constructor(entities: number, seed: number) {
    if (!Number.isInteger(entities) || entities < 1)
      throw new RangeError(`W4Scene: entities must be a positive integer, got ${entities}`);
    this.count = entities;
    this.x = new Float64Array(entities);
    this.y = new Float64Array(entities);
    this.heading = new Float64Array(entities);
    this.kind = new Uint8Array(entities);
    this.next = prng(seed);
    for (let id = 0; id < entities; id++) {
      this.x[id] = this.next() * W4_MAP;
      this.y[id] = this.next() * W4_MAP;
      this.heading[id] = this.next() * TWO_PI;
      this.kind[id] = Math.floor(this.next() * W4_KINDS);
    }
  }

  /** One tick of motion for every entity. */
  step(): void {
    const { x, y, heading, next } = this;
    const step = W4_SPEED / W4_HZ;
    for (let id = 0; id < this.count; id++) {
      let h = heading[id] + (next() - 0.5) * 2 * W4_TURN;
      let nx = x[id] + Math.cos(h) * step;
      let ny = y[id] + Math.sin(h) * step;
      if (nx < 0 || nx > W4_MAP) {
        nx = x[id];
        h = Math.PI - h;
      }
      if (ny < 0 || ny > W4_MAP) {
        ny = y[id];
        h = -h;
      }
      h %= TWO_PI;
      if (h < 0) h += TWO_PI;
      // -0 % 2π and a value a hair below 0 plus 2π can both round to 2π itself.
      heading[id] = h < TWO_PI ? h : 0;
      x[id] = nx;
      y[id] = ny;
    }
    this.tick++;
  }
}

/** Integers of one entity as {@link W4_ENTITY}'s codec sends them. */
export interface QuantizedEntity {
  x: number;
  y: number;
  heading: number;
  kind: number;
}

/** Fills `out` with entity `id`'s quantized fields; returns it. */
export function quantizeEntity(scene: W4Scene, id: number, out: QuantizedEntity): QuantizedEntity {
  out.x = quantize(scene.x[id], W4_POSITION_SPEC);
  out.y = quantize(scene.y[id], W4_POSITION_SPEC);
  out.heading = quantize(scene.heading[id], W4_HEADING_SPEC);
  out.kind = scene.kind[id];
  return out;
}
