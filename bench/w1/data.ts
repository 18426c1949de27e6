/**
 * The W1 game-state workload (../shared/workloads/W1.md): 1000 entities drawn from xorshift32
 * seeded 0x12345678, in the fixed order the reference generator draws them.
 */
import { xorshift32 } from '../support/xorshift.js';
export interface Entity {
  id: number;
  position: [number, number, number];
  orientationLargest: number;
  orientation: [number, number, number];
  velocity: [number, number, number];
  health: number;
  flags: [boolean, boolean, boolean, boolean];
}

export interface GameState {
  entities: Entity[];
}

export const W1_ENTITIES = 1000;
export const W1_SEED = 0x12345678;

export function generateW1(count = W1_ENTITIES, seed = W1_SEED): GameState {
  const { next, float } = xorshift32(seed);
  const entities: Entity[] = [];
  for (let i = 0; i < count; i++) {
    const id = next() % 4096;
    const position: Entity['position'] = [float(-512, 512), float(-512, 512), float(-512, 512)];
    const orientationLargest = next() % 4;
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: W1.md specifies 0.7071 exactly, not Math.SQRT1_2
    const q = 0.7071;
    const orientation: Entity['orientation'] = [float(-q, q), float(-q, q), float(-q, q)];
    const velocity: Entity['velocity'] = [float(-32, 32), float(-32, 32), float(-32, 32)];
    const health = next() % 101;
    const bits = next();
    const flags: Entity['flags'] = [(bits & 1) !== 0, (bits & 2) !== 0, (bits & 4) !== 0, (bits & 8) !== 0];
    entities.push({ id, position, orientationLargest, orientation, velocity, health, flags });
  }
  return { entities };
}

/** An entity with every field present, for decoding into. */
export function emptyEntity(): Entity {
  return {
    id: 0,
    position: [0, 0, 0],
    orientationLargest: 0,
    orientation: [0, 0, 0],
    velocity: [0, 0, 0],
    health: 0,
    flags: [false, false, false, false],
  };
}
