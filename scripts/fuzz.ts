/**
 * `npm run fuzz`: random and mutated buffers into every reader of hostile input (see
 * scripts/fuzz-core.ts for the targets, the mutations and the semantic checks), then the `packet`
 * target: two ReliableEndpoints under loss, corruption and injected datagrams (see
 * scripts/packet-fuzz-core.ts; there N counts datagrams, each fed to two readers), then the
 * `netcode` target: random, mutated and replayed datagrams into a netcode Server and a connected
 * Client while real traffic flows (see scripts/netcode-fuzz-core.ts; there N counts injected
 * datagrams, each read by the server or the client), then the `channels` target: hostile channel
 * data into a MessageConnection beside a checked real stream of messages and blocks (see
 * scripts/channel-fuzz-core.ts), then the `replication` target: hostile ghost sections into a
 * ClientMirror beside a real server-to-mirror stream (see scripts/replication-fuzz-core.ts), then
 * the `inputs` target: hostile input entries and reports into the input channel's two ends beside
 * a real stream (see scripts/inputs-fuzz-core.ts), then the `commands` target: hostile client →
 * server command packets into a MessageConnection and a CommandRouter (see
 * scripts/commands-fuzz-core.ts), then the `lockstep` target: hostile peer datagrams into a
 * LockstepSession and a RollbackSession beside an honest peer (see scripts/lockstep-fuzz-core.ts;
 * there N counts hostile datagrams). The stream targets also run the server's steps after each hostile
 * input (update, take, dispatch, writing the next packet): an exception there counts as escaping.
 *
 *   npm run fuzz -- [--iterations N] [--seed S] [--target name[,name]]   (--help for all flags)
 *
 * N is per target (default 1,000,000). The seed defaults to GW_SEED, else a fresh one; it is
 * printed, and a seed with a target and an iteration count replays a run exactly. Exits non-zero on
 * an exception escaping a reader (printed with its seed, target and input), on any failed semantic
 * check, or when the heap grew without bound.
 */
import { pathToFileURL } from 'node:url';
import { CHANNEL_TARGET, formatChannelDetails, runChannelFuzz } from './channel-fuzz-core.js';
import { commandLine, flagValue, int, mb, pct, positiveIntegerFlag, resolveSeed } from './cli.js';
import { COMMANDS_TARGET, runCommandsFuzz } from './commands-fuzz-core.js';
import {
  createTarget,
  formatCrash,
  formatFailures,
  type Progress,
  runTarget,
  TARGET_NAMES,
  type TargetReport,
} from './fuzz-core.js';
import { INPUTS_TARGET, runInputsFuzz } from './inputs-fuzz-core.js';
import { LOCKSTEP_TARGET, runLockstepFuzz } from './lockstep-fuzz-core.js';
import {
  formatNetcodeDetails,
  NETCODE_TARGET,
  type NetcodeFuzzReport,
  runNetcodeFuzz,
} from './netcode-fuzz-core.js';
import {
  formatPacketDetails,
  PACKET_TARGET,
  type PacketFuzzReport,
  runPacketFuzz,
} from './packet-fuzz-core.js';
import { formatReplicationDetails, REPLICATION_TARGET, runReplicationFuzz } from './replication-fuzz-core.js';

const ALL_TARGETS: readonly string[] = [
  ...TARGET_NAMES,
  PACKET_TARGET,
  NETCODE_TARGET,
  CHANNEL_TARGET,
  REPLICATION_TARGET,
  INPUTS_TARGET,
  COMMANDS_TARGET,
  LOCKSTEP_TARGET,
];

const DEFAULT_ITERATIONS = 1_000_000;
/** Heap growth between the 10% mark and the end (both after a GC) that counts as unbounded. */
const HEAP_GROWTH_LIMIT = 32 * 1024 * 1024;

interface Args {
  iterations: number;
  seed: number;
  targets: string[];
}

