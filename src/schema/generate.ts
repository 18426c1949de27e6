import { bitsRequired } from '../bits/bits-required.js';
import { ALIGN_WORST_CASE } from '../serialize/measure-stream.js';
import {
  Emitter,
  emitDirectTest,
  fieldNames,
  indexPath,
  LOAD_WRITER,
  num,
  ownMember,
  pathOf,
  SYNC_READER,
  SYNC_WRITER,
  str,
} from './generate-emitter.js';
import { emitRead } from './generate-read.js';
import { entityAsInt, type SchemaNode } from './schema.js';
import { fixedBits } from './size.js';

/**
 * Generates JavaScript specialised to one schema (the counterpart of C++ template
 * specialisation of a serialize function): ranges, widths and float constants become literals,
 * loops over fixed-size items check the input length once, and nothing is dispatched at run time.
 * The output is the source of a factory `(k, h) => ({ write, read, measure })` where `k` holds
 * constants (enum values, bigint bounds) and `h` the helper functions.
 *
 * The generated write and read keep the bit state (scratch word, its bit count, word index) in
 * local variables, as a C++ compiler keeps the inlined BitWriter's members in registers, and hand
 * it back to the BitWriter / BitReader (whose field names they rely on) around out-of-line calls
 * and at the end. Capacity and input length are checked once per fixed-size subtree.
 */
export interface GeneratedSource {
  readonly source: string;
  readonly constants: unknown[];
}

/** Enums of up to this many values are looked up by a chain of comparisons. */
const ENUM_CHAIN = 8;
/** The smallest normal float32, 2^-126. */
const F32_MIN_NORMAL = '1.1754943508222875e-38';
const literal = (value: string | number): string => (typeof value === 'string' ? str(value) : num(value));

/**
 * Queues `value` (already known to fit in `bits` bits, 1..32) for packing. Adjacent values of a
 * straight run are fused into one pack of at most 32 bits: the layout is LSB-first, so packing
 * `a | b << bitsOfA` in bitsOfA + bitsOfB bits writes exactly what two packs would.
 */
function emitPack(g: Emitter, value: string, bits: number): void {
  if (g.pendingBits + bits > 32) flushPacks(g);
  const v = g.local('p');
  g.line(`const ${v} = ${value};`);
  g.pending.push({ value: v, bits });
  g.pendingBits += bits;
}

/** Writes the queued values; called before anything that is not straight-line packing. */
function flushPacks(g: Emitter): void {
  if (g.pending.length === 0) return;
  let shift = 0;
  const parts = g.pending.map(({ value, bits }) => {
    const part = shift === 0 ? value : `(${value} << ${shift})`;
    shift += bits;
    return part;
  });
  const bits = g.pendingBits;
  g.pending.length = 0;
  g.pendingBits = 0;
  emitPackNow(g, parts.join(' | '), bits);
}

function emitPackNow(g: Emitter, value: string, bits: number): void {
  const v = g.local('p');
  g.line(`const ${v} = ${value};`);
  g.line(`scratch |= ${v} << sb;`);
  g.line(`sb += ${bits};`);
  // The carry is the top (sb - 32) bits of v; for 32-bit values with nothing carried `v >>> 32` would be v.
  // `| 0` keeps the scratch word a signed 32-bit integer on every path: mixed with the unsigned
  // results of >>>, V8 kept it as a double and converted at every pack (a tenth of W1 encode).
  const carry = bits === 32 ? `sb === 0 ? 0 : (${v} >>> (32 - sb)) | 0` : `(${v} >>> (${bits} - sb)) | 0`;
  g.line(`if (sb >= 32) { words[wi++] = scratch; sb -= 32; scratch = ${carry}; }`);
}

/** Reserves capacity for `bits` more bits (an expression), throwing like BitWriter on overflow. */
function emitReserve(g: Emitter, bits: string): void {
  flushPacks(g);
  g.line(`if (wi * 32 + sb + ${bits} > cap) h.overflow(w, wi * 32 + sb, ${bits});`);
}

