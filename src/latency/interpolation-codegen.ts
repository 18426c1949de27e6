import type { SchemaNode } from '../schema/schema.js';

/**
 * The source of one schema's blend `(from, to, fraction, out)`, specialised so that no float
 * leaves the function as a value: each is computed as a double and stored straight into its place
 * in `out` (V8 then overwrites the field's or array's double in place instead of boxing a new
 * number per blend, which the closure interpreter's `unknown` returns cost). It computes exactly
 * what the interpreter in interpolation.ts does, operation for operation. Field names reach the
 * code only as JSON string literals; float bounds and object makers as constants in `k`; helpers
 * in `h`. The fraction comes in `fraction[0]` (a Float64Array), so passing it boxes nothing.
 */
export interface InterpolateSource {
  readonly source: string;
  readonly constants: unknown[];
}

/**
 * A constructor of empty plain objects (prototype Object.prototype) with a hidden class of its
 * own. A `{}` shares V8's class tree with every object built from `{}` or by spread with the same
 * keys, such as the schema's own frozen `fields` (holding nodes): its fields then take any value,
 * and each float stored into one is boxed anew.
 */
export function plainObjectMaker(): new () => Record<string, unknown> {
  function Blank(): void {}
  Blank.prototype = Object.prototype;
  return Blank as unknown as new () => Record<string, unknown>;
}

class Emitter {
  readonly lines: string[] = [];
  readonly constants: unknown[] = [];
  private count = 0;
  private depth = 1;

