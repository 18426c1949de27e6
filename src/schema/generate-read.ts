/**
 * The read side of the schema code generator (see generate.ts): emits a specialised read that
 * keeps the bit state in locals, checks the input length once per fixed-size subtree, and reads
 * fixed-size loop-free runs of leaves a 32-bit group at a time. Every bad input returns null
 * through h.fail with the field path and the bit it stopped at.
 */
import { bitsRequired } from '../bits/bits-required.js';
import {
  type Emitter,
  emitDirectTest,
  fusableWidths,
  indexPath,
  LOAD_READER,
  member,
  num,
  ownMember,
  pathOf,
  type ReadPlan,
  SYNC_READER,
  str,
} from './generate-emitter.js';
import { entityAsInt, type SchemaNode } from './schema.js';
import { fixedBits, minBits } from './size.js';

/** Unpacks `bits` bits (1..32) from the local scratch word into a new local; returns its name. */
function emitUnpack(g: Emitter, bits: number): string {
  const u = g.local('u');
  if (bits === 32) {
    // The scratch word holds 0..31 bits, so 32 bits always take one new word; sb stays the same.
    g.line(`const ${u}w = words[wi++];`);
    g.line(`const ${u} = (scratch | (${u}w << sb)) >>> 0;`);
    g.line(`scratch = sb === 0 ? 0 : (${u}w >>> (32 - sb)) | 0;`);
    return u;
  }
  const mask = 2 ** bits - 1;
  g.line(`let ${u};`);
  g.line(
    `if (sb >= ${bits}) { ${u} = scratch & ${mask}; scratch = (scratch >>> ${bits}) | 0; sb -= ${bits}; }`,
  );
  g.line(
    `else { const word = words[wi++]; ${u} = (scratch | (word << sb)) & ${mask}; scratch = (word >>> (${bits} - sb)) | 0; sb += ${32 - bits}; }`,
  );
  return u;
}

/**
 * Starts a fused run of leaves of these widths. Over 32 bits it is read as a block: its whole
 * 32-bit words are loaded at once (each one load, two shifts and an OR whatever the bit offset,
 * branch-free), so every leaf is then cut out at a shift known here; the rest, under 32 bits, is
 * one ordinary unpack.
 */
function startPlan(g: Emitter, widths: number[]): ReadPlan {
  const total = widths.reduce((sum, w) => sum + w, 0);
  const plan: ReadPlan = { widths, cursor: 0, group: '', groupBits: 0, groupEnd: 0, offset: 0, block: null };
  if (total > 32) {
    const block: string[] = [];
    for (let j = 0; j < total >>> 5; j++) {
      const b = g.local('b');
      g.line(`const ${b}w = words[wi++], ${b} = scratch | (${b}w << sb);`);
      // The word's top sb bits; `>>> (32 - sb)` would keep them all when sb is 0.
      g.line(`scratch = (${b}w >>> 1) >>> (31 - sb);`);
      block.push(b);
    }
    if ((total & 31) !== 0) block.push(emitUnpack(g, total & 31));
    plan.block = block;
  }
  g.plan = plan;
  return plan;
}

/** The next leaf of a block read (see {@link startPlan}): one or two words, constant shifts. */
function takeFromBlock(g: Emitter, plan: ReadPlan, bits: number): string {
  const block = plan.block as string[];
  const at = plan.offset;
  plan.cursor++;
  plan.offset += bits;
  const j = at >>> 5;
  const s = at & 31;
  let raw = s === 0 ? block[j] : `(${block[j]} >>> ${s})`;
  if (s + bits > 32) raw = `(${raw} | (${block[j + 1]} << ${32 - s}))`;
  const x = g.local('f');
  if (bits === 32) g.line(`const ${x} = ${raw} >>> 0;`);
  else if (s + bits === 32 && s !== 0) g.line(`const ${x} = ${raw};`);
  else g.line(`const ${x} = ${raw} & ${2 ** bits - 1};`);
  return x;
}

/**
 * The raw bits of the next leaf. Inside a fused run the leaves are read a group at a time (as
 * many consecutive leaves as fit in 32 bits, one unpack) and split with shifts and masks.
 */
