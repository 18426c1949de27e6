/** What the convergence test and its zone processes (zone-audit-machine.ts) say over IPC. */
import type { ZoneRunnerStats } from '../../src/zones/zone-runner.js';

/** Test → zone process. */
export type AuditCommand =
  /** The wanderers move (or stand still) from world tick `fromTick` on. */
  | { kind: 'moving'; fromTick: number; moving: boolean }
  /** Answer with every zone this process runs now. */
  | { kind: 'ask'; id: number };

/** What a zone process logs as its zones step. */
export type AuditEvent =
  | { kind: 'started'; zone: number; epoch: number; tick: number }
  | { kind: 'fenced'; zone: number; epoch: number }
  /** The world ids zone `zone` owned at tick `tick` (before stepping it). */
  | { kind: 'owned'; zone: number; epoch: number; tick: number; ids: number[] }
  /** A zone's inputs refused as late so far under this epoch (sent with every batch of events). */
  | { kind: 'late-inputs'; zone: number; epoch: number; count: number }
  /** An entity entered at `tick` though its handoff's tick was `fromTick` (≤ tick): the zone's from `fromTick`. */
  | { kind: 'late'; zone: number; epoch: number; worldId: number; fromTick: number; tick: number };

/** One zone as its process holds it now. */
export interface ZoneView {
  zone: number;
  epoch: number;
  /** The last tick it stepped. */
  tick: number;
  /** Its entities, states quantized by their schema's codec. */
  entities: { worldId: number; type: string; state: Record<string, number> }[];
  /** Its players: their id, their own entity's world id (-1: none) and their data. */
  players: { playerId: number; worldId: number; data: Record<string, unknown> }[];
  stats: ZoneRunnerStats;
}

/** Zone process → test. */
export type AuditAnswer =
  | { kind: 'events'; events: AuditEvent[] }
  | { kind: 'answer'; id: number; zones: ZoneView[]; errors: string[] };