function emitWrite(g: Emitter, n: SchemaNode, expr: string, path: string, reserved: boolean): void {
  // An entity reference is written as an int in [-1, ids - 1] (-1: none).
  if (n.kind === 'entity') {
    emitWrite(g, entityAsInt(n), expr, path, reserved);
    return;
  }
  const fixed = fixedBits(n);
  if (!reserved && fixed > 0) {
    emitReserve(g, String(fixed));
    reserved = true;
  }
  switch (n.kind) {
    case 'bool': {
      const x = g.local('b');
      g.line(`const ${x} = ${expr};`);
      g.line(
        `if (${x} !== true && ${x} !== false) h.bad(${path}, 'expected a boolean, got ' + typeof ${x});`,
      );
      emitPack(g, `${x} ? 1 : 0`, 1);
      return;
    }
    case 'int': {
      const x = g.local('x');
      const u = g.local('u');
      const range = n.max - n.min;
      g.line(`const ${x} = ${expr};`);
      g.line(`const ${u} = ${n.min === 0 ? x : `${x} - ${num(n.min)}`};`);
      g.line(
        `if (!(${u} >= 0 && ${u} <= ${range} && Number.isInteger(${x}))) h.bad(${path}, 'int ' + ${x} + ' is outside [${n.min}, ${n.max}] or not an integer');`,
      );
      if (range !== 0) emitPack(g, u, bitsRequired(n.min, n.max));
      return;
    }
    case 'float': {
      const x = g.local('x');
      const q = g.local('q');
      const { spec } = n;
      g.line(`const ${x} = ${expr};`);
      g.line(`if (typeof ${x} !== 'number') h.bad(${path}, 'expected a number, got ' + typeof ${x});`);
      // Outside the range (NaN included): refused, or clamped below when the spec says so.
      g.line(`const ${x}f = Math.fround(${x});`);
      g.line(
        `if (!(${x}f >= ${num(spec.min)} && ${x}f <= ${num(spec.maxDecoded)})) { const why = h.compressedFloatProblem(${x}, ${g.constant(spec)}); if (why !== null) h.bad(${path}, why); }`,
      );
      // serialize STANDARD compressed float, every step rounded to float32 (see compressed-float.ts).
      g.line(`const ${x}n = Math.fround(${x}f - ${num(spec.min)});`);
      if (Number.isInteger(Math.log2(spec.delta))) {
        // Exact unless below the float32 normals, where either value quantizes to 0: unrounded.
        g.line(`let ${q} = ${x}n * ${num(1 / spec.delta)};`);
      } else {
        // The reciprocal's product rounds to the quotient's float32 whenever that is a normal
        // number (docs/serialization.md, "Compressed floats without division"); else divide.
        g.line(`let ${q} = Math.fround(${x}n * ${num(1 / spec.delta)});`);
        g.line(`if (${q} < ${F32_MIN_NORMAL}) ${q} = Math.fround(${x}n / ${num(spec.delta)});`);
      }
      // Without clamping the range test above already refused anything below min (q >= 0).
      if (spec.clamp) g.line(`if (!(${q} >= 0)) ${q} = 0; else if (${q} > 1) ${q} = 1;`);
      else g.line(`if (${q} > 1) ${q} = 1;`);
      const quantized = `Math.floor(Math.fround(Math.fround(${q} * ${num(spec.maxIntegerF32)}) + 0.5))`;
      // Below 2^23 steps the rounding cannot pass maxInteger (see quantize); above, clamp like it.
      emitPack(
        g,
        spec.maxInteger < 2 ** 23 ? quantized : `Math.min(${quantized}, ${spec.maxInteger})`,
        spec.bits,
      );
      return;
    }
    case 'float32': {
      const x = g.local('x');
      g.line(`const ${x} = ${expr};`);
      g.line(`if (typeof ${x} !== 'number') h.bad(${path}, 'expected a number, got ' + typeof ${x});`);
      // An all-ones exponent from a finite number: it overflowed float32 (see float32Problem).
      g.line(`const ${x}b = h.float32ToBits(${x});`);
      g.line(
        `if ((${x}b & 0x7f800000) === 0x7f800000 && ${x} - ${x} === 0) h.bad(${path}, h.float32Problem(${x}));`,
      );
      emitPack(g, `${x}b`, 32);
      return;
    }
    case 'enum': {
      const i = g.local('e');
      if (n.values.length <= ENUM_CHAIN) {
        // A chain of === is inlined where indexOf is a call (a tenth of the lobby encode); both
        // compare strictly, so NaN is never found and -0 finds 0.
        g.line(`const ${i}v = ${expr};`);
        const chain = n.values.map((value, index) => `${i}v === ${literal(value)} ? ${index} : `);
        g.line(`const ${i} = ${chain.join('')}-1;`);
        g.line(`if (${i} < 0) h.bad(${path}, String(${i}v) + ' is not one of the enum values');`);
      } else {
        g.line(`const ${i} = ${g.constant(n.values)}.indexOf(${expr});`);
        g.line(`if (${i} < 0) h.bad(${path}, String(${expr}) + ' is not one of the enum values');`);
      }
      const bits = bitsRequired(0, n.values.length - 1);
      if (bits > 0) emitPack(g, i, bits);
      return;
    }
    case 'object': {
      const o = g.local('o');
      g.line(`const ${o} = ${expr};`);
      g.line(`if (typeof ${o} !== 'object' || ${o} === null) h.bad(${path}, 'expected an object');`);
      const direct = emitDirectTest(g, o, n);
      for (const [key, field] of Object.entries(n.fields)) {
        emitWrite(g, field, ownMember(o, direct, key), pathOf(path, `.${key}`), reserved);
      }
      return;
    }
    case 'array':
    case 'tuple': {
      const a = g.local('a');
      const count = g.local('n');
      g.line(`const ${a} = ${expr};`);
      if (n.kind === 'array') {
        g.line(
          `if (!Array.isArray(${a}) || ${a}.length > ${n.maxLength}) h.bad(${path}, 'expected an array of at most ${n.maxLength} items');`,
        );
        g.line(`const ${count} = ${a}.length;`);
        const bits = bitsRequired(0, n.maxLength);
        if (bits > 0) {
          emitReserve(g, String(bits));
          emitPack(g, count, bits);
        }
        const itemBits = fixedBits(n.item);
        if (itemBits > 0) {
          // Fixed-size items: reserve the whole array once instead of once per item.
          emitReserve(g, `${count} * ${itemBits}`);
          reserved = true;
        }
      } else {
        g.line(
          `if (!(Array.isArray(${a}) || ArrayBuffer.isView(${a})) || ${a}.length !== ${n.length}) h.bad(${path}, 'expected an array of exactly ${n.length} items');`,
        );
        if (n.length <= 4) {
          // Short tuples (vectors, quaternions) unrolled: no loop, constant indices.
          for (let i = 0; i < n.length; i++)
            emitWrite(g, n.item, `${a}[${i}]`, pathOf(path, `[${i}]`), reserved);
          return;
        }
        g.line(`const ${count} = ${n.length};`);
      }
      const i = g.local('i');
      flushPacks(g);
      g.open(`for (let ${i} = 0; ${i} < ${count}; ${i}++) {`);
      emitWrite(g, n.item, `${a}[${i}]`, indexPath(path, i), reserved);
      flushPacks(g);
      g.close();
      return;
    }
    case 'optional': {
      const o = g.local('o');
      g.line(`const ${o} = ${expr};`);
      emitReserve(g, '1');
      g.line(`const ${o}p = ${o} !== undefined && ${o} !== null;`);
      emitPack(g, `${o}p ? 1 : 0`, 1);
      flushPacks(g);
      g.open(`if (${o}p) {`);
      emitWrite(g, n.inner, o, path, false);
      flushPacks(g);
      g.close();
      return;
    }
    case 'string': {
      const s = g.local('s');
      g.line(`const ${s} = ${expr};`);
      emitString(g, n.maxBytes, s, () => emitThroughStream(g, n, s, path));
      return;
    }
    default:
      emitThroughStream(g, n, expr, path);
  }
}

