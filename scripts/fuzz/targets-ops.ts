import fc from 'fast-check';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { sameBytes } from '../bytes.js';
import { hex, show } from './helpers.js';
import {
  canonicalProgramArb,
  describeOp,
  type Op,
  type OpValue,
  opValueMismatch,
  programArb,
  runOp,
  writeProgram,
} from './ops.js';
import { assertCorpusAccepted, type CorpusEntry, type Target } from './target.js';

/** Ops whose value after an earlier failure must be the documented neutral one. */
function neutralMismatch(op: Op, value: OpValue): string | null {
  switch (op.op) {
    case 'bits':
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return value === 0 ? null : `${op.op} returned ${show(value)} after a failure (expected 0)`;
    case 'bool':
      return value === false ? null : `bool returned ${show(value)} after a failure`;
    case 'int':
      return Object.is(value, op.min)
        ? null
        : `int returned ${show(value)} after a failure (expected ${op.min})`;
    case 'int64':
      return value === op.min ? null : `int64 returned ${show(value)} after a failure (expected ${op.min})`;
    case 'bits64':
    case 'uint64':
      return value === 0n ? null : `${op.op} returned ${show(value)} after a failure`;
    case 'string':
      return value === '' ? null : `string returned ${show(value)} after a failure`;
    case 'compressedFloat':
      return typeof value === 'number' && value >= op.spec.min && value <= op.spec.max
        ? null
        : `compressedFloat returned ${show(value)} after a failure, outside its range`;
    default:
      return null;
  }
}

interface Program {
  readonly ops: Op[];
  /** Built only of CANONICAL_OPS: an accepted input must be exactly what the writer writes. */
  readonly canonical: boolean;
}

export function opsTarget(seed: number): Target<Program> {
  const entry = (ops: Op[], canonical: boolean): CorpusEntry<Program> => ({
    bytes: writeProgram(ops).bytes,
    context: { ops, canonical },
  });
  const corpus: CorpusEntry<Program>[] = [
    ...fc.sample(programArb, { seed, numRuns: 192 }).map((ops) => entry(ops, false)),
    ...fc.sample(canonicalProgramArb, { seed: seed ^ 1, numRuns: 64 }).map((ops) => entry(ops, true)),
  ];
  const rs = new ReadStream();
  const values: OpValue[] = [];
  const failedBefore: boolean[] = [];
  const target: Target<Program> = {
    name: 'ops',
    description: 'raw ReadStream: random programs of every Stream primitive',
    readers: ['read-stream'],
    corpus,
    run(input, { ops, canonical }, _iteration, r) {
      values.length = ops.length;
      failedBefore.length = ops.length;
      r.read(0, () => {
        rs.reset(input);
        for (let i = 0; i < ops.length; i++) {
          failedBefore[i] = !rs.ok;
          values[i] = runOp(rs, ops[i]);
        }
        rs.end();
      });
      r.outcome(0, rs.ok, rs.error);
      if (!rs.ok) {
        r.check('reads after a failure return neutral values', () => {
          for (let i = 0; i < ops.length; i++) {
            if (!failedBefore[i]) continue;
            const d = neutralMismatch(ops[i], values[i]);
            if (d !== null) return `op ${i} ${describeOp(ops[i])}: ${d}`;
          }
          return null;
        });
        return;
      }
      r.check('accepted values re-write and read back the same', () => {
        const { bytes } = writeProgram(ops, values);
        if (canonical && !sameBytes(bytes, input))
          return `not the writer's encoding: re-written as ${hex(bytes)}`;
        rs.reset(bytes);
        for (let i = 0; i < ops.length; i++) {
          const v = r.read(0, () => runOp(rs, ops[i]));
          const d = rs.ok ? opValueMismatch(ops[i], values[i], v) : `re-written stream rejected: ${rs.error}`;
          if (d !== null) return `op ${i} ${describeOp(ops[i])}: ${d}`;
        }
        return rs.end() ? null : `re-written stream rejected at its end: ${rs.error}`;
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}
