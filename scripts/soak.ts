/**
 * `npm run soak`: both soaks, each flag reaching the part it belongs to.
 *
 * Packet part: two ReliableEndpoints over a MemoryNetwork wrapped in seeded NetworkSimulators,
 * both directions, until N packets each way have been sent and every one has its outcome (see
 * scripts/packet-soak-core.ts for the payload pattern and the checks). Channel part: reliable
 * messages and blocks both ways through MessageServer / MessageClient over a hostile link (see
 * scripts/channel-soak-core.ts).
 *
 *   npm run soak -- [--part packet|channel] [--packets N] [--loss %] [--per-tick K] [--messages M] [--seed S]
 *
 * The seed defaults to GW_SEED, else a fresh one; it is printed, and the seed with the same flags
 * replays a run exactly. Exits 1 on any violation (corrupted or repeated delivery, a false ack, a
 * packet without exactly one outcome, counters that do not add up, heap growth, a message not
 * delivered exactly once in order), 2 on bad flags.
 */
import { pathToFileURL } from 'node:url';
import {
  type ChannelSoakOptions,
  EXTREME_CONDITIONS,
  EXTREME_RUN,
  LOSS_RUN,
  runChannelSoak,
  SOAK_CONDITIONS,
} from './channel-soak-core.js';
import { commandLine, flagValue, int, positiveIntegerFlag, rangeFlag, resolveSeed } from './cli.js';
import {
  DEFAULT_SOAK_CONDITIONS,
  DEFAULT_SOAK_PACKETS_PER_TICK,
  DEFAULT_SOAK_SMALL_SHARE,
  describeConditions,
  formatSoakReport,
  runSoak,
  type SoakProgress,
} from './packet-soak-core.js';

/** Per direction: about 32 s on the project's 2-core machine class (~125,000 packets/s both ways). */
const DEFAULT_PACKETS = 2_000_000;

const DEFAULT_MESSAGES = 100_000;
const PARTS = ['packet', 'channel'] as const;

interface Args {
  parts: (typeof PARTS)[number][];
  packets: number;
  seed: number;
  loss: number;
  perTick: number;
  messages: number;
}

function parseCommandLine(): Args {
  const args = commandLine({
    name: 'npm run soak --',
    description: `The packet soak (about 30 s at the defaults on a 2-core machine), then the channel soaks: a lossy link,\nFiedler's extremes (10 s ± 2 s one way), and a minute of 99% loss then recovery (about 10 s together).
Every payload, ack, message and block is checked; the seed is printed and replays the run.`,
    flags: {
      part: { arg: 'NAME', help: `run one part only: ${PARTS.join(' or ')} (default both)` },
      packets: {
        short: 'n',
        arg: 'N',
        help: `packet part: packets per direction (default ${int(DEFAULT_PACKETS)})`,
      },
      loss: {
        arg: '%',
        help: `packet part: datagram loss per direction (default ${DEFAULT_SOAK_CONDITIONS.loss})`,
      },
      'per-tick': {
        arg: 'K',
        help: `packet part: packets each side sends per 1/60 s tick (default ${DEFAULT_SOAK_PACKETS_PER_TICK})`,
      },
      messages: {
        arg: 'M',
        help: `channel part: reliable messages each way (default ${int(DEFAULT_MESSAGES)}; a fiftieth of it in the extreme runs)`,
      },
      seed: { arg: 'S', help: 'uint32 seed for both parts (default: GW_SEED, else fresh)' },
    },
  });
  return flagValue(() => {
    const part = args.part;
    if (part !== undefined && !(PARTS as readonly string[]).includes(part))
      throw new Error(`--part must be ${PARTS.join(' or ')}, got ${part}`);
    return {
      parts: part === undefined ? [...PARTS] : [part as (typeof PARTS)[number]],
      packets: positiveIntegerFlag('--packets', args.packets, DEFAULT_PACKETS),
      loss: rangeFlag('--loss', args.loss, DEFAULT_SOAK_CONDITIONS.loss ?? 5, 0, 100),
      perTick: positiveIntegerFlag('--per-tick', args['per-tick'], DEFAULT_SOAK_PACKETS_PER_TICK),
      messages: positiveIntegerFlag('--messages', args.messages, DEFAULT_MESSAGES),
      seed: resolveSeed(args.seed),
    };
  });
}

