import type { EntityLayout } from '../replication/entity-layout.js';
import type { Interpolator } from './interpolation.js';

/** LagCompensation's options, outcome and counters. */

/** What a rewind does with a claim outside [present − history, present]. */
export type BeyondClamp = 'present' | 'oldest' | 'refuse';

export interface LagCompensationOptions<S> {
  /** The interpolator the clients use for this entity type (same schema, same teleportField). */
  interpolator: Interpolator<S>;
  /**
   * Writes the axis-aligned box enclosing an entity's hit volume into `out` as [minX, minY, minZ,
   * maxX, maxY, maxZ] (a 2D game writes 0 for both z). It must enclose the volume in every pose a
   * blend of two recorded states can take: with rotations, use the bounding sphere's box.
   */
  bounds: (state: S, out: Float64Array) => void;
  /** The server's ticks per second. */
  tickRate: number;
  /** Entity ids are integers in [0, capacity) (the world's capacity). */
  capacity: number;
  /** How far back a rewind may reach, in seconds (default 1). */
  historySeconds?: number;
  /** Claims older than the history: test at the present, at the oldest tick held, or not at all (default 'present'). */
  beyondClamp?: BeyondClamp;
  /** Client indices are integers in [0, maxClients) (default 256). */
  maxClients?: number;
  /**
   * The entity type's layout (`type.layout`): when given, each recorded value is quantized and
   * dequantized through it, so the history holds exactly what clients decode.
   */
  layout?: EntityLayout<S>;
}

/**
 * How a claim was judged: 'ok' (inside the history), 'too-old' (before the clamp) or 'too-new'
 * (after the newest tick recorded). Both of the last are a remote client's misuse and are counted.
 */
export type RewindClaim = 'ok' | 'too-old' | 'too-new';

/** The result of one rewind; the object is reused: read it before the next rewind. */
export interface RewindOutcome {
  readonly claim: RewindClaim;
  /** Whether the test ran (false: refused by `beyondClamp`, or nothing recorded yet). */
  readonly tested: boolean;
  /** The (fractional) tick the entities were rewound to; NaN when not tested. */
  readonly tick: number;
  /** Entities passed to the test, and entities the broad phase skipped. */
  readonly entities: number;
  readonly skipped: number;
}

export interface LagCompensationStats {
  rewinds: number;
  /** Claims older than the clamp, and newer than the present. */
  tooOld: number;
  tooNew: number;
  /** Of those, rewinds not tested (beyondClamp 'refuse'). */
  refused: number;
  /** Entities passed to a test, and entities the broad phase skipped. */
  entitiesTested: number;
  entitiesSkipped: number;
}
