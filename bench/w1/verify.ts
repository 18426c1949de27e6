import type { CompressedFloat } from '../../src/serialize/compressed-float.js';
import { fail } from '../harness.js';
import type { GameState } from './data.js';
import { ORIENTATION, POSITION, VELOCITY } from './stream.js';

/** How closely a contestant must reproduce the W1 floats. */
export type FloatPrecision = 'exact' | 'float32' | 'quantized';

/**
 * Half a quantization step, plus the float32 rounding the reference's arithmetic adds on the way
 * (each float32 step of quantize and dequantize can be off by half an ulp of a value up to `delta`,
 * and the decoded value is itself a float32): ghostwire reproduces the reference bit for bit, so it
 * inherits this, and a value just past a step's midpoint can land a few 1e-5 past half a step.
 */
function quantizedTolerance(spec: CompressedFloat, value: number): number {
  const halfStep = spec.delta / spec.maxInteger / 2;
  const ulp = (x: number) => 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x), 2 ** -126))) - 23);
  return halfStep + 4 * 2 ** -24 * spec.delta + ulp(value);
}

function checkFloat(
  where: string,
  expected: number,
  actual: unknown,
  precision: FloatPrecision,
  spec: CompressedFloat,
): number {
  if (typeof actual !== 'number' || !Number.isFinite(actual)) fail(`${where}: got ${String(actual)}`);
  const error = Math.abs(actual - expected);
  if (precision === 'exact' || precision === 'float32') {
    const target = precision === 'float32' ? Math.fround(expected) : expected;
    if (actual !== target) fail(`${where}: expected ${target}, got ${actual}`);
    return 0;
  }
  if (error > quantizedTolerance(spec, expected)) {
    fail(
      `${where}: ${actual} is ${error} from ${expected}, more than half the resolution ${spec.resolution}`,
    );
  }
  return error / (spec.resolution / 2);
}

/**
 * Checks a decoded state against the input: ints and flags exactly, floats per `precision`.
 * Returns the worst float error seen as a fraction of half the resolution (0 for exact codecs).
 */
export function verifyW1(
  name: string,
  input: GameState,
  decoded: GameState,
  precision: FloatPrecision,
): number {
  const a = input.entities;
  const b = decoded?.entities;
  if (!Array.isArray(b) || b.length !== a.length) {
    fail(`${name}: decoded ${Array.isArray(b) ? b.length : 'no'} entities, expected ${a.length}`);
  }
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    const at = `${name}: entity ${i}`;
    if (y.id !== x.id) fail(`${at}: id ${y.id} !== ${x.id}`);
    if (y.orientationLargest !== x.orientationLargest) fail(`${at}: orientationLargest differs`);
    if (y.health !== x.health) fail(`${at}: health ${y.health} !== ${x.health}`);
    for (let k = 0; k < 4; k++) {
      if (y.flags?.[k] !== x.flags[k]) fail(`${at}: flags[${k}] ${y.flags?.[k]} !== ${x.flags[k]}`);
    }
    for (let k = 0; k < 3; k++) {
      worst = Math.max(
        worst,
        checkFloat(`${at} position[${k}]`, x.position[k], y.position?.[k], precision, POSITION),
        checkFloat(`${at} orientation[${k}]`, x.orientation[k], y.orientation?.[k], precision, ORIENTATION),
        checkFloat(`${at} velocity[${k}]`, x.velocity[k], y.velocity?.[k], precision, VELOCITY),
      );
    }
  }
  return worst;
}

/** A cheap digest of a decoded W1 state, computed inside timed decode loops: count + last id + last health. */
export function digestW1(state: GameState): number {
  const entities = state.entities;
  const last = entities[entities.length - 1];
  return entities.length + last.id + last.health;
}
