/**
 * `npm run bench` (node --expose-gc dist/bench/run.js): every suite, or one.
 *
 *   --quick          a short run (fewer, shorter rounds)
 *   --only <suite>   run one suite: w1, bitpacker, crc32, reject, measure
 *   --json <file>    also write the results as JSON
 *
 * Prints timings; never fails on speed. A wrong decode or checksum exits non-zero.
 */
import { writeFileSync } from 'node:fs';
import {
  BenchFailure,
  collectAllGarbage,
  createSuiteContext,
  FULL_OPTIONS,
  machineInfo,
  QUICK_OPTIONS,
  type SuiteContext,
  type SuiteReport,
  sinkChecksum,
} from './harness.js';
import { runAead } from './suites/aead.js';
import { runBitpacker } from './suites/bitpacker.js';
import { runCrc32 } from './suites/crc32.js';
import { runHandshake } from './suites/handshake.js';
import { runMeasure } from './suites/measure.js';
import { runMessages } from './suites/messages.js';
import { runPacket } from './suites/packet.js';
import { runReject } from './suites/reject.js';
import { runServerLoad } from './suites/server-load.js';
import { runUdp } from './suites/udp.js';
import { runW1 } from './suites/w1.js';

const SUITES: Record<string, (ctx: SuiteContext) => void | Promise<void>> = {
  w1: runW1,
  bitpacker: runBitpacker,
  crc32: runCrc32,
  reject: runReject,
  packet: runPacket,
  udp: runUdp,
  measure: runMeasure,
  aead: runAead,
  handshake: runHandshake,
  serverload: runServerLoad,
  messages: runMessages,
};

function usage(message: string): never {
  console.error(
    `${message}\nusage: run.js [--quick] [--only ${Object.keys(SUITES).join('|')}] [--json <file>]`,
  );
  process.exit(2);
}

function parseArgs(argv: string[]): { quick: boolean; only: string | null; json: string | null } {
  let quick = false;
  let only: string | null = null;
  let json: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--only') only = argv[++i] ?? usage('--only needs a suite name');
    else if (arg === '--json') json = argv[++i] ?? usage('--json needs a file name');
    else usage(`unknown argument: ${arg}`);
  }
  if (only !== null && !(only in SUITES)) usage(`unknown suite: ${only}`);
  return { quick, only, json };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const options = args.quick ? QUICK_OPTIONS : FULL_OPTIONS;
  const machine = machineInfo();
  console.log('ghostwire bench');
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.platform}`);
  console.log(`runtime: Node ${machine.node}, V8 ${machine.v8}`);
  console.log(
    `mode: ${args.quick ? 'quick' : 'full'} (${options.warmup} warm-up + ${options.rounds} measured rounds, ~${options.targetMs} ms per batch, contestants interleaved, median quoted)`,
  );
  console.log(
    machine.gcExposed
      ? 'GC: a young-generation collection before every timed batch, a full one between suites (--expose-gc)'
      : 'GC: not exposed (run node with --expose-gc to collect before every timed batch)',
  );
  console.log('"time vs X" = median time / X median time: above 1 is slower than X.\n');

  const started = performance.now();
  const suites: Record<string, SuiteReport> = {};
  const failures: string[] = [];
  for (const [name, run] of Object.entries(SUITES)) {
    if (args.only !== null && args.only !== name) continue;
    console.log(`=== ${name} ===`);
    const report: SuiteReport = { tables: [], notes: [], values: {}, seconds: 0 };
    suites[name] = report;
    collectAllGarbage();
    const suiteStart = performance.now();
    try {
      await run(createSuiteContext(options, report));
    } catch (error) {
      const message =
        error instanceof BenchFailure ? error.message : String((error as Error)?.stack ?? error);
      report.failure = message;
      failures.push(`${name}: ${message}`);
      console.log(`FAILED: ${message}\n`);
    }
    report.seconds = (performance.now() - suiteStart) / 1000;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`total ${seconds.toFixed(1)} s; checksum sink ${sinkChecksum()}`);

  if (args.json !== null) {
    const output = { machine, mode: args.quick ? 'quick' : 'full', options, seconds, suites, failures };
    writeFileSync(args.json, `${JSON.stringify(output, null, 2)}\n`);
    console.log(`results written to ${args.json}`);
  }
  if (failures.length > 0) {
    console.log(`\n${failures.length} suite(s) FAILED:\n${failures.map((f) => `  ${f}`).join('\n')}`);
    process.exitCode = 1;
  }
}

await main();
