/**
 * What the zones bench adds up from a sample of the world (./zone-world-engines.ts): the zones'
 * report counters summed over zones, the gateway's stamps, and the handoff latency over a window
 * from the zones' cumulative latency bins (src/zones/handoff-latency.ts) at its two ends.
 */
import {
  LATENCY_MS_BIN_WIDTH,
  LATENCY_MS_BINS,
  LATENCY_TICK_BINS,
  quantileBin,
} from '../../src/zones/handoff-latency.js';
import type { ZoneRunnerStats } from '../../src/zones/zone-runner.js';
import type { ZoneWorldSample } from './zone-world-engines.js';

export function zoneCounters(s: ZoneWorldSample) {
  const sum = (f: (r: ZoneRunnerStats) => number) =>
    s.zones.reduce((total, z) => total + (z.report === null ? 0 : f(z.report)), 0);
  return {
    commits: sum((r) => r.commits),
    refused: sum((r) => Object.values(r.commitsRefused).reduce((a, b) => a + b, 0)),
    handoffBytes: sum((r) => r.handoffBytes),
    feedBytes: sum((r) => r.feedBytes),
    entities: sum((r) => r.entities),
    arriving: sum((r) => r.arriving),
    ticks: sum((r) => r.tick),
    ticksSkipped: sum((r) => r.ticksSkipped),
    lateArrivals: sum((r) => r.lateArrivals),
    stampsLate: s.gateway?.stampsLate ?? 0,
    stampsOnTime: s.gateway?.stampsOnTime ?? 0,
  };
}

export type ZoneCounters = ReturnType<typeof zoneCounters>;

/** Handoffs measured in a window and their latency: ticks exact, milliseconds as bin upper edges. */
export interface Latency {
  handoffs: number;
  ticksP50: number;
  ticksP99: number;
  msP50: number;
  msP99: number;
}

/** Every zone's bins at `s`, added up. */
function bins(s: ZoneWorldSample): { ticks: number[]; ms: number[] } {
  const ticks = new Array<number>(LATENCY_TICK_BINS).fill(0);
  const ms = new Array<number>(LATENCY_MS_BINS).fill(0);
  for (const z of s.zones) {
    const counts = z.handoffLatency;
    if (counts === null) continue;
    for (let i = 0; i < LATENCY_TICK_BINS; i++) ticks[i] += counts.byTicks[i] ?? 0;
    for (let i = 0; i < LATENCY_MS_BINS; i++) ms[i] += counts.byMs[i] ?? 0;
  }
  return { ticks, ms };
}

/** The latency of the handoffs between two samples (null when there was none). */
export function latencyOf(start: ZoneWorldSample, end: ZoneWorldSample): Latency | null {
  const a = bins(start);
  const b = bins(end);
  const ticks = b.ticks.map((n, i) => n - a.ticks[i]);
  const ms = b.ms.map((n, i) => n - a.ms[i]);
  const handoffs = ticks.reduce((x, y) => x + y, 0);
  if (handoffs <= 0) return null;
  return {
    handoffs,
    ticksP50: quantileBin(ticks, 0.5),
    ticksP99: quantileBin(ticks, 0.99),
    msP50: (quantileBin(ms, 0.5) + 1) * LATENCY_MS_BIN_WIDTH,
    msP99: (quantileBin(ms, 0.99) + 1) * LATENCY_MS_BIN_WIDTH,
  };
}
