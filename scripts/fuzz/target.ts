import type { Codec, DecodeResult } from '../../src/schema/codec.js';
import type { SchemaNode } from '../../src/schema/schema.js';
import { sameBytes } from '../bytes.js';
import { diffExact, diffRoundTrip } from './compare.js';
import { hex, show } from './helpers.js';

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

/** An exception that escaped a reader (or a reader reporting it caught one internally). */
export class ReaderCrash extends Error {
  constructor(
    readonly reader: string,
    readonly error: unknown,
  ) {
    super(`${reader} threw: ${error instanceof Error ? (error.stack ?? error.message) : show(error)}`);
  }
}

/** What a target reports through while it runs one input. */
export interface Recorder {
  /** Runs reader `reader` (an index into the target's readers): an exception escaping it is a crash. */
  read<T>(reader: number, fn: () => T): T;
  /** The reader's verdict; a reason naming a swallowed exception counts as a crash. */
  outcome(reader: number, accepted: boolean, reason?: string | null): void;
  /** A semantic check: a returned message or a thrown error (other than a crash) is a failure. */
  check(name: string, fn: () => string | null | undefined): void;
}

export interface CorpusEntry<C> {
  readonly bytes: Uint8Array;
  readonly context: C;
  /** Relative chance of being picked as a base (default 1). */
  readonly weight?: number;
}

export interface Target<C = unknown> {
  readonly name: string;
  readonly description: string;
  readonly readers: readonly string[];
  readonly corpus: readonly CorpusEntry<C>[];
  /** Fix-up of every input before it is run (the envelope re-stamps some CRCs). */
  prepare?(input: Uint8Array, rng: () => number): void;
  run(input: Uint8Array, context: C, iteration: number, r: Recorder): void;
}

export const verdict = (r: DecodeResult<unknown>) => (r.ok ? 'accepted' : `rejected (${r.error})`);

/**
 * A compiled codec and its interpreted twin fed the same input, alternately fresh and into a
 * target object kept across inputs (so decoding into stale, partly filled targets is fuzzed too).
 * When both accept: equal values; the value re-encodes to the same bytes through both codecs and
 * decodes back to itself. Returns the accepted value (or null).
 */
export function runCodecPair(
  schema: SchemaNode,
  compiled: Codec<unknown>,
  interpreted: Codec<unknown>,
  targets: { compiled: unknown; interpreted: unknown },
  input: Uint8Array,
  iteration: number,
  r: Recorder,
  first: number,
  canonical: boolean,
): DecodeResult<unknown> {
  const reuse = (iteration & 1) === 1;
  const c = r.read(first, () => (reuse ? compiled.decode(input, targets.compiled) : compiled.decode(input)));
  r.outcome(first, c.ok, c.ok ? null : c.error);
  const i = r.read(first + 1, () =>
    reuse ? interpreted.decode(input, targets.interpreted) : interpreted.decode(input),
  );
  r.outcome(first + 1, i.ok, i.ok ? null : i.error);
  if (reuse) {
    // Keep what was decoded into (a fresh object when the target was not one) for the next input.
    if (c.ok) targets.compiled = c.value;
    if (i.ok) targets.interpreted = i.value;
  }
  r.check('compiled and interpreted accept alike', () =>
    c.ok === i.ok ? null : `compiled ${verdict(c)}, interpreted ${verdict(i)}`,
  );
  if (!c.ok || !i.ok) return c;
  r.check('compiled and interpreted decode equal values', () => diffExact(schema, c.value, i.value));
  r.check('an accepted value re-encodes and decodes to itself', () => {
    const again = compiled.encode(c.value);
    const twin = interpreted.encode(i.value);
    if (!sameBytes(again, twin)) return `compiled encodes ${hex(again)}, interpreted ${hex(twin)}`;
    if (canonical && !sameBytes(again, input))
      return `accepted input is not the canonical encoding of its value: re-encoded ${again.length} bytes ${hex(again.subarray(0, 64))}…`;
    const back = r.read(first, () => compiled.decode(again));
    if (!back.ok) return `re-encoded value rejected: ${back.error}`;
    const backI = r.read(first + 1, () => interpreted.decode(twin));
    if (!backI.ok) return `re-encoded value rejected by the interpreter: ${backI.error}`;
    return diffRoundTrip(schema, c.value, back.value) ?? diffExact(schema, back.value, backI.value);
  });
  return c;
}

/** Every corpus entry must be accepted: otherwise the harness, not the input, is broken. */
export function assertCorpusAccepted<C>(target: Target<C>): void {
  for (let k = 0; k < target.corpus.length; k++) {
    const entry = target.corpus[k];
    const verdicts: string[] = [];
    target.run(entry.bytes, entry.context, 0, {
      read: (_reader, fn) => fn(),
      outcome: (reader, accepted, reason) => {
        if (!accepted) verdicts.push(`${target.readers[reader]}: ${reason}`);
      },
      check: (name, fn) => {
        const d = fn();
        if (d) verdicts.push(`${name}: ${d}`);
      },
    });
    if (verdicts.length > 0)
      throw new Error(
        `${target.name}: corpus entry ${k} (${hex(entry.bytes)}) fails: ${verdicts.join('; ')}`,
      );
  }
}
