/**
 * The ghostwire half of the same-game capacity run: the demo arena as rooms under one room-server
 * process (UDP, encrypted, 20 Hz), driven by light bots in child processes, through the whole join
 * path (embedded directory). The load tester (scripts/loadtest-run.ts) does the work; its steady
 * window gives the CapacityRun, with no players-per-core figure unless the server kept up.
 */
import { runLoadtest } from '../../scripts/loadtest-run.js';
import type { CapacityOptions, CapacityRun } from './result.js';

export interface GhostwireCapacityOptions extends CapacityOptions {
  /** Light bots (default) or full ones. */
  bots?: 'light' | 'full';
}

export async function runGhostwireCapacity(options: GhostwireCapacityOptions): Promise<CapacityRun> {
  const ramp = options.rampSeconds ?? Math.max(1, options.players / 25);
  const summary = await runLoadtest({
    clients: options.players,
    // The window opens a second past the ramp and the warm-up, and ends with the play.
    seconds: Math.ceil(ramp + 1 + options.warmupSeconds) + options.seconds,
    processes: 1,
    botProcesses: options.botProcesses,
    mode: 'join',
    seed: options.seed,
    roomSize: options.roomSize,
    rampSeconds: ramp,
    // Nobody leaves: every player plays the whole window.
    sessionSeconds: 1e6,
    warmupSeconds: options.warmupSeconds,
    bots: options.bots ?? 'light',
    stdio: 'ignore',
    onProgress: options.progress,
  });
  const run = summary.capacity;
  if (run === null) throw new Error('runGhostwireCapacity: the run had no steady window');
  const failures = Object.entries(summary.failures);
  if (failures.length > 0)
    run.notes.push(`join failures: ${failures.map(([why, n]) => `${why} ×${n}`).join(', ')}`);
  return run;
}
