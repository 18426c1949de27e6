/**
 * What a ZoneGateway is given (its options) and what it counts (its stats, its refusals).
 * Browser-safe.
 */
import type { GameDefinition } from '../game/define-game.js';
import type { ZoneMap } from './zone-map.js';
import type { GatewayBatch } from './zone-messages.js';
import type { MirrorRefusal } from './zone-mirror.js';

export interface ZoneGatewayOptions {
  game: GameDefinition;
  map: ZoneMap;
  /** This gateway's index in [0, 255]: the high bits of its players' ids (gateway-player-ids.ts). */
  gateway: number;
  /** Player slots (GameHost's maxPlayers). */
  maxPlayers: number;
  /** Sends a batch to a zone (the bus); a throw is reported to onError and counted. */
  send: (zone: number, batch: GatewayBatch) => void;
  /** Every client's interest radius. */
  radius: number;
  /** The interest grid's cell size (default the radius). */
  cellSize?: number;
  /** The zone players join (default 0). */
  spawnZone?: number;
  /** The tick the clock starts after (default 0). */
  startTick?: number;
  /** Ticks a stamp waits for missing batches (default 2). */
  lateTicks?: number;
  /** Inputs taken at clock tick W are for tick W + this (default 1; 0 for a lockstep driver). */
  inputLeadTicks?: number;
  /**
   * The world's tick now, counted from its shared origin (default: the host's clock tick). The
   * host's timer runs at its own phase; inputs are taken for the world's ticks, so they leave a
   * whole lead ahead of the zones that step them whatever that phase.
   */
  clock?: () => number;
  /** Batches from further ahead of the clock are refused (default 32). */
  maxAheadTicks?: number;
  onError?: (error: unknown, where: string) => void;
}

/** Why a whole feed batch was refused, besides the mirror's reasons for its parts. */
export type FeedRefusal =
  | MirrorRefusal
  | 'bad-header'
  | 'future-tick'
  | 'too-many-waiting'
  | 'unknown-owner'
  | 'bad-event';

export interface ZoneGatewayStats {
  /** Zones' feed batches applied to the mirror. */
  feedsApplied: number;
  /** Feed batches (or parts of them) refused, by reason. */
  refused: Record<FeedRefusal, number>;
  /** Entities in the mirror. */
  entities: number;
  players: number;
  /** Ticks stamped once every zone's batch of the tick had come, and those stamped without one. */
  stampsOnTime: number;
  stampsLate: number;
  /** Players' inputs sent to their zones, and refused here (hostile, over the flood limit, or refused by validateInput). */
  inputsSent: number;
  inputsRefused: number;
  /** Batches the bus refused to take. */
  sendErrors: number;
}
