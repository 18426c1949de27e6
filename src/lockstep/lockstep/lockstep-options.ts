import type { Schema } from '../../schema/schema.js';
import type { PeerLinks } from '../links/peer-links.js';

/**
 * What the game gives a lockstep session: its turn step and its state's checksum, snapshot and
 * dump. Turns run through a callback rather than a returned request list because a turn's
 * checksum goes into the very list the session seals next, in the same update; the game keeps no
 * state between requests, and nothing is ever rolled back (rollback sessions return requests).
 */
export interface LockstepGame<T> {
  /**
   * Runs turn `turn` with every peer's commands for it: `commands[peer]` in the order that peer
   * queued them (empty for a peer that is not in the session at this turn). Called exactly once per
   * turn, in turn order, with the same arguments on every peer. The arrays are valid during the call.
   */
  executeTurn(turn: number, commands: readonly (readonly T[])[]): void;
  /**
   * The state after the turn just run, as a number (uint32, e.g. `stateChecksum(bytes)`) or the
   * state's bytes (the session takes their CRC-32). Equal states must give equal checksums.
   */
  checksum(): number | Uint8Array;
  /** The whole state as bytes, for a late joiner (called on the host right after the snapshot turn). */
  saveState?(): Uint8Array;
  /** Replaces the state by a snapshot `saveState` made after `turn` (on the joiner). */
  loadState?(bytes: Uint8Array, turn: number): void;
  /** Whatever helps find a desync (a readable dump of the current state); attached to the report. */
  dumpState?(turn: number): unknown;
}

export interface LockstepSessionOptions<T> {
  links: PeerLinks;
  /** One command's schema (`t.object(...)`), the same on every peer. */
  command: Schema<T>;
  game: LockstepGame<T>;
  /** The shared PRNG's seed (session.random), the same on every peer: a uint32. */
  seed: number;
  /** The peers in the session from its first turn (default: every index of the links). */
  members?: readonly number[];
  /**
   * This peer is outside the session (default false): it asks to join, and runs from the state the
   * host sends it (the game's saveState / loadState). `members` is then ignored.
   */
  joining?: boolean;
  /** Turn length to start with, ms (default 100). */
  turnMs?: number;
  /** Commands queued during turn N run at turn N + delay (default 2; 1 to 16). */
  delay?: number;
  /** Let the host adapt the turn length to the measured round trips (default true). */
  adaptTurnMs?: boolean;
  /** Bounds of the adapted turn length, ms (default 50 and 1000). */
  minTurnMs?: number;
  maxTurnMs?: number;
  /** Commands one peer may queue for one turn (default 16; 1 to 255); more throws at `queue`. */
  maxCommandsPerTurn?: number;
  /**
   * Seconds between packets to a peer that has not acked everything sent to it (default 1/30).
   * Each packet carries every unacked list, so this is how soon a lost one is sent again: longer
   * saves datagrams (bandwidth) and costs stalls on lossy links (BENCHMARKS.md, lockstep).
   */
  resendSeconds?: number;
  /** Datagrams accepted from one peer per second (default 200, burst 100); more are dropped and counted. */
  maxDatagramsPerSecond?: number;
  /** A stall is announced ('stalled' event) once it has lasted this long, seconds (default 0.25). */
  stallReportSeconds?: number;
  /** Turns run at most per update while catching up (default 8). */
  maxTurnsPerUpdate?: number;
}

export interface ResolvedLockstepOptions {
  turnMs: number;
  delay: number;
  adaptTurnMs: boolean;
  minTurnMs: number;
  maxTurnMs: number;
  maxCommandsPerTurn: number;
  resendSeconds: number;
  maxDatagramsPerSecond: number;
  stallReportSeconds: number;
  maxTurnsPerUpdate: number;
}

