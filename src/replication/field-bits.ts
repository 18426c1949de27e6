import { bitsRequired } from '../bits/bits-required.js';
import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';
import { valueBits } from './lane-value.js';
import { sameBytes } from './quantizer.js';

/** One field's share of an entity's delta (the inspector's per-field bits). */
export interface FieldBits {
  /** The field's path in the schema (`.position[0]`). */
  readonly path: string;
  readonly bits: number;
}

/**
 * The bits each changed field takes in `state`'s delta against `base` (the layout's zero state
 * for an absolute one): per scalar lane its value, per blob its length and bytes. What measureDelta
 * counts besides these (flags or list, the repeat prefix, a blob's changed bit) is the entity's
 * overhead. Run only for traced packets: it allocates.
 */
export function fieldBits(layout: EntityLayout<unknown>, state: LaneState, base: LaneState): FieldBits[] {
  const fields: FieldBits[] = [];
  const lanes = layout.lanes;
  for (let i = 0; i < lanes.length; i++) {
    const v = state.lanes[i];
    const b = base.lanes[i];
    if (v !== b) fields.push({ path: lanes[i].path, bits: valueBits(lanes[i], v, b) });
  }
  for (let i = 0; i < layout.blobs.length; i++) {
    const blob = state.blobs[i];
    if (!sameBytes(blob, base.blobs[i]))
      fields.push({
        path: layout.blobs[i].path,
        bits: bitsRequired(0, layout.blobs[i].maxBytes) + blob.length * 8,
      });
  }
  return fields;
}
