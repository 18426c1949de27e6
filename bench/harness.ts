/**
 * A small benchmark harness following the W1 "How to measure" rules (../shared/workloads/W1.md):
 * one process, contestants interleaved round by round (A B C … A B C …), warm-up rounds first, the
 * median quoted, a checksum of every batch kept in a sink so nothing is optimised away, and a batch
 * whose checksum is wrong fails the run. Benchmarks print; they never fail on speed.
 */
import os from 'node:os';

export interface BenchOptions {
  readonly quick: boolean;
  /** Measured rounds (each contestant runs one timed batch per round). */
  readonly rounds: number;
  /** Untimed rounds after calibration, before measuring. */
  readonly warmup: number;
  /** How long one timed batch should take, in milliseconds. */
  readonly targetMs: number;
}

export const FULL_OPTIONS: BenchOptions = { quick: false, rounds: 21, warmup: 4, targetMs: 40 };
export const QUICK_OPTIONS: BenchOptions = { quick: true, rounds: 5, warmup: 2, targetMs: 15 };

/** A wrong result (bad decode, checksum mismatch, disagreeing implementations): fails the run. */
export class BenchFailure extends Error {
  override name = 'BenchFailure';
}

export function fail(message: string): never {
  throw new BenchFailure(message);
}

export function check(condition: boolean, message: string): asserts condition {
  if (!condition) fail(message);
}

// --- checksum sink -------------------------------------------------------------------------------

let sinkValue = 0;

/** Keeps a result alive: every batch's checksum is folded in here and printed at the end. */
export function consume(value: number): void {
  sinkValue = (sinkValue * 31 + value) % 9007199254740881;
}

export function sinkChecksum(): number {
  return sinkValue;
}

// --- GC ------------------------------------------------------------------------------------------

const gcHook = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;

export const gcExposed = typeof gcHook === 'function';

/**
 * A young-generation collection when node runs with --expose-gc (nothing otherwise), so one
 * contestant's short-lived garbage is not collected on the next one's clock. Deliberately not a
 * forced full collection: V8 then discards optimized code that embeds objects it holds weakly,
 * and on this workload protobufjs ran 5-7x slower for many batches after each forced full GC,
 * which no ordinary (rare, non-forced) full collection does.
 */
export function collectGarbage(): void {
  if (gcHook !== undefined) gcHook({ type: 'minor' });
}

/** A forced full collection, for between suites (before anything of the next suite is optimized). */
export function collectAllGarbage(): void {
  if (gcHook !== undefined) gcHook();
}

// --- tasks and measurement -----------------------------------------------------------------------

export interface Task {
  readonly name: string;
  /** Work units one iteration covers (entities, values, bytes, buffers): results are per unit. */
  readonly units: number;
  /** Runs `n` iterations and returns a checksum of what they produced. */
  run(n: number): number;
  /** Throws (see {@link fail}) when `result` is not what `n` iterations must produce. */
  verify?(n: number, result: number): void;
  /** Untimed preparation before each timed batch. */
  before?(): void;
  /** Fixed iterations per batch; calibrated to `targetMs` when absent. */
  readonly iterations?: number;
}

