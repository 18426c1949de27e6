/**
 * W1: encode and decode the whole 1000-entity game state, every contestant in bench/w1/contestants.ts,
 * interleaved. Each contestant's output is decoded and checked against the input once before timing;
 * every timed batch is checked by size (encode) or digest (decode).
 */
import { check, fmt, measure, type SuiteContext, type Task } from '../harness.js';
import { codecTasks } from '../support/codec-tasks.js';
import { GHOSTWIRE_STREAM, W1_CONTESTANTS } from '../w1/contestants.js';
import { generateW1, W1_ENTITIES } from '../w1/data.js';
import { digestW1, verifyW1 } from '../w1/verify.js';

/** The reference bitpacker's packet for W1 (W1.md): the hand-written stream must match it in size. */
const W1_REFERENCE_BYTES = 18502;

export function runW1(ctx: SuiteContext): void {
  const state = generateW1();
  const entities = state.entities.length;
  check(entities === W1_ENTITIES, `W1 generated ${entities} entities`);
  const expectedDigest = digestW1(state);
  const contestants = W1_CONTESTANTS.map((make) => make());
  const baseline = contestants[0].name;

  const sizes: Record<string, number> = {};
  const encodeTasks: Task[] = [];
  const decodeTasks: Task[] = [];
  const precisionNotes: string[] = [];
  for (const c of contestants) {
    c.prepare(state);
    // Checked once, untimed: the encoding decodes back to the input, and is the same every time.
    const tasks = codecTasks(c, entities, expectedDigest);
    const first = tasks.first;
    const decoded = c.decode(first);
    const worst = verifyW1(c.name, state, c.toState(decoded), c.precision);
    const digest = c.digest(decoded);
    check(digest === expectedDigest, `${c.name}: decoded digest ${digest}, expected ${expectedDigest}`);
    sizes[c.name] = first.length;
    precisionNotes.push(
      c.precision === 'quantized'
        ? `${c.name}: floats within ${(worst * 100).toFixed(1)}% of half the resolution (worst case)`
        : `${c.name}: floats ${c.precision === 'exact' ? 'exact (float64)' : 'exact as float32'}`,
    );

    encodeTasks.push(tasks.encode);
    decodeTasks.push(tasks.decode);
  }
  if (sizes[GHOSTWIRE_STREAM] !== undefined) {
    check(
      sizes[GHOSTWIRE_STREAM] === W1_REFERENCE_BYTES,
      `${GHOSTWIRE_STREAM}: ${sizes[GHOSTWIRE_STREAM]} bytes, the reference writes ${W1_REFERENCE_BYTES}`,
    );
  }

  // One interleaved run: every encode and every decode is a contestant in each round.
  const results = measure([...encodeTasks, ...decodeTasks], ctx.options);
  const encodeResults = results.slice(0, encodeTasks.length);
  const decodeResults = results.slice(encodeTasks.length);

  const bytesPerEntity: Record<string, string> = {};
  const totalBytes: Record<string, string> = {};
  const sizeRatio: Record<string, string> = {};
  for (const c of contestants) {
    bytesPerEntity[c.name] = fmt(sizes[c.name] / entities);
    totalBytes[c.name] = String(sizes[c.name]);
    sizeRatio[c.name] = `${(sizes[c.name] / sizes[baseline]).toFixed(2)}x`;
  }
  const sizeColumns = [
    { header: 'bytes/entity', values: bytesPerEntity },
    { header: 'bytes', values: totalBytes },
    { header: `size vs ${baseline}`, values: sizeRatio },
  ];
  ctx.record('bytes', sizes);
  ctx.table({
    title: `W1 encode: whole ${entities}-entity state per iteration`,
    unit: 'entity',
    baseline,
    results: encodeResults,
    columns: sizeColumns,
  });
  ctx.table({
    title: `W1 decode: whole ${entities}-entity state per iteration`,
    unit: 'entity',
    baseline,
    results: decodeResults,
    columns: [sizeColumns[0]],
    notes: [
      'Each decode was checked against the input before timing:',
      ...precisionNotes.map((n) => `  ${n}`),
      'What is measured:',
      ...contestants.map((c) => `  ${c.name}: ${c.description}`),
    ],
  });
}
