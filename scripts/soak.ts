/**
 * `npm run soak`: two ReliableEndpoints over a MemoryNetwork wrapped in seeded NetworkSimulators,
 * both directions, until N packets each way have been sent and every one has its outcome (see
 * scripts/packet-soak-core.ts for the payload pattern and the checks).
 *
 *   node --expose-gc dist/scripts/soak.js [--packets N] [--seed S] [--loss %] [--per-tick K]
 *
 * The seed defaults to GW_SEED, else a fresh one; it is printed, and the seed with the same flags
 * replays a run exactly. Exits 1 on any violation (corrupted or repeated delivery, a false ack, a
 * packet without exactly one outcome, counters that do not add up, heap growth), 2 on bad flags.
 */
import { pathToFileURL } from 'node:url';
import { int, numberFlag, parseFlags, positiveIntegerFlag, resolveSeed } from './cli.js';
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

interface Args {
  packets: number;
  seed: number;
  loss: number;
  perTick: number;
}

function usage(): string {
  return `usage: node --expose-gc dist/scripts/soak.js [--packets N] [--seed S] [--loss %] [--per-tick K]
  N: packets per direction (default ${int(DEFAULT_PACKETS)})
  S: uint32 seed (default: GW_SEED, else fresh)
  %: datagram loss per direction, percent (default ${DEFAULT_SOAK_CONDITIONS.loss})
  K: packets each side sends per 1/60 s tick (default ${DEFAULT_SOAK_PACKETS_PER_TICK})`;
}

function parseArgs(argv: string[]): Args {
  let packets = DEFAULT_PACKETS;
  let loss = DEFAULT_SOAK_CONDITIONS.loss ?? 5;
  let perTick = DEFAULT_SOAK_PACKETS_PER_TICK;
  let seed: string | undefined;
  const setPackets = (v: string) => {
    packets = positiveIntegerFlag('--packets', v);
  };
  parseFlags(
    argv,
    {
      '--packets': setPackets,
      '-n': setPackets,
      '--seed': (v) => {
        seed = v;
      },
      '--loss': (v) => {
        loss = numberFlag(v);
        if (!(loss >= 0 && loss <= 100)) throw new Error('--loss must be a percentage in [0, 100]');
      },
      '--per-tick': (v) => {
        perTick = positiveIntegerFlag('--per-tick', v);
      },
    },
    usage(),
  );
  return { packets, loss, perTick, seed: resolveSeed(seed) };
}

function progressPrinter(): (p: SoakProgress) => void {
  const tty = process.stdout.isTTY === true;
  return (p) => {
    const line = `  ${int(p.done)} / ${int(p.total)} per direction (${((100 * p.done) / p.total).toFixed(0)}%), ${int(p.perSecond)} packets/s, ${p.simulatedSeconds.toFixed(0)} s simulated, violations ${p.violations}`;
    if (tty) process.stdout.write(`\r${line}   `);
    else console.log(line);
  };
}

function main(): number {
  const args = parseArgs(process.argv.slice(2));
  const gc = typeof globalThis.gc === 'function' ? () => globalThis.gc?.() : undefined;
  const conditions = { ...DEFAULT_SOAK_CONDITIONS, loss: args.loss };
  const replay = `node --expose-gc dist/scripts/soak.js --seed ${args.seed} --packets ${args.packets} --loss ${args.loss} --per-tick ${args.perTick}`;
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

// Run only as the entry point, so importing this file runs nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  }
}
