import { exp, log, pow } from './dmath-exp.js';
import { acos, asin, atan, atan2, cos, hypot, sin, tan } from './dmath-trig.js';

/**
 * Deterministic math for lockstep and rollback games: the functions ECMAScript lets each engine
 * approximate its own way (Math.sin, cos, tan, asin, acos, atan, atan2, exp, log, pow, hypot),
 * rebuilt from operations it defines exactly (+ - * / on doubles, Math.sqrt, Math.round, floor,
 * abs), so every engine and CPU computes the same bits. About 1 ulp from the exact result
 * (test/p2p/dmath.test.ts measures it against Math.*), and a few times slower than Math.* (bench
 * `rollback` suite). What needs no help: + - * /, Math.sqrt, floor, ceil, round, trunc, abs,
 * min, max, sign, fround, imul, clz32 are exact everywhere; use those directly.
 */
export const dmath = Object.freeze({
  sin,
  cos,
  tan,
  asin,
  acos,
  atan,
  atan2,
  exp,
  log,
  pow,
  hypot,
  /** Math.sqrt is correctly rounded everywhere: the same function. */
  sqrt: Math.sqrt,
  PI: Math.PI,
});