/** The wire's bounds on a turn length, ms. */
export const TURN_MS_MIN = 10;
export const TURN_MS_MAX = 5000;

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`LockstepSession: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}

export function resolveLockstepOptions(o: LockstepSessionOptions<unknown>): ResolvedLockstepOptions {
  const turnMs = integer('turnMs', o.turnMs ?? 100, TURN_MS_MIN, TURN_MS_MAX);
  const minTurnMs = integer('minTurnMs', o.minTurnMs ?? Math.min(50, turnMs), TURN_MS_MIN, turnMs);
  const maxTurnMs = integer('maxTurnMs', o.maxTurnMs ?? Math.max(1000, turnMs), turnMs, TURN_MS_MAX);
  const rate = o.maxDatagramsPerSecond ?? 200;
  if (!(rate >= 10 && rate <= 100_000))
    throw new RangeError(`LockstepSession: maxDatagramsPerSecond must be in [10, 100000], got ${rate}`);
  const resend = o.resendSeconds ?? 1 / 30;
  if (!(resend >= 0.005 && resend <= 1))
    throw new RangeError(`LockstepSession: resendSeconds must be in [0.005, 1], got ${resend}`);
  const stall = o.stallReportSeconds ?? 0.25;
  if (!(stall >= 0 && stall <= 60))
    throw new RangeError(`LockstepSession: stallReportSeconds must be in [0, 60], got ${stall}`);
  return {
    turnMs,
    delay: integer('delay', o.delay ?? 2, 1, 16),
    adaptTurnMs: o.adaptTurnMs ?? true,
    minTurnMs,
    maxTurnMs,
    maxCommandsPerTurn: integer('maxCommandsPerTurn', o.maxCommandsPerTurn ?? 16, 1, 255),
    resendSeconds: resend,
    maxDatagramsPerSecond: rate,
    stallReportSeconds: stall,
    maxTurnsPerUpdate: integer('maxTurnsPerUpdate', o.maxTurnsPerUpdate ?? 8, 1, 1000),
  };
}

/** Why a peer left the session. */
export type LockstepLeaveReason = 'left' | 'timedOut' | 'dropped';

/** What a session reports (pollEvent): never thrown. */
export type LockstepEvent =
  /** A due turn has waited `stallReportSeconds` for these peers' commands. */
  | { readonly kind: 'stalled'; readonly turn: number; readonly waitingFor: readonly number[] }
  /** The stalled turn ran after `seconds` in all. */
  | { readonly kind: 'resumed'; readonly turn: number; readonly seconds: number }
  /**
   * The first turn whose checksum differs from `peer`'s (reported once per peer): `local` is this
   * peer's, `remote` that peer's; `dump` is what the game's dumpState gave when it was found.
   */
  | {
      readonly kind: 'desync';
      readonly turn: number;
      readonly peer: number;
      readonly local: number;
      readonly remote: number;
      readonly dump: unknown;
    }
  /**
   * After a desync with `reportedBy`: the list of `peer` that this peer ran at `turn` is not the
   * one `reportedBy` ran — `peer` sent them different lists (or, when it is `reportedBy`, sent
   * others a list it did not run itself).
   */
  | {
      readonly kind: 'listsDiffer';
      readonly turn: number;
      readonly peer: number;
      readonly reportedBy: number;
    }
  /** This peer joined at `turn` (the snapshot's turn) and runs from the next one. */
  | { readonly kind: 'started'; readonly turn: number }
  /** `peer` joins: its commands count from `fromTurn`. */
  | { readonly kind: 'joined'; readonly peer: number; readonly fromTurn: number }
  /** `peer` left: its commands counted up to `afterTurn`, none after. */
  | {
      readonly kind: 'left';
      readonly peer: number;
      readonly afterTurn: number;
      readonly reason: LockstepLeaveReason;
    }
  /** The host dropped this peer from the session (after `afterTurn`): it runs no more turns. */
  | { readonly kind: 'removed'; readonly afterTurn: number }
  /** Turns after `turn` last `turnMs` ms (the host's adaptation). */
  | { readonly kind: 'turnLength'; readonly turn: number; readonly turnMs: number };

export type LockstepState = 'joining' | 'running' | 'stalled' | 'removed' | 'closed';

export interface LockstepStatus {
  readonly state: LockstepState;
  /** The last turn run (-1 before any). */
  readonly turn: number;
  /** While stalled: the peers whose commands for the next turn are missing. */
  readonly waitingFor: readonly number[];
}

export interface LockstepPeerStats {
  /** Datagrams sent to and received from this peer, and their bytes (the links' payloads). */
  datagramsSent: number;
  datagramsReceived: number;
  bytesSent: number;
  bytesReceived: number;
  /** Datagrams and packets refused (malformed, bad entries: `lastRefusal` says why). */
  refused: number;
  /** Datagrams dropped over maxDatagramsPerSecond. */
  flooded: number;
  /** Command lists for turns already run (redundant copies) and first copies kept over later ones. */
  staleLists: number;
  /** Round trip to the peer, ms (0 before the first ack). */
  rttMs: number;
}

export interface LockstepStats {
  /** The last turn run. */
  turn: number;
  turnMs: number;
  /** Stalls (a due turn waiting for commands), and the seconds spent in them. */
  stalls: number;
  stallSeconds: number;
  commandsQueued: number;
  /** Commands run, every peer's. */
  commandsExecuted: number;
  /** Turns found to differ from some peer's checksum. */
  desyncs: number;
  /** Per peer index (this peer's own entry stays zero). */
  peers: LockstepPeerStats[];
  /** Why the last refused packet was refused. */
  lastRefusal: string | null;
  /** Events dropped because pollEvent was not called (past 256 waiting, the oldest go). */
  eventsDropped: number;
  /** Control messages not sent because a peer's reliable queue was full (it does not ack). */
  messagesDropped: number;
}
