/**
 * `npm run soak` (second part): the channel soak (see channel-soak-core.ts), then two shorter runs
 * (a fiftieth of the messages each): Fiedler's extremes, and 99% loss for a minute then recovery.
 *   node --expose-gc dist/scripts/channel-soak.js [--messages N] [--seed S]
 * Exits 1 on any violation, 2 on bad flags; the seed is printed and replays the run.
 */
import {
  type ChannelSoakOptions,
  EXTREME_CONDITIONS,
  EXTREME_RUN,
  LOSS_RUN,
  runChannelSoak,
  SOAK_CONDITIONS,
} from './channel-soak-core.js';
import { parseFlags, positiveIntegerFlag, resolveSeed } from './cli.js';

let messages = 100_000;
let seedFlag: string | undefined;
let seed = 0;
try {
  parseFlags(
    process.argv.slice(2),
    {
      '--messages': (v) => {
        messages = positiveIntegerFlag('--messages', v);
      },
      '--seed': (v) => {
        seedFlag = v;
      },
    },
    'usage: node --expose-gc dist/scripts/channel-soak.js [--messages N (100,000)] [--seed S (GW_SEED, else fresh)]',
  );
  seed = resolveSeed(seedFlag);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
const c = SOAK_CONDITIONS;
const x = EXTREME_CONDITIONS;
const few = Math.max(1, Math.ceil(messages / 50));
const runs: { title: string; options: ChannelSoakOptions }[] = [
  {
    title: `${messages.toLocaleString('en-US')} reliable messages each way in bursts of 0-64 plus blocks up to 64 KiB, over ${c.latency} ms latency, ${c.jitter} ms jitter, ${c.loss}% loss, ${c.duplicates}% duplicates`,
    options: { seed, messages },
  },
  {
    title: `${few.toLocaleString('en-US')} messages each way in bursts of 0-2 plus 16 KiB blocks every 20-40 s, over Fiedler's extremes: ${x.latency} ms latency, ${x.jitter} ms jitter, ${x.loss}% loss, ${x.duplicates}% duplicates, default packet-layer settings`,
    options: { ...EXTREME_RUN, seed, messages: few },
  },
  {
    title: `${few.toLocaleString('en-US')} messages each way in bursts of 0-2 plus blocks up to 16 KiB, through 99% loss for 60 s, then recovery`,
    options: { ...LOSS_RUN, seed, messages: few },
  },
];
let failed = false;
for (const run of runs) {
  console.log(`channel soak: ${run.title} (seed ${seed})`);
  const report = runChannelSoak({ ...run.options, gc, progress: (line) => console.log(line) });
  console.log(
    `  delivered ${report.messagesDelivered.toLocaleString('en-US')} messages and ${report.blocksDelivered} blocks (${(report.blockBytesDelivered / 1024).toFixed(0)} KiB), every one acked, in ${report.simulatedSeconds.toFixed(0)} s simulated, ${report.wallSeconds.toFixed(1)} s wall`,
  );
  console.log(
    `  heap after warm-up ${(report.heapAfterWarmup / 1048576).toFixed(1)} MB, at end ${(report.heapAtEnd / 1048576).toFixed(1)} MB${gc ? ' (after GC)' : ''}`,
  );
  for (const v of report.violations.slice(0, 10)) console.log(`  VIOLATION ${v}`);
  console.log(
    report.violations.length === 0
      ? `  every message and block exactly once, in order, byte-identical: PASS (seed ${seed})`
      : `  FAIL (seed ${seed})`,
  );
  if (report.violations.length > 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
