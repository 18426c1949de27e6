import type { DeterministicRandom } from '../../src/lockstep/math/deterministic-random.js';
import { t } from '../../src/schema/schema.js';

/** An RTS order: send units [first, first + count) towards (x, y). */
export const Order = t.object({
  first: t.uint16(),
  count: t.int(1, 64),
  x: t.int(0, 4095),
  y: t.int(0, 4095),
});
export type OrderValue = { first: number; count: number; x: number; y: number };

const SPEED = 8;

/**
 * A small deterministic RTS: units with integer positions and targets on a 4096 × 4096 map,
 * moved a few units a turn towards their targets, a few of them (drawn from the shared PRNG) sent
 * somewhere at random each turn. Integer math only, so every engine computes the same state; its
 * checksum is a multiplicative hash of every field and the PRNG's state, computed in the step.
 */
export class RtsSim {
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly tx: Int32Array;
  readonly ty: Int32Array;
  hash = 0;
  orders = 0;
  /** A turn at which this copy goes wrong on purpose (a non-determinism to find); -1: never. */
  glitchAt = -1;

  constructor(
    readonly units: number,
    seed: number,
  ) {
    this.x = new Int32Array(units);
    this.y = new Int32Array(units);
    this.tx = new Int32Array(units);
    this.ty = new Int32Array(units);
    let s = seed >>> 0 || 1;
    for (let i = 0; i < units; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      this.x[i] = this.tx[i] = s & 4095;
      this.y[i] = this.ty[i] = (s >>> 12) & 4095;
    }
  }

  order(o: OrderValue): void {
    const end = Math.min(this.units, o.first + o.count);
    for (let i = o.first; i < end; i++) {
      this.tx[i] = o.x;
      this.ty[i] = o.y;
    }
    this.orders++;
  }

  step(turn: number, random: DeterministicRandom): void {
    const { x, y, tx, ty } = this;
    const wanderers = 1 + random.nextInt(4);
    for (let k = 0; k < wanderers; k++) {
      const i = random.nextInt(this.units);
      tx[i] = random.nextInt(4096);
      ty[i] = random.nextInt(4096);
    }
    let h = random.state ^ turn;
    for (let i = 0; i < this.units; i++) {
      const dx = tx[i] - x[i];
      const dy = ty[i] - y[i];
      x[i] += Math.min(SPEED, Math.max(-SPEED, dx));
      y[i] += Math.min(SPEED, Math.max(-SPEED, dy));
      h = Math.imul(h ^ x[i], 0x01000193);
      h = Math.imul(h ^ (y[i] << 12) ^ tx[i], 0x01000193);
    }
    if (turn === this.glitchAt) {
      x[0] ^= 1;
      h ^= 1;
    }
    this.hash = h >>> 0;
  }

  /** The whole state as bytes (a late joiner's snapshot). */
  save(): Uint8Array {
    const out = new Int32Array(this.units * 4 + 1);
    out.set(this.x, 0);
    out.set(this.y, this.units);
    out.set(this.tx, 2 * this.units);
    out.set(this.ty, 3 * this.units);
    out[4 * this.units] = this.hash;
    return new Uint8Array(out.buffer);
  }

  load(bytes: Uint8Array): void {
    const a = new Int32Array(bytes.slice().buffer);
    this.x.set(a.subarray(0, this.units));
    this.y.set(a.subarray(this.units, 2 * this.units));
    this.tx.set(a.subarray(2 * this.units, 3 * this.units));
    this.ty.set(a.subarray(3 * this.units, 4 * this.units));
    this.hash = a[4 * this.units] >>> 0;
  }
}