export interface Result {
  readonly name: string;
  readonly units: number;
  /** Iterations per timed batch. */
  readonly iterations: number;
  /** Nanoseconds per unit, one per measured round. */
  readonly samples: number[];
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >>> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One timed batch of `n` iterations, in milliseconds (a minor GC and `before` run untimed first). */
function timeBatch(task: Task, n: number): number {
  collectGarbage();
  task.before?.();
  const start = performance.now();
  const result = task.run(n);
  const elapsed = performance.now() - start;
  task.verify?.(n, result);
  consume(result);
  return elapsed;
}

/** Iterations for one batch to take about `targetMs` (also warms the task up). */
function calibrate(task: Task, targetMs: number): number {
  if (task.iterations !== undefined) {
    timeBatch(task, task.iterations);
    return task.iterations;
  }
  let n = 1;
  for (;;) {
    const ms = timeBatch(task, n);
    if (ms >= targetMs / 4 || n >= 2 ** 30)
      return Math.max(1, Math.round((n * targetMs) / Math.max(ms, 1e-3)));
    n = Math.min(n * 16, Math.max(n * 2, Math.ceil((n * targetMs) / 4 / Math.max(ms, 1e-3))));
  }
}

/**
 * Measures tasks interleaved: calibrate each, `warmup` untimed rounds (after which the iteration
 * counts are re-fitted to the warmed-up speed), then `rounds` measured rounds of A B C ….
 */
export function measure(tasks: readonly Task[], options: BenchOptions): Result[] {
  const iterations = tasks.map((task) => calibrate(task, options.targetMs));
  if (options.warmup > 0) {
    const warm = tasks.map(() => [] as number[]);
    for (let r = 0; r < options.warmup; r++) {
      tasks.forEach((task, i) => {
        warm[i].push(timeBatch(task, iterations[i]));
      });
    }
    // Re-fit to the fastest warm-up batch: earlier ones may still have run unoptimized code.
    tasks.forEach((task, i) => {
      if (task.iterations === undefined) {
        const fastest = Math.max(Math.min(...warm[i]), 1e-3);
        iterations[i] = Math.max(1, Math.round((iterations[i] * options.targetMs) / fastest));
      }
    });
  }
  const samples = tasks.map(() => [] as number[]);
  for (let r = 0; r < options.rounds; r++) {
    tasks.forEach((task, i) => {
      const ms = timeBatch(task, iterations[i]);
      samples[i].push((ms * 1e6) / (iterations[i] * task.units));
    });
  }
  return tasks.map((task, i) => ({
    name: task.name,
    units: task.units,
    iterations: iterations[i],
    samples: samples[i],
    median: median(samples[i]),
    min: Math.min(...samples[i]),
    max: Math.max(...samples[i]),
  }));
}

// --- reporting -----------------------------------------------------------------------------------

export interface Column {
  readonly header: string;
  /** Cell text per contestant name ('' when absent). */
  readonly values: Readonly<Record<string, string>>;
}

export interface TableSpec {
  readonly title: string;
  /** Results are ns per this unit, e.g. 'entity'. */
  readonly unit: string;
  /** The contestant every ratio is taken against. */
  readonly baseline: string;
  readonly results: readonly Result[];
  /** 'MB/s' prints throughput (10^6 bytes per second; the unit must be a byte) instead of ns. */
  readonly show?: 'ns' | 'MB/s';
  readonly columns?: readonly Column[];
  readonly notes?: readonly string[];
}

export interface TableRecord {
  readonly title: string;
  readonly unit: string;
  readonly baseline: string;
  readonly rows: {
    name: string;
    nsPerUnit: { median: number; min: number; max: number; samples: number[] };
    mbPerSecond?: number;
    iterationsPerBatch: number;
    timeVsBaseline: number;
    extra: Record<string, string>;
  }[];
  readonly notes: readonly string[];
}

/** Three significant digits, no exponent. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

function renderTable(headers: string[], rows: string[][], leftColumns: number): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c < leftColumns ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Prints a results table: medians (min..max) and each contestant's time relative to the baseline. */
export function formatTable(spec: TableSpec): { text: string; record: TableRecord } {
  const base = spec.results.find((r) => r.name === spec.baseline);
  if (base === undefined) throw new Error(`table "${spec.title}": no baseline "${spec.baseline}"`);
  const throughput = spec.show === 'MB/s';
  const headers = [
    'contestant',
    throughput ? 'MB/s' : `ns/${spec.unit}`,
    throughput ? 'min..max MB/s' : 'min..max',
    `time vs ${spec.baseline}`,
    ...(spec.columns ?? []).map((c) => c.header),
  ];
  const rows: string[][] = [];
  const records: TableRecord['rows'] = [];
  for (const r of spec.results) {
    const ratio = r.median / base.median;
    const extra: Record<string, string> = {};
    for (const c of spec.columns ?? []) extra[c.header] = c.values[r.name] ?? '';
    rows.push([
      r.name,
      throughput ? fmt(1000 / r.median) : fmt(r.median),
      throughput ? `${fmt(1000 / r.max)}..${fmt(1000 / r.min)}` : `${fmt(r.min)}..${fmt(r.max)}`,
      r === base ? '1 (baseline)' : `${ratio.toFixed(2)}x`,
      ...(spec.columns ?? []).map((c) => c.values[r.name] ?? ''),
    ]);
    records.push({
      name: r.name,
      nsPerUnit: { median: r.median, min: r.min, max: r.max, samples: r.samples },
      ...(throughput ? { mbPerSecond: 1000 / r.median } : {}),
      iterationsPerBatch: r.iterations,
      timeVsBaseline: ratio,
      extra,
    });
  }
  const lines = [spec.title, renderTable(headers, rows, 1)];
  for (const note of spec.notes ?? []) lines.push(`  ${note}`);
  return {
    text: `${lines.join('\n')}\n`,
    record: {
      title: spec.title,
      unit: spec.unit,
      baseline: spec.baseline,
      rows: records,
      notes: spec.notes ?? [],
    },
  };
}

/** What a suite gets: the options, and where it prints and records. */
export interface SuiteContext {
  readonly options: BenchOptions;
  /** Prints a table and records it for --json. */
  table(spec: TableSpec): void;
  /** Prints a line and records it for --json. */
  note(text: string): void;
  /** Records a named value for --json. */
  record(key: string, value: unknown): void;
}

export interface SuiteReport {
  tables: TableRecord[];
  notes: string[];
  values: Record<string, unknown>;
  seconds: number;
  failure?: string;
}

export function createSuiteContext(options: BenchOptions, report: SuiteReport): SuiteContext {
  return {
    options,
    table(spec) {
      const { text, record } = formatTable(spec);
      console.log(text);
      report.tables.push(record);
    },
    note(text) {
      console.log(text);
      report.notes.push(text);
    },
    record(key, value) {
      report.values[key] = value;
    },
  };
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  node: string;
  v8: string;
  platform: string;
  gcExposed: boolean;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.arch()} ${os.release()}`,
    gcExposed,
  };
}
