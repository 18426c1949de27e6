import type { CompressedFloat } from '../../src/serialize/compressed-float.js';
import { fail } from '../harness.js';
import type { Lobby } from './data.js';
import { HEADING, POSITION } from './stream.js';

/** How closely a contestant must reproduce the floats: quantized (ghostwire) or as float32. */
export type FloatPrecision = 'float32' | 'quantized';

function checkFloat(
  at: string,
  expected: number,
  actual: unknown,
  precision: FloatPrecision,
  spec: CompressedFloat,
): void {
  if (typeof actual !== 'number' || !Number.isFinite(actual)) fail(`${at}: got ${String(actual)}`);
  if (precision === 'float32') {
    if (actual !== Math.fround(expected)) fail(`${at}: expected ${Math.fround(expected)}, got ${actual}`);
    return;
  }
  // Half a step, plus the float32 rounding of quantize and dequantize (as bench/w1/verify.ts explains).
  const tolerance = spec.delta / spec.maxInteger / 2 + 2 ** -20 * spec.delta;
  if (Math.abs(actual - expected) > tolerance) fail(`${at}: ${actual} is too far from ${expected}`);
}

/** Checks a decoded lobby against the input: everything exactly but the floats (per `precision`). */
export function verifyLobby(name: string, input: Lobby, decoded: Lobby, precision: FloatPrecision): void {
  const a = input.players;
  const b = decoded?.players;
  if (!Array.isArray(b) || b.length !== a.length) {
    fail(`${name}: decoded ${Array.isArray(b) ? b.length : 'no'} players, expected ${a.length}`);
  }
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    const at = `${name}: player ${i}`;
    if (y.name !== x.name) fail(`${at}: name ${JSON.stringify(y.name)} !== ${JSON.stringify(x.name)}`);
    if (y.team !== x.team) fail(`${at}: team ${y.team} !== ${x.team}`);
    if (y.score !== x.score) fail(`${at}: score ${y.score} !== ${x.score}`);
    if (y.ready !== x.ready) fail(`${at}: ready ${y.ready} !== ${x.ready}`);
    if (y.party !== x.party) fail(`${at}: party ${y.party} !== ${x.party}`);
    if (!Array.isArray(y.inventory) || y.inventory.length !== x.inventory.length) {
      fail(`${at}: inventory of ${y.inventory?.length} items, expected ${x.inventory.length}`);
    }
    x.inventory.forEach((item, k) => {
      const got = y.inventory[k];
      if (got.item !== item.item || got.count !== item.count) fail(`${at}: inventory[${k}] differs`);
    });
    checkFloat(`${at} x`, x.x, y.x, precision, POSITION);
    checkFloat(`${at} y`, x.y, y.y, precision, POSITION);
    checkFloat(`${at} heading`, x.heading, y.heading, precision, HEADING);
  }
}
