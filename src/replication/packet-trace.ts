import type { FieldBits } from './field-bits.js';

/**
 * What the network inspector reports per packet of a watched client (ReplicationServer.inspect):
 * plain data, made only while a watcher is attached.
 */

/** What the sender did with a candidate (a member of the client's interest view) this packet. */
export type TraceVerdict = 'create' | 'delta' | 'absolute' | 'unchanged' | 'skipped' | 'waited';

/**
 * Why a candidate waited: `budget` (the client's bandwidth bucket was the tighter limit and its
 * bits did not fit what was left), `room` (the packet's room was the limit), `misses` (it would
 * have fit, but the selection closed after too many refused candidates before offering it).
 */
export type TraceWaitReason = 'budget' | 'room' | 'misses';

/** One candidate of a traced packet. */
export interface TracedEntity {
  readonly id: number;
  /** Its entity type's name. */
  readonly type: string;
  readonly verdict: TraceVerdict;
  /** Its accumulated priority when the packet was chosen (this tick's share included). */
  readonly priority: number;
  /** Its distance to the view's center (world units). */
  readonly distance: number;
  /** The bits it cost in the section (0 when not written; what it would cost when it waited). */
  readonly bits: number;
  /** Why it waited (verdict `waited` only), else null. */
  readonly waited: TraceWaitReason | null;
  /**
   * With `{ fields: true }` (ReplicationInspector.watch), for a written create or update: the bits
   * of each changed field (the rest of `bits` is the entity's id, baseline and flags).
   */
  readonly fields?: readonly FieldBits[];
}

/** The ghost section's bits by category; `total` is their sum. */
export interface TraceBits {
  /** The tick, configuration bit (and fingerprint), list terminators, update count, reference baseline. */
  readonly head: number;
  readonly destroys: number;
  readonly creates: number;
  readonly updates: number;
  /** The events written after the state. */
  readonly events: number;
  readonly total: number;
}

/** One traced packet of a watched client. */
export interface PacketTrace {
  readonly client: number;
  /** The server tick the section carries. */
  readonly tick: number;
  readonly bits: TraceBits;
  /** The section's room this packet (bits, after its head), from the packet and the bandwidth budget. */
  readonly roomBits: number;
  /** Whether the bandwidth budget, not the packet, set the room. */
  readonly budgetLimited: boolean;
  /** Entity ids with a destroy written. */
  readonly destroyed: readonly number[];
  /** The view's members, in the order the sender wrote or judged them (written first). */
  readonly entities: readonly TracedEntity[];
}