  local(prefix: string): string {
    return `${prefix}${this.count++}`;
  }
  constant(value: unknown): string {
    this.constants.push(value);
    return `k${this.constants.length - 1}`;
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
  otherwise(): void {
    this.close('} else {');
    this.depth++;
  }
}

/** interpolation.ts's mix: the ends exact (-0 included), and doubles throughout (`a * 1`, not `a`). */
const mix = (a: string, b: string, f: string) =>
  `${f} < 0.5 ? (${f} === 0 ? ${a} * 1 : ${a} + (${b} - ${a}) * ${f}) : ${f} === 1 ? ${b} * 1 : ${b} + (${b} - ${a}) * (${f} - 1)`;

/** When one side is unusable (`test` true), both become the one shown at `f`, blended at 0. */
function snapBoth(g: Emitter, test: string, a: string, b: string, f: string): void {
  g.open(`if (${test}) {`);
  g.line(`if (${f} < 1) ${b} = ${a};`);
  g.line(`else ${a} = ${b};`);
  g.line(`${f} = 0;`);
  g.close();
}

/**
 * Blends `a` and `b` (plain local names) at `f` into `into`: an assignable, side-effect-free
 * expression read first for the value to reuse, then written.
 */
function emitNode(g: Emitter, node: SchemaNode, a: string, b: string, f: string, into: string): void {
  switch (node.kind) {
    case 'float32':
    case 'float64':
      g.line(`${into} = ${mix(a, b, f)};`);
      return;
    case 'float': {
      const min = g.constant(node.spec.min);
      const max = g.constant(node.spec.maxDecoded);
      const v = g.local('v');
      g.line(`const ${v} = ${mix(a, b, f)};`);
      g.line(`${into} = ${v} < ${min} ? ${min} : Math.min(${v}, ${max});`);
      return;
    }
    case 'quaternion':
    case 'smallestThree':
      emitQuaternion(g, a, b, f, into);
      return;
    case 'object': {
      const r = g.local('r');
      g.line(`let ${r} = ${into};`);
      g.line(
        `if (typeof ${r} !== 'object' || ${r} === null) ${r} = new ${g.constant(plainObjectMaker())}();`,
      );
      emitFields(g, node.fields, a, b, f, r);
      g.line(`${into} = ${r};`);
      return;
    }
    case 'tuple':
    case 'array': {
      const [x, y, ff, r, i] = [g.local('a'), g.local('b'), g.local('f'), g.local('r'), g.local('i')];
      g.line(`let ${x} = ${a}, ${y} = ${b}, ${ff} = ${f};`);
      snapBoth(g, `${x}.length !== ${y}.length`, x, y, ff);
      g.line(`const ${r} = h.target(${into}, ${x}.length);`);
      g.open(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`);
      const [xi, yi] = [g.local('a'), g.local('b')];
      g.line(`const ${xi} = ${x}[${i}], ${yi} = ${y}[${i}];`);
      emitNode(g, node.item, xi, yi, ff, `${r}[${i}]`);
      g.close();
      g.line(`${into} = ${r};`);
      return;
    }
    case 'optional': {
      const [x, y, ff] = [g.local('a'), g.local('b'), g.local('f')];
      g.line(`let ${x} = ${a}, ${y} = ${b}, ${ff} = ${f};`);
      snapBoth(g, `${x} == null || ${y} == null`, x, y, ff);
      g.line(`if (${x} == null) ${into} = undefined;`);
      g.open('else {');
      emitNode(g, node.inner, x, y, ff, into);
      g.close();
      return;
    }
    case 'bytes':
      g.line(`${into} = h.copyBytes(${f} < 1 ? ${a} : ${b}, ${into});`);
      return;
    default:
      // bool, int, int64, enum, string: discrete, immutable values.
      g.line(`${into} = ${f} < 1 ? ${a} : ${b};`);
  }
}

function emitFields(
  g: Emitter,
  fields: Readonly<Record<string, SchemaNode>>,
  a: string,
  b: string,
  f: string,
  r: string,
): void {
  for (const key of Object.keys(fields)) {
    const name = JSON.stringify(key);
    const [x, y] = [g.local('a'), g.local('b')];
    g.line(`const ${x} = ${a}[${name}], ${y} = ${b}[${name}];`);
    emitNode(g, fields[key], x, y, f, `${r}[${name}]`);
  }
}

/** Shortest arc: normalized lerp after a sign flip; the ends exact; a zero-length blend snaps to `a`. */
function emitQuaternion(g: Emitter, a: string, b: string, f: string, into: string): void {
  const q = g.local('q');
  g.line(`let ${q} = ${into};`);
  g.line(
    `if (!((Array.isArray(${q}) || ArrayBuffer.isView(${q})) && ${q}.length === 4)) ${q} = h.target(${q}, 4);`,
  );
  g.open(`if (${f} === 0 || ${f} >= 1) {`);
  const v = g.local('v');
  g.line(`const ${v} = ${f} === 0 ? ${a} : ${b};`);
  for (let c = 0; c < 4; c++) g.line(`${q}[${c}] = ${v}[${c}];`);
  g.otherwise();
  const s = g.local('s');
  g.line(
    `const ${s} = ${a}[0] * ${b}[0] + ${a}[1] * ${b}[1] + ${a}[2] * ${b}[2] + ${a}[3] * ${b}[3] < 0 ? -1 : 1;`,
  );
  const c4 = [0, 1, 2, 3].map(() => g.local('c'));
  for (let c = 0; c < 4; c++)
    g.line(`const ${c4[c]} = ${a}[${c}] + (${s} * ${b}[${c}] - ${a}[${c}]) * ${f};`);
  const n = g.local('n');
  g.line(`const ${n} = Math.sqrt(${c4.map((c) => `${c} * ${c}`).join(' + ')});`);
  g.open(`if (${n} > 1e-9) {`);
  for (let c = 0; c < 4; c++) g.line(`${q}[${c}] = ${c4[c]} / ${n};`);
  g.otherwise();
  for (let c = 0; c < 4; c++) g.line(`${q}[${c}] = ${a}[${c}];`);
  g.close();
  g.close();
  g.line(`${into} = ${q};`);
}

/**
 * The body of `new Function('k', 'h', source)`, returning `interpolate`. `teleportField` (a
 * boolean field) differing between two distinct states snaps the whole value.
 */
export function interpolateSource(
  fields: Readonly<Record<string, SchemaNode>>,
  teleportField: string | undefined,
): InterpolateSource {
  const g = new Emitter();
  g.open('return function blend(a, b, fraction, out) {');
  g.line('let f = fraction[0];');
  if (teleportField !== undefined) {
    const name = JSON.stringify(teleportField);
    snapBoth(g, `a[${name}] !== b[${name}] && a !== b`, 'a', 'b', 'f');
  }
  const blank = g.constant(plainObjectMaker());
  g.line(`const r = typeof out === 'object' && out !== null ? out : new ${blank}();`);
  emitFields(g, fields, 'a', 'b', 'f', 'r');
  g.line('return r;');
  g.close('};');
  const head = g.constants.map((_, i) => `  const k${i} = k[${i}];`);
  return { source: [...head, ...g.lines].join('\n'), constants: g.constants };
}
