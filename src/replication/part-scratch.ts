/**
 * The values of an entity's private parts as the world keeps them (visibility.ts): each part's
 * companion carries its entity's id and generation beside the field, quantized with the part's
 * own layout. Split from ServerWorld: how a part value is made, checked, compared (PartScratch)
 * and read back.
 */
import type { EntityLayout } from './entity-layout.js';
import type { EntityPart } from './entity-type.js';
import { copyState, type LaneState, sameState } from './lane-state.js';
import { PART_GENERATION, PART_OF } from './visibility.js';

/** A part's value: the field of `value`, tagged with its entity's id and generation. */
export function partValue(
  part: EntityPart,
  id: number,
  generation: number,
  value: unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = { [PART_OF]: id, [PART_GENERATION]: generation };
  out[part.field] = (value as Record<string, unknown> | null | undefined)?.[part.field];
  return out;
}

/** Quantizes every part of `value` into a scratch state: throws naming a bad field before anything changes. */
export function checkParts(parts: readonly EntityPart[], value: unknown): void {
  for (const part of parts)
    part.type.layout.quantize(partValue(part, 0, 0, value), part.type.layout.createState());
}

/** Puts the parts' fields, dequantized from their companions' states, into an entity's value. */
export function readParts(value: unknown, parts: readonly EntityPart[], states: readonly LaneState[]): void {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i].type.layout.dequantize(states[i]) as Record<string, unknown>;
    (value as Record<string, unknown>)[parts[i].field] = part[parts[i].field];
  }
}

/**
 * Quantizes part values into a scratch state per layout before they replace the current one: a
 * part that did not change is not even marked (the usual case: most sets change public fields).
 */
export class PartScratch {
  private readonly states = new Map<EntityLayout<unknown>, LaneState>();

  /** Quantizes `value` with `layout` into `current` when it differs; whether it did. */
  update(layout: EntityLayout<unknown>, value: unknown, current: LaneState): boolean {
    let scratch = this.states.get(layout);
    if (scratch === undefined) {
      scratch = layout.createState();
      this.states.set(layout, scratch);
    }
    layout.quantize(value, scratch);
    if (sameState(scratch, current)) return false;
    copyState(scratch, current);
    return true;
  }
}
