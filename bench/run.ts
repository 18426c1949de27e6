/**
 * `npm run bench` (node --expose-gc dist/bench/run.js): every suite, or one.
 *
 *   --quick          a short run (fewer, shorter rounds)
 *   --only <suite>   run one suite (--help lists them)
 *   --json <file>    also write the results as JSON
 *
 * Prints timings; never fails on speed. A wrong decode or checksum exits non-zero.
 */
import { writeFileSync } from 'node:fs';
import { commandLine } from '../scripts/cli.js';
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
import { runDirectory } from './services/directory.js';
import { runGamerAccounts } from './services/gamer-accounts.js';
import { runMatchmaking } from './services/matchmaking.js';
import { runRooms } from './services/rooms.js';
import { runAead } from './suites/aead.js';
import { runArenaRooms } from './suites/arena-rooms.js';
import { runBackend } from './suites/backend.js';
import { runBitpacker } from './suites/bitpacker.js';
import { runCapacity } from './suites/capacity.js';
import { runClientDecode } from './suites/client-decode.js';
import { runCrc32 } from './suites/crc32.js';
import { runFloat32 } from './suites/float32.js';
import { runGamerProgress } from './suites/gamer-progress.js';
import { runGamerSocial } from './suites/gamer-social.js';
import { runHandshake } from './suites/handshake.js';
import { runInspector } from './suites/inspector.js';
import { runInterest } from './suites/interest.js';
import { runLatency } from './suites/latency.js';
import { runLobby } from './suites/lobby.js';
import { runLockstep } from './suites/lockstep.js';
import { runMeasure } from './suites/measure.js';
import { runMemory } from './suites/memory.js';
import { runMessages } from './suites/messages.js';
import { runP2p } from './suites/p2p.js';
import { runPacket } from './suites/packet.js';
import { runReject } from './suites/reject.js';
import { runReplay } from './suites/replay.js';
import { runRollback } from './suites/rollback.js';
import { runRoomSpectators } from './suites/room-spectators.js';
import { runServerLoad } from './suites/server-load.js';
import { runSpectators } from './suites/spectators.js';
import { runTransports } from './suites/transports.js';
import { runUdp } from './suites/udp.js';
import { runW1 } from './suites/w1.js';
import { runW3 } from './suites/w3.js';
import { runW4 } from './suites/w4.js';
import { runW4Private } from './suites/w4-private.js';
import { runZones } from './suites/zones.js';

const SUITES: Record<string, (ctx: SuiteContext) => void | Promise<void>> = {
  w1: runW1,
  lobby: runLobby,
  w3: runW3,
  bitpacker: runBitpacker,
  float32: runFloat32,
  crc32: runCrc32,
  reject: runReject,
  packet: runPacket,
  udp: runUdp,
  measure: runMeasure,
  aead: runAead,
  handshake: runHandshake,
  serverload: runServerLoad,
  messages: runMessages,
  interest: runInterest,
  memory: runMemory,
  w4: runW4,
  'w4-private': runW4Private,
  inspector: runInspector,
  latency: runLatency,
  rollback: runRollback,
  lockstep: runLockstep,
  transports: runTransports,
  matchmaking: runMatchmaking,
  directory: runDirectory,
  backend: runBackend,
  rooms: runRooms,
  arena: runArenaRooms,
  'client-decode': runClientDecode,
  p2p: runP2p,
  capacity: runCapacity,
  zones: runZones,
  spectators: runSpectators,
  'room-spectators': runRoomSpectators,
  replay: runReplay,
  'gamer-accounts': runGamerAccounts,
  'gamer-progress': runGamerProgress,
  'gamer-social': runGamerSocial,
};

function parseCommandLine(): { quick: boolean; only: string | null; json: string | null } {
  const args = commandLine({
    name: 'npm run bench --',
    description: `Speed and size against peers measured in the same run, medians quoted (figures in BENCHMARKS.md).
On a 2-core machine --quick took 4 min 50 s (2026-11-27), the full run longer; --only runs one suite.`,
    flags: {
      quick: { kind: 'boolean', help: 'fewer rounds and shorter batches (figures are noisier)' },
      only: { arg: 'SUITE', help: `run one suite: ${Object.keys(SUITES).join(', ')}` },
      json: { arg: 'FILE', help: 'also write every figure to FILE as JSON' },
    },
  });
  if (args.only !== undefined && !Object.hasOwn(SUITES, args.only)) {
    console.error(`unknown suite: ${args.only} (known: ${Object.keys(SUITES).join(', ')})`);
    process.exit(2);
  }
  return { quick: args.quick, only: args.only ?? null, json: args.json ?? null };
}

async function main(): Promise<void> {
  const args = parseCommandLine();
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
