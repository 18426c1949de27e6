/**
 * W1: encode and decode the whole 1000-entity game state, every contestant in bench/w1/contestants.ts,
 * interleaved. Each contestant's output is decoded and checked against the input once before timing;
 * every timed batch is checked by size (encode) or digest (decode).
 */
import { check, fmt, measure, type SuiteContext, type Task } from '../harness.js';
import { codecTasks } from '../support/codec-tasks.js';
import { GHOSTWIRE_STREAM, GHOSTWIRE_STREAM_COMPILED, W1_CONTESTANTS } from '../w1/contestants.js';
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

  const median = (list: typeof results, name: string) => list.find((r) => r.name === name)?.median;
  const encode = median(encodeResults, baseline) as number;
  const decode = median(decodeResults, baseline) as number;
  const [eLow, eHigh] = NATIVE_ENCODE_NS;
  const [dLow, dHigh] = NATIVE_DECODE_NS;
  const toNative = {
    encode: [encode / eHigh, encode / eLow],
    decode: [decode / dHigh, decode / dLow],
  };
  ctx.record('nativeRatio', toNative);
  const range = ([a, b]: number[]) => `${a.toFixed(1)}-${b.toFixed(1)}x`;
  ctx.note(
    `${baseline} vs native C++ -O3 -march=native (${eLow}-${eHigh} / ${dLow}-${dHigh} ns/entity, measured outside the repo): encode ${range(toNative.encode)}, decode ${range(toNative.decode)} (target <= 2x)`,
  );
  for (const name of [GHOSTWIRE_STREAM, GHOSTWIRE_STREAM_COMPILED]) {
    const e = median(encodeResults, name);
    const d = median(decodeResults, name);
    if (e === undefined || d === undefined) continue;
    ctx.record(`streamRatio ${name}`, { encode: e / encode, decode: d / decode });
    ctx.note(
      `${name} vs ${baseline}: encode ${(e / encode).toFixed(2)}x, decode ${(d / decode).toFixed(2)}x the time (target <= 1.5x)`,
    );
  }
}

/**
 * The reference C++ bitpacker (serialize 1.11.0, GCC 12, -O3 -march=native) on W1, ns/entity,
 * measured side by side on this machine class (issue 16; ../shared/workloads/W1.md): the anchor
 * the compiled codec's ratio is quoted against, since native code is not built here.
 */
const NATIVE_ENCODE_NS = [12.0, 12.8];
const NATIVE_DECODE_NS = [10.5, 11.0];
