import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { t } from '../../src/index.js';
import { compileInterpolator, type Interpolator } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import type { SchemaNode } from '../../src/schema/schema.js';
import { EveryKind } from '../support/every-kind.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('interpolation-generated');

/** Floats chosen to hit the edges: equal ends, zero, -0, outside a quantized range, tiny, large. */
function float(random: () => number): number {
  const r = random();
  if (r < 0.1) return 0;
  if (r < 0.15) return -0;
  if (r < 0.25) return Math.round(random() * 10) - 5;
  if (r < 0.3) return (random() - 0.5) * 1e-12;
  if (r < 0.4) return (random() - 0.5) * 1e6;
  return (random() - 0.5) * 300;
}

function quaternion(random: () => number): number[] {
  const r = random();
  if (r < 0.1) return [0, 0, 0, 0];
  const q = [0, 1, 2, 3].map(() => random() * 2 - 1);
  // Unit or not: float32 rounding leaves non-unit ones; opposite pairs sum to zero.
  if (r < 0.5) return q;
  const n = Math.hypot(...q);
  return q.map((c) => c / n);
}

/** A random value of `node`, `from`'s shape kept now and then so that the blend paths are met. */
function value(node: SchemaNode, random: () => number, like?: unknown): unknown {
  switch (node.kind) {
    case 'float32':
    case 'float64':
    case 'float':
      return like !== undefined && random() < 0.1 ? like : float(random);
    case 'quaternion':
    case 'smallestThree': {
      if (like !== undefined && random() < 0.2) return (like as number[]).map((c) => -c);
      return quaternion(random);
    }
    case 'bool':
      return random() < 0.5;
    case 'int':
      return node.min + Math.floor(random() * (node.max - node.min + 1));
    case 'int64':
      return node.min + BigInt(Math.floor(random() * 1000));
    case 'enum':
      return node.values[Math.floor(random() * node.values.length)];
    case 'string':
      return random() < 0.5 ? 'a' : 'bc';
    case 'bytes':
      return Uint8Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * 256));
    case 'object': {
      const out: Record<string, unknown> = {};
      const other = like as Record<string, unknown> | undefined;
      for (const [key, field] of Object.entries(node.fields)) out[key] = value(field, random, other?.[key]);
      return out;
    }
    case 'tuple':
    case 'array': {
      const other = like as unknown[] | undefined;
      const length =
        node.kind === 'tuple'
          ? node.length
          : other !== undefined && random() < 0.7
            ? other.length
            : Math.floor(random() * (node.maxLength + 1));
      return Array.from({ length }, (_, i) => value(node.item, random, other?.[i]));
    }
    case 'optional':
      return random() < 0.3 ? undefined : value(node.inner, random, like);
  }
}

/** Deep equality with Object.is on numbers (-0 and NaN told apart), typed arrays by content. */
function same(a: unknown, b: unknown, path = ''): void {
  if (typeof a === 'number' || typeof b === 'number') {
    assert.ok(Object.is(a, b), `${path}: ${String(a)} vs ${String(b)}`);
    return;
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    assert.deepEqual(a, b, path);
    return;
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    assert.deepEqual(Object.keys(a), Object.keys(b), `${path}: keys`);
    assert.equal(Array.isArray(a), Array.isArray(b), `${path}: array or not`);
    assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(b), `${path}: prototype`);
    for (const key of Object.keys(a))
      same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
    return;
  }
  assert.equal(a, b, path);
}

function fraction(random: () => number): number {
  const r = random();
  if (r < 0.1) return 0;
  if (r < 0.2) return 1;
  if (r < 0.25) return 0.5;
  if (r < 0.35) return 1 + random() * 2;
  return random();
}

/** Blends random pairs with both implementations, each into its own reused output, and compares. */
function agree(
  schema: SchemaNode,
  options: { teleportField?: string },
  random: () => number,
  n: number,
): void {
  const generated = compileInterpolator(schema as never, {
    ...options,
    codegen: true,
  }) as Interpolator<unknown>;
  const fallback = compileInterpolator(schema as never, {
    ...options,
    codegen: false,
  }) as Interpolator<unknown>;
  assert.equal(generated.compiled, true);
  assert.equal(fallback.compiled, false);
  let outG: unknown;
  let outF: unknown;
  for (let i = 0; i < n; i++) {
    const a = value(schema, random) as Record<string, unknown>;
    const b = value(schema, random, a) as Record<string, unknown>;
    if (options.teleportField !== undefined && random() < 0.7)
      b[options.teleportField] = a[options.teleportField];
    const f = fraction(random);
    // Now and then a fresh output, or the same state on both sides.
    if (random() < 0.1) outG = outF = undefined;
    const to = random() < 0.1 ? a : b;
    outG = generated.interpolate(a, to, f, outG);
    outF = fallback.interpolate(a, to, f, outF);
    same(outG, outF, `value ${i}, fraction ${f}`);
  }
}

describe('compileInterpolator: generated code and closures', () => {
  it('give the same results for every kind of node, outputs reused', () => {
    agree(EveryKind, {}, prng(seed), 2000);
  });

  it('give the same results with a teleport field, nested arrays and optionals of composites', () => {
    const Nested = t.object({
      moved: t.bool(),
      'odd "key"\n': t.float32(),
      trail: t.array(t.object({ at: t.vector3(t.float64()), turn: t.optional(t.quaternion()) }), 3),
      maybe: t.optional(t.object({ w: t.float(-1, 1, 0.001), raw: t.bytes(3) })),
      grid: t.tuple(t.array(t.float(0, 10, 0.5), 2), 2),
    });
    agree(Nested, { teleportField: 'moved' }, prng(seed + 1), 2000);
  });

  it('write into the given output, and make plain objects when there is none', () => {
    const schema = t.object({ x: t.float32(), inner: t.object({ y: t.float64() }) });
    for (const codegen of [true, false]) {
      const lerp = compileInterpolator(schema, { codegen });
      const out = { x: 0, inner: { y: 0 } };
      const inner = out.inner;
      assert.equal(lerp.interpolate({ x: 0, inner: { y: 2 } }, { x: 4, inner: { y: 4 } }, 0.25, out), out);
      assert.deepEqual(out, { x: 1, inner: { y: 2.5 } });
      assert.equal(out.inner, inner);
      const made = lerp.interpolate(out, out, 0, undefined as never);
      assert.notEqual(made, out);
      assert.deepStrictEqual(made, { x: 1, inner: { y: 2.5 } });
      assert.equal(Object.getPrototypeOf(made.inner), Object.prototype);
      assert.throws(() => lerp.interpolate(out, out, Number.NaN, out), RangeError);
    }
  });
});
