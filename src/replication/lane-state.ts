import { sameBytes } from './quantizer.js';

/**
 * An entity's state as lanes: one unsigned integer per scalar lane and one immutable byte array
 * per blob lane. "Changed" is an integer compare per lane (a reference or byte compare per blob),
 * and saving a state for a baseline is a copy of `lanes` plus the blob references.
 */
export interface LaneState {
  readonly lanes: Uint32Array;
  /** Encoded variable-size fields. Never mutated: a change replaces the array. */
  readonly blobs: Uint8Array[];
}

const EMPTY = new Uint8Array(0);

/** A state of all-zero lanes and empty blobs: what a delta "against nothing" is taken against. */
export function zeroState(laneCount: number, blobCount: number): LaneState {
  return { lanes: new Uint32Array(laneCount), blobs: new Array<Uint8Array>(blobCount).fill(EMPTY) };
}

/** Copies `from` into `to` (same layout): lanes by value, blobs by reference. */
export function copyState(from: LaneState, to: LaneState): void {
  // By hand: TypedArray.prototype.set costs more than copying a few lanes (the world copies
  // every changed entity each tick).
  const source = from.lanes;
  const target = to.lanes;
  for (let i = 0; i < source.length; i++) target[i] = source[i];
  for (let i = 0; i < from.blobs.length; i++) to.blobs[i] = from.blobs[i];
}

/** Whether two states of one layout hold the same lanes and blob bytes. */
export function sameState(a: LaneState, b: LaneState): boolean {
  const x = a.lanes;
  const y = b.lanes;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  for (let i = 0; i < a.blobs.length; i++) if (!sameBytes(a.blobs[i], b.blobs[i])) return false;
  return true;
}
