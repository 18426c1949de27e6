import { bitsRequired } from '../bits/bits-required.js';
import { ALIGN_WORST_CASE } from '../serialize/measure-stream.js';
import type { SchemaNode } from './schema.js';
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

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

class Emitter {
  readonly lines: string[] = [];
  /** Write side: values queued to be packed together (their bits sum to at most 32). */
  readonly pending: { value: string; bits: number }[] = [];
  pendingBits = 0;
  /** Read side: the leaf widths of the fused run being read, and where the reading is in it. */
  plan: ReadPlan | null = null;
  readonly constants: unknown[] = [];
  private next = 0;
  private depth = 1;

  local(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `k[${this.constants.length - 1}]`;
  }

  line(text: string): void {
    this.lines.push('  '.repeat(this.depth) + text);
  }

  open(text: string): void {
    this.line(text);
    this.depth++;
  }

  close(text = '}'): void {
    this.depth--;
    this.line(text);
  }
}

/** `/ d`, or the exact and cheaper `* (1 / d)` when d is a power of two. */
const divideBy = (d: number): string => (Number.isInteger(Math.log2(d)) ? `* ${num(1 / d)}` : `/ ${num(d)}`);
/** A number as an exact JavaScript literal (shortest round-tripping form). */
const num = (x: number): string => (Object.is(x, -0) ? '-0' : x < 0 ? `(${x})` : String(x));
const str = (text: string): string => JSON.stringify(text);
const member = (object: string, key: string): string =>
  IDENTIFIER.test(key) ? `${object}.${key}` : `${object}[${str(key)}]`;
/**
 * Fields are read as own properties only, so an inherited one (prototype pollution) counts as
 * absent. Object.hasOwn per field nearly doubled W1 encode time, so it runs only where it can
 * matter: `clean` (once per call) says no field name of the schema is on Object.prototype, and
 * then an object whose prototype is Object.prototype or null cannot inherit a field. Loading one
 * field first gives the optimiser the object's map, so it folds getPrototypeOf to a constant
 * (without it the test cost 8 ns per entity in W1 encode).
 */
function emitDirectTest(
  g: Emitter,
  o: string,
  n: SchemaNode & { kind: 'object' },
  maybeNull = false,
): string {
  const direct = `${o}d`;
  const first = Object.keys(n.fields)[0];
  if (first === undefined) {
    g.line(`const ${direct} = false;`);
    return direct;
  }
  g.line(`let ${direct} = false;`);
  g.open(maybeNull ? `if (${o} !== null) {` : '{');
  g.line(`${member(o, first)};`);
  g.line(`const p = Object.getPrototypeOf(${o});`);
  g.line(`${direct} = clean && (p === OP || p === null);`);
  g.close();
  return direct;
}
const ownMember = (object: string, direct: string, key: string): string =>
  `(${direct} || Object.hasOwn(${object}, ${str(key)}) ? ${member(object, key)} : undefined)`;

/** Every field name in the schema, for the once-per-call prototype test. */
function fieldNames(n: SchemaNode, out = new Set<string>()): Set<string> {
  if (n.kind === 'object') {
    for (const [key, field] of Object.entries(n.fields)) {
      out.add(key);
      fieldNames(field, out);
    }
  } else if (n.kind === 'array' || n.kind === 'tuple') fieldNames(n.item, out);
  else if (n.kind === 'optional') fieldNames(n.inner, out);
  return out;
}
/** Appends a path segment to a path expression (evaluated only when an error is raised). */
const pathOf = (path: string, segment: string): string =>
  path === "''" ? str(segment) : `${path} + ${str(segment)}`;
const indexPath = (path: string, index: string): string =>
  `${path === "''" ? '' : `${path} + `}'[' + ${index} + ']'`;

const SYNC_WRITER = 'w.scratch = scratch; w.scratchBits = sb; w.wordIndex = wi;';
const LOAD_WRITER = 'scratch = w.scratch; sb = w.scratchBits; wi = w.wordIndex;';
const SYNC_READER = 'r.scratch = scratch; r.scratchBits = sb; r.wordIndex = wi; r.bitsRead = wi * 32 - sb;';
const LOAD_READER = 'scratch = r.scratch; sb = r.scratchBits; wi = r.wordIndex;';

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
  const carry = bits === 32 ? `sb === 0 ? 0 : ${v} >>> (32 - sb)` : `${v} >>> (${bits} - sb)`;
  g.line(`if (sb >= 32) { words[wi++] = scratch; sb -= 32; scratch = ${carry}; }`);
}