function progressPrinter(): (p: SoakProgress) => void {
  const tty = process.stdout.isTTY === true;
  return (p) => {
    const line = `  ${int(p.done)} / ${int(p.total)} per direction (${((100 * p.done) / p.total).toFixed(0)}%), ${int(p.perSecond)} packets/s, ${p.simulatedSeconds.toFixed(0)} s simulated, violations ${p.violations}`;
    if (tty) process.stdout.write(`\r${line}   `);
    else console.log(line);
  };
}

function packetSoak(args: Args): number {
  const gc = typeof globalThis.gc === 'function' ? () => globalThis.gc?.() : undefined;
  const conditions = { ...DEFAULT_SOAK_CONDITIONS, loss: args.loss };
  const replay = `npm run soak -- --part packet --seed ${args.seed} --packets ${args.packets} --loss ${args.loss} --per-tick ${args.perTick}`;
  console.log(
    `soak: seed ${args.seed} (replay: ${replay}), ${int(args.packets)} packets per direction, ${args.perTick} per side per 1/60 s tick, node ${process.version}${gc ? '' : ' (run with --expose-gc for settled heap figures)'}`,
  );
  console.log(`  each direction: ${describeConditions(conditions)}`);
  console.log(
    `  payloads: ${DEFAULT_SOAK_SMALL_SHARE * 100}% in [1, 1024] bytes, the rest in [1, 16384] (fragments of 1024); bytes a function of (seed, direction, packet id); default ReliableConfig`,
  );
  const report = runSoak({
    seed: args.seed,
    packets: args.packets,
    packetsPerTick: args.perTick,
    conditions,
    gc,
    onProgress: progressPrinter(),
  });
  if (process.stdout.isTTY) process.stdout.write('\r\x1b[K');
  console.log(formatSoakReport(report));
  if (!report.ok) console.log(`  replay: ${replay}`);
  return report.ok ? 0 : 1;
}

function channelSoak(args: Args): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  const { seed, messages } = args;
  const c = SOAK_CONDITIONS;
  const x = EXTREME_CONDITIONS;
  const few = Math.max(1, Math.ceil(messages / 50));
  const runs: { title: string; options: ChannelSoakOptions }[] = [
    {
      title: `${int(messages)} reliable messages each way in bursts of 0-64 plus blocks up to 64 KiB, over ${c.latencyMs} ms latency, ${c.jitterMs} ms jitter, ${c.loss}% loss, ${c.duplicates}% duplicates`,
      options: { seed, messages },
    },
    {
      title: `${int(few)} messages each way in bursts of 0-2 plus 16 KiB blocks every 20-40 s, over Fiedler's extremes: ${x.latencyMs} ms latency, ${x.jitterMs} ms jitter, ${x.loss}% loss, ${x.duplicates}% duplicates, default packet-layer settings`,
      options: { ...EXTREME_RUN, seed, messages: few },
    },
    {
      title: `${int(few)} messages each way in bursts of 0-2 plus blocks up to 16 KiB, through 99% loss for 60 s, then recovery`,
      options: { ...LOSS_RUN, seed, messages: few },
    },
  ];
  let failed = false;
  for (const run of runs) {
    console.log(
      `channel soak: ${run.title} (seed ${seed}; replay: npm run soak -- --part channel --messages ${messages} --seed ${seed})`,
    );
    const report = runChannelSoak({ ...run.options, gc, progress: (line) => console.log(line) });
    console.log(
      `  delivered ${int(report.messagesDelivered)} messages and ${report.blocksDelivered} blocks (${(report.blockBytesDelivered / 1024).toFixed(0)} KiB), every one acked, in ${report.simulatedSeconds.toFixed(0)} s simulated, ${report.wallSeconds.toFixed(1)} s wall`,
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
  return failed ? 1 : 0;
}

function main(): number {
  const args = parseCommandLine();
  let status = 0;
  if (args.parts.includes('packet')) status = Math.max(status, packetSoak(args));
  if (args.parts.includes('channel')) status = Math.max(status, channelSoak(args));
  return status;
}

// Run only as the entry point, so importing this file runs nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  }
}
