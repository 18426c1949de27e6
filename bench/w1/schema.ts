import { compile } from '../../src/schema/codec.js';
import { type Infer, t } from '../../src/schema/schema.js';
import type { Entity, GameState } from './data.js';

/** W1 declared as a schema: compiled, it must write the same bits as the hand-written version. */
export const EntitySchema = t.object({
  id: t.int(0, 4095),
  position: t.vector3(t.float(-512, 512, 0.01)),
  orientationLargest: t.bits(2),
  orientation: t.vector3(t.float(-0.7072, 0.7072, 0.001)),
  velocity: t.vector3(t.float(-32, 32, 0.01)),
  health: t.int(0, 100),
  flags: t.tuple(t.bool(), 4),
});

export const GameStateSchema = t.object({ entities: t.array(EntitySchema, 1000) });

/** The schema's inferred types are exactly the workload's hand-written ones (checked at compile time). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameEntity: Same<Infer<typeof EntitySchema>, Entity> = true;
const sameState: Same<Infer<typeof GameStateSchema>, GameState> = true;
void sameEntity;
void sameState;

export const gameStateCodec = compile(GameStateSchema);
export const gameStateInterpreted = compile(GameStateSchema, { codegen: false });