/** Reserves capacity for `bits` more bits (an expression), throwing like BitWriter on overflow. */
function emitReserve(g: Emitter, bits: string): void {
  flushPacks(g);
  g.line(`if (wi * 32 + sb + ${bits} > cap) h.overflow(w, wi * 32 + sb, ${bits});`);
}

function emitWrite(g: Emitter, n: SchemaNode, expr: string, path: string, reserved: boolean): void {
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
      g.line(`let ${q} = Math.fround(Math.fround(${x}f - ${num(spec.min)}) ${divideBy(spec.delta)});`);
      g.line(`if (!(${q} >= 0)) ${q} = 0; else if (${q} > 1) ${q} = 1;`);
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
      g.line(`const ${i} = ${g.constant(n.values)}.indexOf(${expr});`);
      g.line(`if (${i} < 0) h.bad(${path}, String(${expr}) + ' is not one of the enum values');`);
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
    default:
      // Rare or variable-width kinds go through the stream's own checked method.
      flushPacks(g);
      g.line(SYNC_WRITER);
      g.line(`try { h.node(ws, ${g.constant(n)}, ${expr}); } catch (error) { h.rethrow(${path}, error); }`);
      g.line(LOAD_WRITER);
  }
}

/** Unpacks `bits` bits (1..32) from the local scratch word into a new local; returns its name. */
function emitUnpack(g: Emitter, bits: number): string {
  const u = g.local('u');
  if (bits === 32) {
    // The scratch word holds 0..31 bits, so 32 bits always take one new word; sb stays the same.
    g.line(`const ${u}w = words[wi++];`);
    g.line(`const ${u} = (scratch | (${u}w << sb)) >>> 0;`);
    g.line(`scratch = sb === 0 ? 0 : ${u}w >>> (32 - sb);`);
    return u;
  }
  const mask = 2 ** bits - 1;
  g.line(`let ${u};`);
  g.line(`if (sb >= ${bits}) { ${u} = scratch & ${mask}; scratch >>>= ${bits}; sb -= ${bits}; }`);
  g.line(
    `else { const word = words[wi++]; ${u} = (scratch | (word << sb)) & ${mask}; scratch = word >>> (${bits} - sb); sb += ${32 - bits}; }`,
  );
  return u;
}

interface ReadPlan {
  readonly widths: number[];
  cursor: number;
  group: string;
  groupBits: number;
  groupEnd: number;
  offset: number;
}

/** Leaf widths of a fixed-size, loop-free subtree made only of kinds read inline, or null. */
function fusableWidths(n: SchemaNode, out: number[] = []): number[] | null {
  switch (n.kind) {
    case 'bool':
      out.push(1);
      return out;
    case 'int':
    case 'enum': {
      const bits = n.kind === 'int' ? bitsRequired(n.min, n.max) : bitsRequired(0, n.values.length - 1);
      if (bits > 0) out.push(bits);
      return out;
    }
    case 'float':
      out.push(n.spec.bits);
      return out;
    case 'float32':
      out.push(32);
      return out;
    case 'object':
      for (const field of Object.values(n.fields)) if (fusableWidths(field, out) === null) return null;
      return out;
    case 'tuple':
      if (n.length > 4) return null;
      for (let i = 0; i < n.length; i++) if (fusableWidths(n.item, out) === null) return null;
      return out;
    default:
      return null;
  }
}

/**
 * The raw bits of the next leaf. Inside a fused run the leaves are read a group at a time (as
 * many consecutive leaves as fit in 32 bits, one unpack) and split with shifts and masks.
 */
function takeRaw(g: Emitter, bits: number): string {
  const plan = g.plan;
  if (plan === null) return emitUnpack(g, bits);
  if (plan.widths[plan.cursor] !== bits) throw new Error('generate: read plan out of step with the schema');
  if (plan.cursor === plan.groupEnd) {
    let total = 0;
    let end = plan.cursor;
    while (end < plan.widths.length && total + plan.widths[end] <= 32) total += plan.widths[end++];
    plan.group = emitUnpack(g, total);
    plan.groupBits = total;
    plan.groupEnd = end;
    plan.offset = 0;
  }
  const { group, offset, groupBits } = plan;
  plan.cursor++;
  plan.offset += bits;
  if (bits === groupBits) return group;
  const shifted = offset === 0 ? group : `(${group} >>> ${offset})`;
  if (offset + bits === groupBits) return shifted;
  const x = g.local('f');
  g.line(`const ${x} = ${shifted} & ${2 ** bits - 1};`);
  return x;
}

