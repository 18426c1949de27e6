/**
 * A server sending snapshots of one moving entity over a link with latency, uniform jitter and
 * loss, to a client that polls the network and renders once a frame: the arrivals feed an
 * InterpolationDelay and an EntityHistory, a GhostSampler samples the history at the delay's
 * render tick. Deterministic for a seed. Shared by the interpolation-delay tests and the bench.
 */

import { t } from '../../src/index.js';
import {
  compileInterpolator,
  GhostSampler,
  InterpolationDelay,
  type InterpolationDelayOptions,
} from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { EntityHistory } from '../../src/replication/index.js';
import { compileLayout } from '../../src/replication/layout.js';

const Dot = t.object({ x: t.float32() });
const layout = compileLayout(Dot);
const lerp = compileInterpolator(Dot);

/** One phase of the link, lasting `seconds`. */
export interface LinkPhase {
  seconds: number;
  latencyMs: number;
  jitterMs: number;
  loss: number;
}

export interface LinkRun {
  delay: InterpolationDelay;
  sampler: GhostSampler<{ x: number }>;
  /** Frames rendered, and the render tick went back (must stay 0). */
  frames: number;
  backwards: number;
  /** Per frame: the time, the render tick and the delay in ticks. */
  trace: { now: number; render: number; ticks: number }[];
}

/**
 * Runs the phases one after the other: snapshots every `intervalTicks` server ticks at `tickRate`,
 * frames every 1/`fps` seconds. `delay` options are passed through (tickRate is set).
 */
export function runLink(
  seed: number,
  phases: readonly LinkPhase[],
  options: {
    tickRate?: number;
    intervalTicks?: number;
    fps?: number;
    delay?: Partial<InterpolationDelayOptions>;
  } = {},
): LinkRun {
  const tickRate = options.tickRate ?? 60;
  const interval = options.intervalTicks ?? 3;
  const fps = options.fps ?? 60;
  const random = prng(seed);
  const delay = new InterpolationDelay({ ...options.delay, tickRate });
  const history = new EntityHistory(layout as never, 32);
  const sampler = new GhostSampler(lerp);
  // Every snapshot's arrival time (lost ones left out), in arrival order.
  const arrivals: { at: number; tick: number }[] = [];
  let start = 0;
  let tick = interval;
  for (const phase of phases) {
    const end = start + phase.seconds;
    for (; tick / tickRate < end; tick += interval) {
      if (random() < phase.loss) continue;
      const jitter = (random() * 2 - 1) * phase.jitterMs;
      arrivals.push({ at: tick / tickRate + (phase.latencyMs + jitter) / 1000, tick });
    }
    start = end;
  }
  arrivals.sort((a, b) => a.at - b.at);
  const run: LinkRun = { delay, sampler, frames: 0, backwards: 0, trace: [] };
  let next = 0;
  let last = Number.NEGATIVE_INFINITY;
  // Frames half a frame off the ticks, so that no arrival ties with a frame (rounding would pick a side).
  for (let frame = 1; (frame + 0.5) / fps < start; frame++) {
    const now = (frame + 0.5) / fps;
    // The client reads what arrived since the last frame; a snapshot older than the newest is stale.
    for (; next < arrivals.length && arrivals[next].at <= now; next++) {
      const a = arrivals[next];
      if (a.tick > history.latestTick) layout.quantize({ x: a.tick }, history.slotFor(a.tick));
      delay.onSnapshot(now, a.tick);
    }
    const render = delay.renderTick(now);
    if (Number.isNaN(render)) continue;
    if (render < last) run.backwards++;
    last = render;
    sampler.sample(history, render);
    run.frames++;
    run.trace.push({ now, render, ticks: delay.ticks });
  }
  return run;
}
