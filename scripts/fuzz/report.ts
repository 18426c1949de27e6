import { memoryProbe } from '../memory-probe.js';
import { hex } from './helpers.js';

// ---------------------------------------------------------------------------------------------
// The loop
// ---------------------------------------------------------------------------------------------

export interface ReaderStats {
  readonly name: string;
  accepted: number;
  acceptedRandom: number;
  acceptedMutated: number;
  rejected: number;
  readonly reasons: Map<string, number>;
}

export interface Crash {
  readonly target: string;
  readonly reader: string;
  readonly seed: number;
  readonly iteration: number;
  readonly mutated: boolean;
  readonly inputHex: string;
  readonly error: string;
}

export interface SemanticFailure {
  readonly check: string;
  readonly detail: string;
  readonly iteration: number;
  readonly inputHex: string;
}

export interface TargetReport {
  readonly target: string;
  readonly description: string;
  readonly seed: number;
  /** Inputs run (fewer than asked only after a crash). */
  iterations: number;
  randomInputs: number;
  mutatedInputs: number;
  readonly readers: ReaderStats[];
  semanticChecks: number;
  semanticFailures: number;
  /** Failures by check name, with the first few examples of each. */
  readonly failures: Map<string, SemanticFailure[]>;
  crash: Crash | null;
  elapsedMs: number;
  corpusSize: number;
  /** heapUsed after the first 10% of inputs and at the end (after a GC when one is available). */
  heapAtTenPercent: number;
  heapAtEnd: number;
  gcUsed: boolean;
  peakRss: number;
  peakHeapUsed: number;
}

export interface Progress {
  readonly target: string;
  readonly done: number;
  readonly total: number;
  readonly perSecond: number;
}

export interface RunOptions {
  readonly iterations: number;
  readonly seed: number;
  /** Share of purely random inputs (the rest are mutations); default 0.2. */
  readonly randomShare?: number;
  /** Called about every `progressMs` (default 500). */
  readonly onProgress?: (progress: Progress) => void;
  readonly progressMs?: number;
  /** A full GC (`globalThis.gc` under --expose-gc), for the heap measurements. */
  readonly gc?: () => void;
}

/** What `newTargetReport` needs to know; everything else in a report starts at zero. */
export interface TargetReportFields {
  readonly target: string;
  readonly description: string;
  readonly seed: number;
  readonly readers: readonly string[];
  readonly corpusSize: number;
  readonly gc?: () => void;
}

/** A report with every count at zero, for one target's run. */
export function newTargetReport(fields: TargetReportFields): TargetReport {
  return {
    target: fields.target,
    description: fields.description,
    seed: fields.seed,
    iterations: 0,
    randomInputs: 0,
    mutatedInputs: 0,
    readers: fields.readers.map((name) => ({
      name,
      accepted: 0,
      acceptedRandom: 0,
      acceptedMutated: 0,
      rejected: 0,
      reasons: new Map(),
    })),
    semanticChecks: 0,
    semanticFailures: 0,
    failures: new Map(),
    crash: null,
    elapsedMs: 0,
    corpusSize: fields.corpusSize,
    heapAtTenPercent: 0,
    heapAtEnd: 0,
    gcUsed: fields.gc !== undefined,
    peakRss: 0,
    peakHeapUsed: 0,
  };
}

/**
 * The bookkeeping of every fuzz loop: memory peaks, the heap once a tenth of the inputs are in
 * (settled by a GC when one can be forced), a progress call about every `progressMs`, and the time
 * and final heap at the end.
 */
export function runMeter(
  report: TargetReport,
  total: number,
  options: Pick<RunOptions, 'onProgress' | 'progressMs' | 'gc'>,
) {
  const probe = memoryProbe(report, options.gc);
  const progressMs = options.progressMs ?? 500;
  const tenPercent = Math.max(1, Math.floor(total / 10));
  const start = performance.now();
  let lastProgress = start;
  probe.sample();
  return {
    /** `done` of `total` inputs are in. Samples memory: call it every few inputs, not every one. */
    update(done: number): void {
      if (report.heapAtTenPercent === 0 && done >= tenPercent) report.heapAtTenPercent = probe.settled();
      probe.sample();
      if (options.onProgress === undefined) return;
      const now = performance.now();
      if (now - lastProgress < progressMs) return;
      lastProgress = now;
      options.onProgress({
        target: report.target,
        done: Math.min(done, total),
        total,
        perSecond: (done * 1000) / (now - start),
      });
    },
    finish(): void {
      report.elapsedMs = performance.now() - start;
      report.heapAtEnd = probe.settled();
      // A run that ended before its first tenth was measured: the end stands for it.
      if (report.heapAtTenPercent === 0) report.heapAtTenPercent = report.heapAtEnd;
    },
  };
}