/** Rejects the input: hands the bit state back (so the error names the right bit) and returns null. */
const reject = (path: string, reason: string): string =>
  `{ ${SYNC_READER} return h.fail(rs, ${path}, ${reason}); }`;

function emitNeed(g: Emitter, bits: string, path: string): void {
  g.line(`if (end - wi * 32 + sb < ${bits}) ${reject(path, "'read past the end'")}`);
}

/** Emits reading `n`; returns the local holding the value. `checked`: the bits are known to be there. */
function emitRead(g: Emitter, n: SchemaNode, target: string, path: string, checked: boolean): string {
  const fixed = fixedBits(n);
  if (!checked && fixed > 0) {
    emitNeed(g, String(fixed), path);
    checked = true;
  }
  if (g.plan === null && fixed > 0 && (n.kind === 'object' || n.kind === 'tuple')) {
    const widths = fusableWidths(n);
    if (widths !== null) {
      g.plan = { widths, cursor: 0, group: '', groupBits: 0, groupEnd: 0, offset: 0 };
      const value = emitRead(g, n, target, path, checked);
      if (g.plan.cursor !== widths.length) throw new Error('generate: read plan not fully consumed');
      g.plan = null;
      return value;
    }
  }
  const v = g.local('v');
  switch (n.kind) {
    case 'bool':
      g.line(`const ${v} = ${takeRaw(g, 1)} === 1;`);
      return v;
    case 'int': {
      const range = n.max - n.min;
      if (range === 0) {
        g.line(`const ${v} = ${num(n.min)};`);
        return v;
      }
      const bits = bitsRequired(n.min, n.max);
      const u = takeRaw(g, bits);
      if (range !== 2 ** bits - 1) {
        g.line(`if (${u} > ${range}) ${reject(path, `'int out of range [${n.min}, ${n.max}]'`)}`);
      }
      g.line(`const ${v} = ${n.min === 0 ? u : `${num(n.min)} + ${u}`};`);
      return v;
    }
    case 'float': {
      const { spec } = n;
      const q = takeRaw(g, spec.bits);
      if (spec.maxInteger !== 2 ** spec.bits - 1) {
        g.line(`if (${q} > ${spec.maxInteger}) ${reject(path, "'compressed float out of range'")}`);
      }
      g.line(
        `const ${v} = Math.fround(Math.fround(Math.fround(Math.fround(${q}) / ${num(spec.maxIntegerF32)}) * ${num(spec.delta)}) + ${num(spec.min)});`,
      );
      return v;
    }
    case 'float32':
      g.line(`const ${v} = h.bitsToFloat32(${takeRaw(g, 32)});`);
      return v;
    case 'enum': {
      const bits = bitsRequired(0, n.values.length - 1);
      const values = g.constant(n.values);
      if (bits === 0) {
        g.line(`const ${v} = ${values}[0];`);
        return v;
      }
      const u = takeRaw(g, bits);
      if (n.values.length !== 2 ** bits) {
        g.line(`if (${u} >= ${n.values.length}) ${reject(path, "'enum index out of range'")}`);
      }
      g.line(`const ${v} = ${values}[${u}];`);
      return v;
    }
    case 'object': {
      // Fill the caller's object in place; otherwise read every field into locals and build one
      // literal, so a fresh object is allocated once, with its final values, in schema order.
      const o = g.local('o');
      g.line(`const ${o}t = ${target};`);
      g.line(`const ${o} = typeof ${o}t === 'object' && ${o}t !== null ? ${o}t : null;`);
      const direct = emitDirectTest(g, o, n, true);
      const values: [string, string][] = [];
      for (const [key, field] of Object.entries(n.fields)) {
        const slot = `(${o} === null ? undefined : ${ownMember(o, direct, key)})`;
        values.push([key, emitRead(g, field, slot, pathOf(path, `.${key}`), checked)]);
      }
      g.line(`let ${v};`);
      g.line(`if (${o} === null) ${v} = { ${values.map(([key, x]) => `${str(key)}: ${x}`).join(', ')} };`);
      g.line(`else { ${values.map(([key, x]) => `${member(o, key)} = ${x};`).join(' ')} ${v} = ${o}; }`);
      return v;
    }
    case 'array':
    case 'tuple': {
      const a = g.local('a');
      const count = g.local('n');
      const itemBits = fixedBits(n.item);
      if (n.kind === 'array') {
        const bits = bitsRequired(0, n.maxLength);
        if (!checked && bits > 0) emitNeed(g, String(bits), path);
        g.line(`const ${count} = ${bits > 0 ? emitUnpack(g, bits) : '0'};`);
        if (n.maxLength !== 2 ** bits - 1) {
          g.line(`if (${count} > ${n.maxLength}) ${reject(path, `'array longer than ${n.maxLength}'`)}`);
        }
        g.line(`let ${a} = ${target};`);
        g.line(
          `if (!Array.isArray(${a})) ${a} = []; else if (${a}.length > ${count}) ${a}.length = ${count};`,
        );
        if (!checked && itemBits > 0) {
          // Fixed-size items: one length check for the whole array instead of one per item.
          emitNeed(g, `${count} * ${itemBits}`, path);
        }
      } else {
        g.line(`let ${a} = ${target};`);
        g.line(
          `if (!(Array.isArray(${a}) || ArrayBuffer.isView(${a})) || ${a}.length !== ${n.length}) ${a} = null;`,
        );
        if (n.length <= 4) {
          // Short tuples unrolled; a fresh one is built as one literal once its items are read.
          const items: string[] = [];
          for (let i = 0; i < n.length; i++) {
            const slot = `(${a} === null ? undefined : ${a}[${i}])`;
            items.push(emitRead(g, n.item, slot, pathOf(path, `[${i}]`), checked || itemBits > 0));
          }
          g.line(`if (${a} === null) ${a} = [${items.join(', ')}];`);
          g.line(`else { ${items.map((x, i) => `${a}[${i}] = ${x};`).join(' ')} }`);
          g.line(`const ${v} = ${a};`);
          return v;
        }
        g.line(`if (${a} === null) ${a} = [];`);
        g.line(`const ${count} = ${n.length};`);
      }
      const i = g.local('i');
      g.open(`for (let ${i} = 0; ${i} < ${count}; ${i}++) {`);
      const x = emitRead(g, n.item, `${a}[${i}]`, indexPath(path, i), checked || itemBits > 0);
      g.line(`${a}[${i}] = ${x};`);
      g.close();
      g.line(`const ${v} = ${a};`);
      return v;
    }
    case 'optional': {
      if (!checked) emitNeed(g, '1', path);
      g.line(`let ${v};`);
      g.open(`if (${emitUnpack(g, 1)} === 1) {`);
      const x = emitRead(g, n.inner, target, path, false);
      g.line(`${v} = ${x};`);
      g.close();
      return v;
    }
    default:
      g.line(SYNC_READER);
      g.line(`const ${v} = h.node(rs, ${g.constant(n)}, ${target});`);
      g.line('if (!rs.ok) return null;');
      g.line(LOAD_READER);
      return v;
  }
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
    'function write(ws, value) {',
    `  ${clean}`,
    '  const w = ws.writer, words = w.words, cap = w.capacityBits;',
    '  let scratch = w.scratch, sb = w.scratchBits, wi = w.wordIndex;',
  );
  emitWrite(g, root, 'value', "''", false);
  flushPacks(g);
  g.line(SYNC_WRITER);
  g.lines.push(
    '}',
    'function read(rs, target) {',
    `  ${clean}`,
    '  const r = rs.reader, words = r.words, end = r.totalBits;',
    '  let scratch = r.scratch, sb = r.scratchBits, wi = r.wordIndex;',
  );
  const result = emitRead(g, root, 'target', "''", false);
  g.line(SYNC_READER);
  g.line(`return ${result};`);
  g.lines.push('}', 'function measure(value) {', `  ${clean}`, '  let bits = 0;');
  emitMeasure(g, root, 'value');
  g.line('return bits;');
  g.lines.push('}', 'return { write, read, measure };');
  return { source: g.lines.join('\n'), constants: g.constants };
}
