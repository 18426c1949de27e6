/** What the zone supervisor and its zone threads say to each other (structured clone over the worker's port). */
import type { HandoffLatencyCounts } from './handoff-latency.js';
import type { HandoffRuleOptions } from './handoff-rule.js';
import type { MessagePortLike } from './message-port-like.js';
import type { ZoneMapDescription } from './zone-map-description.js';
import type { ZoneRunnerStats } from './zone-runner.js';

/** Where a zone thread finds the store and feed. */
export type ZoneThreadEngine =
  | { kind: 'embedded'; storePort: MessagePortLike; feedPort: MessagePortLike }
  | { kind: 'redis'; url: string; keyPrefix?: string };

export interface ZoneThreadData {
  processId: string;
  zones: number[];
  /** Take the zones' leases even while held (the supervisor saw their last thread end). */
  force: boolean;
  rulesUrl: string;
  rulesExport?: string;
  map: ZoneMapDescription;
  handoff: HandoffRuleOptions;
  originMs: number;
  engine: ZoneThreadEngine;
  runner: {
    leaseTtlMs?: number;
    snapshotTicks?: number;
    keyframeTicks?: number;
    maxPlayers?: number;
    channelPrefix?: string;
  };
  reportMs?: number;
  /** How far viewers see: each report counts the entities within it of another zone (default none). */
  borderRadius?: number;
}

/** Supervisor → thread. */
export type ZoneThreadCommand =
  | { kind: 'stop' }
  | { kind: 'release'; zone: number }
  /** Try the zone's lease again (it was held elsewhere: a standby). */
  | { kind: 'start'; zone: number };

/** Thread → supervisor, besides reports. */
export type ZoneThreadMessage =
  | ZoneThreadCommand
  | { kind: 'started'; zone: number; epoch: number }
  | { kind: 'refused'; zone: number }
  | { kind: 'fenced'; zone: number }
  | { kind: 'released'; zone: number }
  | { kind: 'stopped' }
  | { kind: 'error'; message: string };

export interface ZoneThreadReport {
  kind: 'report';
  zones: {
    zone: number;
    stats: ZoneRunnerStats;
    tickMs: number[];
    /** The latency of the handoffs into this zone since this thread started it (cumulative). */
    handoffLatency: HandoffLatencyCounts;
    /** Entities within `borderRadius` of another zone now; null without a radius. */
    nearBorder: number | null;
  }[];
}