export const MAX_REASONS = 200;
const MAX_FAILURE_KINDS = 50;
const MAX_EXAMPLES = 3;
const MAX_EXAMPLE_HEX_BYTES = 256;

/**
 * Counts a failed semantic check and keeps its first few examples (at most MAX_FAILURE_KINDS
 * checks, MAX_EXAMPLES each, the input shown up to MAX_EXAMPLE_HEX_BYTES): one bookkeeping for
 * every fuzz target.
 */
export function recordFailure(
  report: TargetReport,
  check: string,
  detail: string,
  iteration: number,
  input: Uint8Array,
): void {
  report.semanticFailures++;
  let examples = report.failures.get(check);
  if (examples === undefined) {
    if (report.failures.size >= MAX_FAILURE_KINDS) return;
    examples = [];
    report.failures.set(check, examples);
  }
  if (examples.length < MAX_EXAMPLES) {
    const shown = input.subarray(0, MAX_EXAMPLE_HEX_BYTES);
    examples.push({
      check,
      detail,
      iteration,
      inputHex: hex(shown) + (input.length > shown.length ? `… (${input.length} bytes)` : ''),
    });
  }
}

/** Rejection reasons without positions or item indices, so they group. */
export function normalizeReason(reason: string): string {
  return reason
    .replace(/ at bit \d+/g, '')
    .replace(/\[\d+\]/g, '[]')
    .slice(0, 120);
}

/** The crash report for an exception that escaped a reader (the targets that call readers themselves). */
export function escapedCrash(
  where: { target: string; reader: string; seed: number; iteration: number; mutated: boolean },
  input: Uint8Array,
  error: unknown,
): Crash {
  return {
    ...where,
    inputHex: hex(input),
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  };
}

/**
 * Runs a reader on one input: its result, or null when it threw, which becomes the report's crash
 * (nothing may escape a public read path) at the report's current iteration.
 */
export function guardedRead(
  report: TargetReport,
  where: { target: string; reader: string; seed: number; mutated: boolean },
  input: Uint8Array,
  read: () => boolean,
): boolean | null {
  try {
    return read();
  } catch (error) {
    report.crash = escapedCrash({ ...where, iteration: report.iterations }, input, error);
    return null;
  }
}

/**
 * Runs a server-side step after hostile input (an `update()`, a `take`, writing the next packet):
 * its result, or null when it threw, which becomes the report's crash, with the last hostile input
 * shown. Nothing
 * a remote peer sends may make such a step throw. Null when it threw.
 */
export function guardedUpdate<T>(
  report: TargetReport,
  where: { target: string; reader: string; seed: number; mutated: boolean },
  lastInput: Uint8Array,
  step: () => T,
): { value: T } | null {
  try {
    return { value: step() };
  } catch (error) {
    report.crash = escapedCrash({ ...where, iteration: report.iterations }, lastInput, error);
    return null;
  }
}

/** A crash as text: everything needed to replay it. */
export function formatCrash(crash: Crash): string {
  return [
    `EXCEPTION escaped reader ${crash.reader} (target ${crash.target})`,
    `  seed ${crash.seed}, iteration ${crash.iteration} (${crash.mutated ? 'mutated' : 'random'} input)`,
    `  replay: node dist/scripts/fuzz.js --seed ${crash.seed} --target ${crash.target} --iterations ${crash.iteration + 1}`,
    `  input (${crash.inputHex.length / 2} bytes): ${crash.inputHex}`,
    `  ${crash.error.split('\n').join('\n  ')}`,
  ].join('\n');
}

export function formatFailures(report: TargetReport): string {
  const lines: string[] = [];
  for (const [name, examples] of report.failures) {
    lines.push(`  check failed: ${name}`);
    for (const e of examples) {
      lines.push(`    iteration ${e.iteration}: ${e.detail}`);
      lines.push(`      input: ${e.inputHex}`);
    }
  }
  return lines.join('\n');
}