function parseCommandLine(): Args {
  const args = commandLine({
    name: 'npm run fuzz --',
    description: `Random and mutated inputs into every reader of hostile input; exits non-zero on an escaped exception,
a failed semantic check or unbounded heap growth. The seed is printed and replays the run.`,
    flags: {
      iterations: {
        short: 'n',
        arg: 'N',
        help: `inputs per target (default ${DEFAULT_ITERATIONS.toLocaleString('en-US')}; for ${PACKET_TARGET} and ${NETCODE_TARGET}, datagrams)`,
      },
      target: {
        arg: 'NAME[,NAME]',
        multiple: true,
        help: `targets to run (default all): ${ALL_TARGETS.join(', ')}`,
      },
      seed: { arg: 'S', help: 'uint32 seed (default: GW_SEED, else fresh)' },
    },
  });
  return flagValue(() => {
    const targets = args.target.flatMap((v) => v.split(',')).filter((x) => x !== '');
    for (const name of targets) {
      if (!ALL_TARGETS.includes(name)) {
        throw new Error(`unknown target ${name} (known: ${ALL_TARGETS.join(', ')})`);
      }
    }
    return {
      iterations: positiveIntegerFlag('--iterations', args.iterations, DEFAULT_ITERATIONS),
      seed: resolveSeed(args.seed),
      targets: targets.length > 0 ? targets : [...ALL_TARGETS],
    };
  });
}

function progressPrinter(): (p: Progress) => void {
  const tty = process.stdout.isTTY === true;
  let nextDecile = 1;
  return (p) => {
    const line = `  ${p.target}: ${int(p.done)} / ${int(p.total)} (${pct(p.done, p.total, 1)}), ${int(p.perSecond)} inputs/s`;
    if (tty) process.stdout.write(`\r${line}   `);
    else if (p.done >= (nextDecile * p.total) / 10) {
      console.log(line);
      nextDecile = Math.floor((10 * p.done) / p.total) + 1;
    }
  };
}

function heapBounded(report: TargetReport): boolean {
  return !report.gcUsed || report.heapAtEnd - report.heapAtTenPercent <= HEAP_GROWTH_LIMIT;
}

function isPacketReport(report: TargetReport): report is PacketFuzzReport {
  return report.target === PACKET_TARGET && 'readerInputs' in report;
}

function isNetcodeReport(report: TargetReport): report is NetcodeFuzzReport {
  return report.target === NETCODE_TARGET && 'readerInputs' in report;
}

/**
 * Inputs reader `k` saw: every input for the reader targets; its share of the datagrams for packet
 * and netcode.
 */
function readerInputs(report: TargetReport, k: number): number {
  return isPacketReport(report) || isNetcodeReport(report) ? report.readerInputs[k] : report.iterations;
}

function printReport(report: TargetReport): void {
  const seconds = report.elapsedMs / 1000;
  const corpus = isPacketReport(report)
    ? `corpus: the last ${report.corpusSize / 2} datagrams each side sent`
    : isNetcodeReport(report)
      ? `corpus: ${report.corpusSize / 7} captured packets of each of the 7 types`
      : `corpus ${report.corpusSize}`;
  console.log(
    `target ${report.target}: ${report.description}\n` +
      `  ${int(report.iterations)} inputs (${int(report.randomInputs)} random, ${int(report.mutatedInputs)} mutated; ${corpus}) in ${seconds.toFixed(1)} s, ${int(report.iterations / seconds)} inputs/s`,
  );
  for (const r of report.readers) {
    console.log(
      `  ${r.name.padEnd(18)} accepted ${int(r.accepted).padStart(9)} (random ${int(r.acceptedRandom)}, mutated ${int(r.acceptedMutated)} = ${pct(r.acceptedMutated, report.mutatedInputs, 1)} of mutated)  rejected ${int(r.rejected).padStart(9)}`,
    );
    const top = [...r.reasons].sort((a, b) => b[1] - a[1]).slice(0, 4);
    for (const [reason, count] of top) console.log(`      ${int(count).padStart(9)}  ${reason}`);
  }
  if (isPacketReport(report)) for (const line of formatPacketDetails(report)) console.log(line);
  if (isNetcodeReport(report)) for (const line of formatNetcodeDetails(report)) console.log(line);
  if (report.target === CHANNEL_TARGET) for (const line of formatChannelDetails(report)) console.log(line);
  if (report.target === REPLICATION_TARGET)
    for (const line of formatReplicationDetails(report)) console.log(line);
  console.log(
    `  semantic checks ${int(report.semanticChecks)}, failures ${int(report.semanticFailures)}; heap after 10% ${mb(report.heapAtTenPercent)}, at end ${mb(report.heapAtEnd)}${report.gcUsed ? ' (after GC)' : ' (no --expose-gc: not settled)'}${heapBounded(report) ? '' : ' UNBOUNDED'}`,
  );
  if (report.semanticFailures > 0) console.log(formatFailures(report));
  if (report.crash !== null) console.log(formatCrash(report.crash));
}

