import type { Schema } from '../../schema/schema.js';
import type { PeerLinks } from '../links/peer-links.js';

/**
 * What a rollback session needs from the game (GGPO's small API, as callbacks): it saves and
 * loads whole states and advances one frame at a time, deterministically. The session calls them
 * from `advanceFrame` only, in order: a rollback is one `load`, then `save`/`advance` per frame
 * resimulated, then the new frame's `save` and `advance`.
 */
export interface RollbackGame<I, S> {
  /**
   * The state at the start of `frame`, as a value the session keeps until it is
   * `2 × maxPrediction + inputDelay + 4` frames old (a departure may roll back that far). `reuse` is an older state the session no longer needs (undefined for the first
   * few): fill it and return it to allocate nothing per frame.
   */
  save(frame: number, reuse: S | undefined): S;
  /** Restores a state `save` returned (a rollback). The game must not keep `state`. */
  load(state: S, frame: number): void;
  /**
   * Runs one frame with every peer's input, by peer index (the predicted ones included: a later
   * rollback replaces them). The array and its inputs are the session's: read them, do not keep them.
   * `departed[p]` is true when the peers agreed `p` is gone before this frame (its input is then
   * the initial input); the session always passes it (syncTest does not), a game may ignore it.
   */
  advance(inputs: readonly I[], frame: number, departed?: readonly boolean[]): void;
  /** A checksum of a saved state (stateChecksum of its bytes, say): equal states, equal numbers. */
  checksum(state: S): number;
}

export interface RollbackSessionOptions<I, S> {
  links: PeerLinks;
  /** The input's schema: every peer lists the same. At most 4096 bits an input. */
  input: Schema<I>;
  /** The input every peer has before its first (frames before the input delay, and predictions). */
  initialInput: I;
  game: RollbackGame<I, S>;
  /** Frames between a local input and the frame it applies to (default 2; every peer the same). */
  inputDelay?: number;
  /** The most frames a remote peer's input is predicted before the session stalls (default 8). */
  maxPrediction?: number;
  /** Frames per second of the game's fixed step (default 60): turns the RTT into frames. */
  frameRate?: number;
  /** Frames between exchanged checksums (default 30; 0 turns desync detection off). */
  checksumInterval?: number;
  /** Frames of advantage (averaged) past which this peer waits a frame to let others catch up (default 1). */
  balanceThreshold?: number;
  /** Datagrams a second a peer may send before the rest are dropped and counted (default 4 × frameRate). */
  maxPacketsPerSecond?: number;
  /** The packet budget per peer, bytes (default 1150, capped by the links). */
  packetBudgetBytes?: number;
  /** The clock at creation, seconds (default 0). */
  now?: number;
}

export interface ResolvedRollbackOptions {
  inputDelay: number;
  maxPrediction: number;
  frameRate: number;
  checksumInterval: number;
  balanceThreshold: number;
  maxPacketsPerSecond: number;
  packetBudgetBytes: number;
}

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`RollbackSession: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}

function positive(name: string, value: number, max: number): number {
  if (!(value > 0 && value <= max))
    throw new RangeError(`RollbackSession: ${name} must be a number in (0, ${max}], got ${value}`);
  return value;
}

/** Fills the defaults and refuses values out of range, each checked on its own. */
export function resolveRollbackOptions<I, S>(o: RollbackSessionOptions<I, S>): ResolvedRollbackOptions {
  const frameRate = positive('frameRate', o.frameRate ?? 60, 1000);
  return {
    inputDelay: integer('inputDelay', o.inputDelay ?? 2, 0, 30),
    maxPrediction: integer('maxPrediction', o.maxPrediction ?? 8, 1, 60),
    frameRate,
    checksumInterval: integer('checksumInterval', o.checksumInterval ?? 30, 0, 100_000),
    balanceThreshold: positive('balanceThreshold', o.balanceThreshold ?? 1, 60),
    maxPacketsPerSecond: positive('maxPacketsPerSecond', o.maxPacketsPerSecond ?? 4 * frameRate, 100_000),
    packetBudgetBytes: integer('packetBudgetBytes', o.packetBudgetBytes ?? 1150, 64, 65_536),
  };
}