/** Rare or variable-width kinds (and a string the inline path declines) go through the stream's checked method. */
function emitThroughStream(g: Emitter, n: SchemaNode, expr: string, path: string): void {
  flushPacks(g);
  g.line(SYNC_WRITER);
  g.line(`try { h.node(ws, ${g.constant(n)}, ${expr}); } catch (error) { h.rethrow(${path}, error); }`);
  g.line(LOAD_WRITER);
}

/**
 * A string inline, as WriteStream.string writes it (length, align, bytes) with one UTF-8 length
 * pass. Anything unusual (not a string, too long, a lone surrogate or U+0000, near the end of the
 * buffer) takes `fallback`, the stream's own method, so it throws exactly as before.
 */
function emitString(g: Emitter, maxBytes: number, s: string, fallback: () => void): void {
  flushPacks(g);
  const bits = bitsRequired(0, maxBytes);
  const l = `${s}l`;
  // UTF-8 never takes fewer bytes than UTF-16 code units: a longer text is refused unscanned.
  g.line(`const ${l} = typeof ${s} === 'string' && ${s}.length <= ${maxBytes} ? h.utf8Length(${s}) : -1;`);
  g.open(
    `if (${l} < 0 || ${l} > ${maxBytes} || wi * 32 + sb + ${bits + ALIGN_WORST_CASE} + ${l} * 8 > cap) {`,
  );
  fallback();
  g.close();
  g.open('else {');
  if (bits > 0) emitPackNow(g, l, bits);
  // Align: the pad bits are the zeros already above sb in the scratch word.
  g.line(
    `if ((sb & 7) !== 0) { sb = (sb + 7) & ~7; if (sb === 32) { words[wi++] = scratch; scratch = 0; sb = 0; } }`,
  );
  g.open(`if (${l} > 0) {`);
  // Bytes straight into the buffer after the scratch word's whole bytes, then reload the word the
  // bytes end in (its bytes past the end may be stale from an earlier, longer stream: masked off).
  g.line(`if (sb !== 0) words[wi] = scratch;`);
  g.line(`const ${s}o = wi * 4 + (sb >>> 3);`);
  // As many bytes as code units: all ASCII, copied as they are.
  g.line(
    `if (${l} === ${s}.length) for (let j = 0; j < ${l}; j++) bytes[${s}o + j] = charCodeAt.call(${s}, j); else h.utf8Write(${s}, bytes, ${s}o, ${l});`,
  );
  g.line(`const ${s}e = ${s}o + ${l};`);
  g.line(`wi = ${s}e >>> 2; sb = (${s}e & 3) << 3;`);
  g.line(`scratch = sb === 0 ? 0 : words[wi] & ((1 << sb) - 1);`);
  g.close();
  g.close();
}
/** Emits adding the node's measured bits to `bits`. */
function emitMeasure(g: Emitter, n: SchemaNode, expr: string): void {
  const fixed = fixedBits(n);
  if (fixed >= 0) {
    if (fixed > 0) g.line(`bits += ${fixed};`);
    return;
  }
  switch (n.kind) {
    case 'string': {
      const l = g.local('l');
      // A non-string is counted as empty here; the write (and codec.measure's fallback) refuses it.
      g.line(`const ${l}s = ${expr};`);
      g.line(`const ${l} = typeof ${l}s === 'string' ? h.checkedUtf8Length(${l}s, ${n.maxBytes}) : 0;`);
      g.line(`bits += ${bitsRequired(0, n.maxBytes) + ALIGN_WORST_CASE} + ${l} * 8;`);
      return;
    }
    case 'bytes':
      g.line(`bits += ${bitsRequired(0, n.maxLength) + ALIGN_WORST_CASE} + ${expr}.length * 8;`);
      return;
    case 'object': {
      const o = g.local('o');
      g.line(`const ${o} = ${expr};`);
      const direct = emitDirectTest(g, o, n);
      for (const [key, field] of Object.entries(n.fields)) emitMeasure(g, field, ownMember(o, direct, key));
      return;
    }
    case 'array':
    case 'tuple': {
      const a = g.local('a');
      g.line(`const ${a} = ${expr};`);
      if (n.kind === 'array') {
        const bits = bitsRequired(0, n.maxLength);
        if (bits > 0) g.line(`bits += ${bits};`);
      }
      const itemBits = fixedBits(n.item);
      if (itemBits >= 0) {
        g.line(`bits += ${a}.length * ${itemBits};`);
        return;
      }
      const i = g.local('i');
      g.open(`for (let ${i} = 0; ${i} < ${a}.length; ${i}++) {`);
      emitMeasure(g, n.item, `${a}[${i}]`);
      g.close();
      return;
    }
    case 'optional': {
      const o = g.local('o');
      g.line(`const ${o} = ${expr};`);
      g.line('bits += 1;');
      g.open(`if (${o} !== undefined && ${o} !== null) {`);
      emitMeasure(g, n.inner, o);
      g.close();
      return;
    }
    default:
      throw new Error(`generate: no measure for variable-size kind ${n.kind}`);
  }
}