function main(): number {
  const args = parseCommandLine();
  const gc = typeof globalThis.gc === 'function' ? () => globalThis.gc?.() : undefined;
  console.log(
    `fuzz: seed ${args.seed} (replay with --seed ${args.seed} or GW_SEED=${args.seed}), ${int(args.iterations)} inputs per target, targets ${args.targets.join(', ')}, node ${process.version}${gc ? '' : ' (run with --expose-gc for settled heap figures)'}`,
  );
  const started = performance.now();
  const reports: TargetReport[] = [];
  const onProgress = progressPrinter();
  for (const name of args.targets) {
    const setup = performance.now();
    let report: TargetReport;
    if (name === PACKET_TARGET) {
      report = runPacketFuzz({ seed: args.seed, datagrams: args.iterations, onProgress, gc });
    } else if (name === NETCODE_TARGET) {
      report = runNetcodeFuzz({ seed: args.seed, datagrams: args.iterations, onProgress, gc });
    } else if (name === CHANNEL_TARGET) {
      report = runChannelFuzz({ seed: args.seed, inputs: args.iterations, onProgress, gc });
    } else if (name === REPLICATION_TARGET) {
      report = runReplicationFuzz({ seed: args.seed, inputs: args.iterations, onProgress, gc });
    } else if (name === INPUTS_TARGET) {
      report = runInputsFuzz({ seed: args.seed, inputs: args.iterations, onProgress, gc });
    } else if (name === COMMANDS_TARGET) {
      report = runCommandsFuzz({ seed: args.seed, inputs: args.iterations, onProgress, gc });
    } else if (name === LOCKSTEP_TARGET) {
      report = runLockstepFuzz({ seed: args.seed, inputs: args.iterations, onProgress, gc });
    } else {
      const target = createTarget(name, args.seed);
      const setupMs = performance.now() - setup;
      console.log(
        `${name}: corpus of ${target.corpus.length} valid encodings built and checked in ${(setupMs / 1000).toFixed(1)} s`,
      );
      report = runTarget(target, { iterations: args.iterations, seed: args.seed, onProgress, gc });
    }
    if (process.stdout.isTTY) process.stdout.write('\r\x1b[K');
    printReport(report);
    reports.push(report);
    if (report.crash !== null) break;
  }

  const total = reports.reduce((sum, r) => sum + r.iterations, 0);
  const crashes = reports.filter((r) => r.crash !== null).length;
  const failures = reports.reduce((sum, r) => sum + r.semanticFailures, 0);
  const unbounded = reports.filter((r) => !heapBounded(r)).map((r) => r.target);
  const peakRss = Math.max(...reports.map((r) => r.peakRss));
  const peakHeap = Math.max(...reports.map((r) => r.peakHeapUsed));
  const seconds = (performance.now() - started) / 1000;
  console.log('\nsummary');
  console.log(
    `  ${'target'.padEnd(10)} ${'reader'.padEnd(18)} ${'inputs'.padStart(10)} ${'accepted'.padStart(10)} ${'rejected'.padStart(10)}`,
  );
  for (const r of reports) {
    r.readers.forEach((reader, k) => {
      console.log(
        `  ${r.target.padEnd(10)} ${reader.name.padEnd(18)} ${int(readerInputs(r, k)).padStart(10)} ${int(reader.accepted).padStart(10)} ${int(reader.rejected).padStart(10)}`,
      );
    });
  }
  console.log(`  inputs ${int(total)} in ${seconds.toFixed(1)} s (${int(total / seconds)} inputs/s overall)`);
  console.log(`  unexpected exceptions: ${crashes}`);
  console.log(`  semantic check failures: ${failures}`);
  console.log(`  peak RSS ${mb(peakRss)}, peak heap used ${mb(peakHeap)} (sampled every 2048 inputs)`);
  console.log(
    `  heap (after 10% -> end, per target): ${reports.map((r) => `${r.target} ${mb(r.heapAtTenPercent)} -> ${mb(r.heapAtEnd)}`).join(', ')}${gc ? '' : ' (not settled: no --expose-gc)'}`,
  );
  console.log(`  heap bounded: ${unbounded.length === 0 ? 'yes' : `NO (${unbounded.join(', ')})`}`);
  const ok = crashes === 0 && failures === 0 && unbounded.length === 0;
  console.log(`  seed ${args.seed}: ${ok ? 'PASS' : 'FAIL'}`);
  return ok ? 0 : 1;
}

// Run only as the entry point, so importing this file (for a test, say) runs nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  }
}
