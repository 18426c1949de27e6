export { DELTA_BITS, DELTA_LOW, measureDelta, readDelta, writeDelta } from './entity-delta.js';
export type { LaneState } from './lane-state.js';
export { compileLayout, EntityLayout } from './layout.js';
export { type BlobLane, DELTA_MIN_BITS, MAX_BLOB_LANES, MAX_SCALAR_LANES, type ScalarLane } from './plan.js';
