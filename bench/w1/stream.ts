import { compressedFloat } from '../../src/serialize/compressed-float.js';
import type { Stream } from '../../src/serialize/stream.js';
import { type Entity, emptyEntity, type GameState, W1_ENTITIES } from './data.js';

/** W1 written by hand as one unified serialize function: it writes, reads and measures. */
export const POSITION = compressedFloat(-512, 512, 0.01);
export const ORIENTATION = compressedFloat(-0.7072, 0.7072, 0.001);
export const VELOCITY = compressedFloat(-32, 32, 0.01);

export function serializeEntity(s: Stream, e: Entity): void {
  e.id = s.int(e.id, 0, 4095);
  const p = e.position;
  p[0] = s.compressedFloat(p[0], POSITION);
  p[1] = s.compressedFloat(p[1], POSITION);
  p[2] = s.compressedFloat(p[2], POSITION);
  e.orientationLargest = s.bits(e.orientationLargest, 2);
  const o = e.orientation;
  o[0] = s.compressedFloat(o[0], ORIENTATION);
  o[1] = s.compressedFloat(o[1], ORIENTATION);
  o[2] = s.compressedFloat(o[2], ORIENTATION);
  const v = e.velocity;
  v[0] = s.compressedFloat(v[0], VELOCITY);
  v[1] = s.compressedFloat(v[1], VELOCITY);
  v[2] = s.compressedFloat(v[2], VELOCITY);
  e.health = s.int(e.health, 0, 100);
  const f = e.flags;
  f[0] = s.bool(f[0]);
  f[1] = s.bool(f[1]);
  f[2] = s.bool(f[2]);
  f[3] = s.bool(f[3]);
}

/**
 * Reading fills `state` in place, resizing its entity list to the count read. The list grows one
 * entity at a time as entities are actually read, so a hostile count costs nothing once the
 * input runs out or fails a check.
 */
export function serializeGameState(s: Stream, state: GameState): void {
  const entities = state.entities;
  const count = s.int(entities.length, 0, W1_ENTITIES);
  for (let i = 0; i < count && s.ok; i++) {
    if (i === entities.length) entities.push(emptyEntity());
    serializeEntity(s, entities[i]);
  }
  if (s.isReading && s.ok) entities.length = count;
}