function takeRaw(g: Emitter, bits: number): string {
  const plan = g.plan;
  if (plan === null) return emitUnpack(g, bits);
  if (plan.widths[plan.cursor] !== bits) throw new Error('generate: read plan out of step with the schema');
  if (plan.block !== null) return takeFromBlock(g, plan, bits);
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

/**
 * f32(f32(u) / m) for an integer 0 <= u <= m: below 2^24, u is exact in float32 and the product
 * with the double reciprocal of m rounds to the same float32 as the quotient (docs/serialization.md,
 * "Compressed floats without division"), and a multiply costs a fraction of a divide.
 */
function ratio(u: string, m: number): string {
  return m < 2 ** 24 ? `Math.fround(${u} * ${num(1 / m)})` : `Math.fround(Math.fround(${u}) / ${num(m)})`;
}

/**
 * f32(a * delta) for a float32 a in {0} ∪ [2^-24, 1]: a power-of-two delta (2^-100 and up) only
 * moves the exponent, so the product is already a float32.
 */
function scaled(a: string, delta: number): string {
  const exact = Number.isInteger(Math.log2(delta)) && delta >= 2 ** -100;
  return exact ? `${a} * ${num(delta)}` : `Math.fround(${a} * ${num(delta)})`;
}

/** Rejects the input: hands the bit state back (so the error names the right bit) and returns null. */
const reject = (path: string, reason: string): string =>
  `{ ${SYNC_READER} return h.fail(rs, ${path}, ${reason}); }`;

function emitNeed(g: Emitter, bits: string, path: string): void {
  g.line(`if (end - wi * 32 + sb < ${bits}) ${reject(path, "'read past the end'")}`);
}

/** Emits reading `n`; returns the local holding the value. `checked`: the bits are known to be there. */
export function emitRead(g: Emitter, n: SchemaNode, target: string, path: string, checked: boolean): string {
  // An entity reference is read as the int it is written as (-1: none).
  if (n.kind === 'entity') return emitRead(g, entityAsInt(n), target, path, checked);
  const fixed = fixedBits(n);
  if (!checked && fixed > 0) {
    emitNeed(g, String(fixed), path);
    checked = true;
  }
  if (g.plan === null && fixed > 0 && (n.kind === 'object' || n.kind === 'tuple')) {
    const widths = fusableWidths(n);
    if (widths !== null) {
      const plan = startPlan(g, widths);
      const value = emitRead(g, n, target, path, checked);
      if (plan.cursor !== widths.length) throw new Error('generate: read plan not fully consumed');
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
        `const ${v} = Math.fround(${scaled(ratio(q, spec.maxInteger), spec.delta)} + ${num(spec.min)});`,
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
      if (g.fresh) {
        // Every field into a local, then one literal: allocated once, with its final values, in
        // schema order, so every object a schema reads has one shape.
        const values = emitFields(g, n, () => 'undefined', path, checked);
        g.line(`const ${v} = { ${values.map(([key, x]) => `${str(key)}: ${x}`).join(', ')} };`);
        return v;
      }
      // Fill the caller's object in place; otherwise read every field into locals and build one
      // literal, as above.
      const o = g.local('o');
      g.line(`const ${o}t = ${target};`);
      g.line(`const ${o} = typeof ${o}t === 'object' && ${o}t !== null ? ${o}t : null;`);
      const direct = emitDirectTest(g, o, n, true);
      const slot = (key: string) => `(${o} === null ? undefined : ${ownMember(o, direct, key)})`;
      const values = emitFields(g, n, slot, path, checked);
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
        if (!checked && itemBits > 0) {
          // Fixed-size items: one length check for the whole array instead of one per item.
          emitNeed(g, `${count} * ${itemBits}`, path);
        } else if (itemBits < 0) {
          // A count the input cannot pay for is refused before anything is allocated for it (as
          // the interpreter does), so a fresh array can be made at its final size at once.
          const least = minBits(n.item);
          const left = 'end - wi * 32 + sb';
          const reason = `'array of ' + ${count} + ' items needs at least ' + ${count} * ${least} + ' bits, ' + (${left}) + ' remain'`;
          g.line(`if (${count} * ${least} > ${left}) ${reject(path, reason)}`);
        }
        if (g.fresh) g.line(`const ${a} = new Array(${count});`);
        else {
          g.line(`let ${a} = ${target};`);
          g.line(
            `if (!Array.isArray(${a})) ${a} = []; else if (${a}.length > ${count}) ${a}.length = ${count};`,
          );
        }
      } else if (g.fresh) {
        if (n.length <= 4) {
          const items: string[] = [];
          for (let i = 0; i < n.length; i++)
            items.push(emitRead(g, n.item, 'undefined', pathOf(path, `[${i}]`), checked || itemBits > 0));
          g.line(`const ${v} = [${items.join(', ')}];`);
          return v;
        }
        g.line(`const ${a} = [];`);
        g.line(`const ${count} = ${n.length};`);
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
      const x = emitRead(
        g,
        n.item,
        g.fresh ? 'undefined' : `${a}[${i}]`,
        indexPath(path, i),
        checked || itemBits > 0,
      );
      g.line(`${a}[${i}] = ${x};`);
      g.close();
      g.line(`const ${v} = ${a};`);
      return v;
    }
    case 'string': {
      // Inline, as ReadStream.string does it (length, align, bytes), failing at the same bits.
      const bits = bitsRequired(0, n.maxBytes);
      const length = g.local('l');
      if (bits === 0) g.line(`const ${length} = 0;`);
      else {
        if (!checked) emitNeed(g, String(bits), path);
        g.line(`const ${length} = ${emitUnpack(g, bits)};`);
        if (n.maxBytes !== 2 ** bits - 1) {
          g.line(`if (${length} > ${n.maxBytes}) ${reject(path, `'int out of range [0, ${n.maxBytes}]'`)}`);
        }
      }
      // The stream position is wi * 32 - sb, so sb & 7 bits are left before the next byte.
      g.line(`const ${length}p = sb & 7;`);
      g.open(`if (${length}p !== 0) {`);
      g.line(`const ${length}z = scratch & ((1 << ${length}p) - 1);`);
      g.line(`scratch = (scratch >>> ${length}p) | 0; sb -= ${length}p;`);
      g.line(`if (${length}z !== 0) ${reject(path, "'non-zero align padding'")}`);
      g.close();
      g.line(`if (${length} * 8 > end - wi * 32 + sb) ${reject(path, "'string past the end'")}`);
      g.line(`let ${v} = '';`);
      g.open(`if (${length} > 0) {`);
      g.line(`const ${length}s = (wi * 32 - sb) >>> 3, ${length}b = r.bytes;`);
      g.line(`${v} = h.utf8Read(${length}b, ${length}s, ${length}s + ${length});`);
      g.line(
        `if (${v} === null) ${reject(path, `h.stringProblem(${length}b, ${length}s, ${length}s + ${length})`)}`,
      );
      // Past the bytes: reload the scratch word the way BitReader.seek does.
      g.line(`const ${length}e = wi * 32 - sb + ${length} * 8, ${length}w = ${length}e & 31;`);
      g.line(`wi = ${length}e >>> 5;`);
      g.line(
        `if (${length}w === 0) { scratch = 0; sb = 0; } else { scratch = (words[wi++] >>> ${length}w) | 0; sb = 32 - ${length}w; }`,
      );
      g.close();
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

/**
 * Reads an object's fields into locals, in order; returns [key, local] pairs. Where the object's
 * size varies, each run of consecutive fixed-size fields is length-checked once and read as one
 * fused run (several fields a 32-bit group at a time), as a wholly fixed-size object is.
 */
function emitFields(
  g: Emitter,
  n: SchemaNode & { kind: 'object' },
  slot: (key: string) => string,
  path: string,
  checked: boolean,
): [string, string][] {
  const entries = Object.entries(n.fields);
  const values: [string, string][] = [];
  for (let i = 0; i < entries.length; ) {
    let end = i;
    let bits = 0;
    const widths: number[] = [];
    if (!checked && g.plan === null) {
      for (; end < entries.length; end++) {
        const field = entries[end][1];
        const fieldWidths = fixedBits(field) >= 0 ? fusableWidths(field) : null;
        if (fieldWidths === null) break;
        widths.push(...fieldWidths);
        bits += fixedBits(field);
      }
    }
    if (end - i < 2 || bits === 0) {
      const [key, field] = entries[i];
      values.push([key, emitRead(g, field, slot(key), pathOf(path, `.${key}`), checked)]);
      i++;
      continue;
    }
    emitNeed(g, String(bits), pathOf(path, `.${entries[i][0]}`));
    const plan = startPlan(g, widths);
    for (; i < end; i++) {
      const [key, field] = entries[i];
      values.push([key, emitRead(g, field, slot(key), pathOf(path, `.${key}`), true)]);
    }
    if (plan.cursor !== widths.length) throw new Error('generate: read plan not fully consumed');
    g.plan = null;
  }
  return values;
}
