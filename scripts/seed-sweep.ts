/**
 * `npm run sweep`: every randomized test file (one that draws its seed from test/support/seed.ts)
 * run over N fresh seeds, each run a child `node --test FILE` with GW_SEED set. Runs go round-robin
 * (every file's first seed, then every file's second...), so a sweep cut short by --minutes has
 * covered all files evenly. Ends with seeds run and failures per file, then every failing file and
 * seed with the command that replays it. Exits 1 when a run failed, 2 on bad flags.
 *
 *   npm run sweep -- --seeds 200 [--files a,b] [--exclude a,b] [--jobs N] [--minutes M] [--edges] [--list]
 *
 * The machine is shared: run it at `nice -n 19` with --jobs 1 when others are working.
 */
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { commandLine, type FlagValues, flagValue, positiveIntegerFlag, rangeFlag } from './cli.js';
import {
  EDGE_SEEDS,
  findSeededTestFiles,
  formatSweepReport,
  freshSeed,
  type RunResult,
  replayCommand,
  runOnce,
  selectFiles,
  shortName,
} from './seed-sweep-core.js';

const DEFAULT_SEEDS = 200;
const DEFAULT_TIMEOUT_S = 600;
const PROGRESS_EVERY_S = 15;

const list = (value: string | undefined): string[] =>
  value === undefined
    ? []
    : value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');

export const SWEEP_COMMAND = {
  name: 'npm run sweep --',
  description:
    'Runs every randomized test file (those using testSeed from test/support/seed.ts) over fresh seeds,\none child `node --test` per file and seed with GW_SEED set; ends with the failing file+seed pairs and a replay\ncommand for each. Needs a build (npm run sweep builds first). Shared machine: nice -n 19 and --jobs 1.',
  flags: {
    seeds: { short: 'n', arg: 'N', help: `fresh seeds per file (default ${DEFAULT_SEEDS})` },
    files: {
      arg: 'A,B',
      help: 'only these files, by short name (vector or vector.test.js); default all randomized files',
    },
    exclude: { arg: 'A,B', help: 'skip files whose short name contains any of these' },
    jobs: { short: 'j', arg: 'N', help: 'runs at once (default 1)' },
    minutes: { arg: 'M', help: 'start no new run after M minutes (default: no limit)' },
    'timeout-s': { arg: 'S', help: `a run taking longer counts as failed (default ${DEFAULT_TIMEOUT_S})` },
    edges: {
      kind: 'boolean',
      help: `first run each file on the edge seeds ${EDGE_SEEDS.join(', ')} (int32 arithmetic on a seed breaks there), then N fresh ones`,
    },
    list: { kind: 'boolean', help: 'print the randomized files found and exit' },
  },
} as const;

export interface SweepArgs {
  seeds: number;
  files: string[];
  exclude: string[];
  jobs: number;
  minutes: number;
  timeoutS: number;
  edges: boolean;
  list: boolean;
}

/** The sweep's flags, checked; throws (naming the flag) on a bad value. */
export function parseSweepArgs(values: FlagValues<typeof SWEEP_COMMAND.flags>): SweepArgs {
  return {
    seeds: positiveIntegerFlag('--seeds', values.seeds, DEFAULT_SEEDS),
    files: list(values.files),
    exclude: list(values.exclude),
    jobs: positiveIntegerFlag('--jobs', values.jobs, 1),
    minutes: rangeFlag('--minutes', values.minutes, Number.POSITIVE_INFINITY, 0.01, 1e6),
    timeoutS: rangeFlag('--timeout-s', values['timeout-s'], DEFAULT_TIMEOUT_S, 1, 86_400),
    edges: values.edges,
    list: values.list,
  };
}

async function main(): Promise<void> {
  const args = flagValue(() => parseSweepArgs(commandLine(SWEEP_COMMAND)));
  // Relative to where the sweep runs, so the printed replay commands are short and work from there.
  const testDir = relative(process.cwd(), join(import.meta.dirname, '..', 'test')) || '.';
  const seeded = findSeededTestFiles(testDir);
  if (args.list) {
    for (const file of seeded) console.log(shortName(file));
    console.log(`${seeded.length} randomized test files in ${testDir}`);
    return;
  }
  const files = flagValue(() => selectFiles(seeded, args.files, args.exclude));
  const edges = args.edges ? EDGE_SEEDS : [];
  const perFile = edges.length + args.seeds;
  const total = files.length * perFile;
  console.log(
    `seed sweep: ${files.length} files x ${perFile} seeds = ${total} runs, ${args.jobs} at a time` +
      (Number.isFinite(args.minutes) ? `, new runs until ${args.minutes} min` : ''),
  );
  const started = performance.now();
  const deadline = started + args.minutes * 60_000;
  const results: RunResult[] = [];
  let next = 0;
  let stopped = false;
  process.once('SIGINT', () => {
    stopped = true;
    console.log('interrupted: finishing the runs under way, then the report');
  });
  let lastProgress = started;
  const progress = (): void => {
    const failed = results.filter((r) => !r.ok).length;
    const minutes = ((performance.now() - started) / 60_000).toFixed(1);
    console.log(`progress: ${results.length}/${total} runs, ${failed} failed, ${minutes} min`);
    lastProgress = performance.now();
  };
  const worker = async (): Promise<void> => {
    while (!stopped && next < total && performance.now() < deadline) {
      const index = next++;
      const file = files[index % files.length];
      const round = Math.floor(index / files.length);
      const seed = round < edges.length ? edges[round] : freshSeed();
      const result = await runOnce(file, seed, args.timeoutS);
      results.push(result);
      if (!result.ok) {
        console.log(`FAIL ${shortName(file)} seed ${result.seed}: ${replayCommand(file, result.seed)}`);
        for (const line of result.detail.split('\n')) if (line !== '') console.log(`    ${line}`);
      }
      if (performance.now() - lastProgress >= PROGRESS_EVERY_S * 1000) progress();
    }
  };
  await Promise.all(Array.from({ length: args.jobs }, worker));
  progress();
  console.log(formatSweepReport(files, results));
  process.exitCode = results.some((r) => !r.ok) ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
