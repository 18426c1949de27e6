/**
 * The fuzz core, shared by `npm run fuzz` (scripts/fuzz.ts) and the short seeded run in `npm test`
 * (test/tools/fuzz.test.ts), so the logic exists once:
 *
 * - value models: fast-check arbitraries for schema values and for stream op programs, and
 *   schema-directed comparisons (exact, and "survived a round trip" with quantization tolerances);
 * - targets: every reader of hostile bytes, each with a corpus of valid encodings and the
 *   semantic checks its accepted inputs must pass;
 * - input makers: random buffers and mutations of valid encodings;
 * - the loop, which counts outcomes, samples memory and stops at the first exception that escapes
 *   a reader.
 *
 * Everything is a function of one seed: a run is replayed by its seed, target and iteration count.
 *
 * The code lives in scripts/fuzz/ (helpers, compare, values, ops, target, targets-*, input-maker,
 * report, engine); this module re-exports it so importers keep one path.
 */

export { diffExact, diffRoundTrip } from './fuzz/compare.js';
export { runTarget } from './fuzz/engine.js';
export {
  compressedFloatMismatch,
  compressedFloatTarget,
  compressedFloatTolerance,
  deriveSeed,
  hex,
  sameBytes,
  show,
  smallestThreeMismatch,
  utf8ByteLength,
} from './fuzz/helpers.js';
export { EDGE_NUMBERS, InputMaker } from './fuzz/input-maker.js';
export type { Op, OpValue } from './fuzz/ops.js';
export {
  canonicalProgramArb,
  compressedSpecArb,
  describeOp,
  int64BoundsArb,
  intBoundsArb,
  opAligns,
  opArb,
  opValue,
  opValueMismatch,
  programArb,
  runOp,
  SOUND_COMPRESSED_MAX_INTEGER,
  writeProgram,
} from './fuzz/ops.js';
export type {
  Crash,
  Progress,
  ReaderStats,
  RunOptions,
  SemanticFailure,
  TargetReport,
  TargetReportFields,
} from './fuzz/report.js';
export {
  escapedCrash,
  formatCrash,
  formatFailures,
  guardedRead,
  guardedUpdate,
  newTargetReport,
  normalizeReason,
  recordFailure,
  runMeter,
} from './fuzz/report.js';
export type { CorpusEntry, Recorder, Target } from './fuzz/target.js';
export { ReaderCrash } from './fuzz/target.js';
export type { TargetName } from './fuzz/targets.js';
export { createTarget, TARGET_NAMES } from './fuzz/targets.js';
export { ENVELOPE_PROTOCOL_ID } from './fuzz/targets-envelope.js';
export { KindsSchema } from './fuzz/targets-schema.js';
export { codePointArb, intArb, rotationArb, textArb, valueArb } from './fuzz/values.js';