export function generate(root: SchemaNode): GeneratedSource {
  const g = new Emitter();
  const clean = `const OP = Object.prototype, clean = h.prototypeClean(${g.constant([...fieldNames(root)])});`;
  g.lines.push(
    // Captured once (a const the optimiser folds): see utf8.ts on String.prototype in dictionary mode.
    'const charCodeAt = h.charCodeAt;',
    'function write(ws, value) {',
    `  ${clean}`,
    '  const w = ws.writer, words = w.words, bytes = w.bytes, cap = w.capacityBits;',
    '  let scratch = w.scratch | 0, sb = w.scratchBits, wi = w.wordIndex;',
  );
  emitWrite(g, root, 'value', "''", false);
  flushPacks(g);
  g.line(SYNC_WRITER);
  g.lines.push(
    '}',
    'function read(rs, target) {',
    // Without a target every value is new: a separate function, free of the checks on what a
    // target holds, so both stay small and monomorphic.
    '  if (target === undefined) return readFresh(rs);',
    `  ${clean}`,
    '  const r = rs.reader, words = r.words, end = r.totalBits;',
    '  let scratch = r.scratch | 0, sb = r.scratchBits, wi = r.wordIndex;',
  );
  const result = emitRead(g, root, 'target', "''", false);
  g.line(SYNC_READER);
  g.line(`return ${result};`);
  g.lines.push(
    '}',
    'function readFresh(rs) {',
    '  const r = rs.reader, words = r.words, end = r.totalBits;',
    '  let scratch = r.scratch | 0, sb = r.scratchBits, wi = r.wordIndex;',
  );
  g.fresh = true;
  const fresh = emitRead(g, root, 'undefined', "''", false);
  g.fresh = false;
  g.line(SYNC_READER);
  g.line(`return ${fresh};`);
  g.lines.push('}', 'function measure(value) {', `  ${clean}`, '  let bits = 0;');
  emitMeasure(g, root, 'value');
  g.line('return bits;');
  g.lines.push('}', 'return { write, read, measure };');
  return { source: g.lines.join('\n'), constants: g.constants };
}
