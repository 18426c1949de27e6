import { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
import { ALIGN_WORST_CASE } from '../serialize/measure-stream.js';
import { NO_ENTITY, type SchemaNode } from './schema.js';

/** Bits a node always takes, or -1 when its size depends on the value. */
export function fixedBits(n: SchemaNode): number {
  switch (n.kind) {
    case 'bool':
      return 1;
    case 'int':
      return bitsRequired(n.min, n.max);
    case 'int64':
      return bitsRequired64(n.min, n.max);
    case 'entity':
      return bitsRequired(NO_ENTITY, n.ids - 1);
    case 'float32':
      return 32;
    case 'float64':
      return 64;
    case 'float':
      return n.spec.bits;
    case 'enum':
      return bitsRequired(0, n.values.length - 1);
    case 'quaternion':
      return 128;
    case 'smallestThree':
      return 2 + 3 * n.bits;
    case 'tuple': {
      const item = fixedBits(n.item);
      return item < 0 ? -1 : item * n.length;
    }
    case 'object': {
      let total = 0;
      for (const field of Object.values(n.fields)) {
        const bits = fixedBits(field);
        if (bits < 0) return -1;
        total += bits;
      }
      return total;
    }
    default:
      return -1;
  }
}

/** The fewest bits any value of the node can take (an align may cost nothing). */
export function minBits(n: SchemaNode): number {
  switch (n.kind) {
    case 'string':
      return bitsRequired(0, n.maxBytes);
    case 'bytes':
      return bitsRequired(0, n.maxLength);
    case 'array':
      return bitsRequired(0, n.maxLength);
    case 'tuple':
      return n.length * minBits(n.item);
    case 'optional':
      return 1;
    case 'object': {
      let total = 0;
      for (const field of Object.values(n.fields)) total += minBits(field);
      return total;
    }
    default:
      return fixedBits(n);
  }
}

/** The most bits any value of the node can take (as measured: aligns at their worst case). */
export function maxBits(n: SchemaNode): number {
  switch (n.kind) {
    case 'string':
      return bitsRequired(0, n.maxBytes) + ALIGN_WORST_CASE + n.maxBytes * 8;
    case 'bytes':
      return bitsRequired(0, n.maxLength) + ALIGN_WORST_CASE + n.maxLength * 8;
    case 'array':
      return bitsRequired(0, n.maxLength) + n.maxLength * maxBits(n.item);
    case 'tuple':
      return n.length * maxBits(n.item);
    case 'optional':
      return 1 + maxBits(n.inner);
    case 'object': {
      let total = 0;
      for (const field of Object.values(n.fields)) total += maxBits(field);
      return total;
    }
    default:
      return fixedBits(n);
  }
}

/**
 * What one decode of a node can produce, as `values <= valuesPerBit × input bits + fixedValues`,
 * counting every value (containers included) a read creates or fills. Parts that take no bits
 * (int(k, k), object({}), tuples of them) cost nothing on the wire, so their values are "fixed";
 * inside an array each item pays for its fixed values with its own minimum size, which makes
 * them a rate per input bit.
 */
export interface DecodeBound {
  readonly valuesPerBit: number;
  readonly fixedValues: number;
}

/** Refused above this: a few bytes of input could then make a decode produce that many values. */
export const MAX_VALUES_PER_BIT = 64;
/** Refused above this: one decode would build this many values whatever its input. */
export const MAX_FIXED_VALUES = 1 << 20;

/** The decode bound of a node (see {@link DecodeBound}); throws a RangeError naming the rule a node breaks. */
export function decodeBound(n: SchemaNode): DecodeBound {
  const bound = boundOf(n);
  if (bound.valuesPerBit > MAX_VALUES_PER_BIT) {
    throw new RangeError(
      `schema: a decode could produce ${Math.ceil(bound.valuesPerBit)} values per input bit (at most ` +
        `${MAX_VALUES_PER_BIT}); array items whose parts take no bits (int(k, k), object({}), tuples of ` +
        'them) multiply the work a short input can ask for',
    );
  }
  if (bound.fixedValues > MAX_FIXED_VALUES) {
    throw new RangeError(
      `schema: a decode would build ${bound.fixedValues} values from no input (at most ${MAX_FIXED_VALUES}); ` +
        'tuples of parts that take no bits multiply without bound',
    );
  }
  return bound;
}

function boundOf(n: SchemaNode): DecodeBound {
  switch (n.kind) {
    case 'object': {
      let valuesPerBit = 0;
      let fixedValues = 1;
      for (const field of Object.values(n.fields)) {
        const b = boundOf(field);
        valuesPerBit = Math.max(valuesPerBit, b.valuesPerBit);
        fixedValues += b.fixedValues;
      }
      return { valuesPerBit, fixedValues };
    }
    case 'tuple': {
      const b = boundOf(n.item);
      return { valuesPerBit: b.valuesPerBit, fixedValues: 1 + n.length * b.fixedValues };
    }
    case 'optional': {
      // The presence bit pays for the absent case's one value.
      const b = boundOf(n.inner);
      return { valuesPerBit: Math.max(1, b.valuesPerBit), fixedValues: b.fixedValues };
    }
    case 'array': {
      const itemBits = minBits(n.item);
      // Items that can take no bits would let a few bytes of input claim maxLength of them.
      if (itemBits === 0) throw new RangeError('t.array: an item must take at least one bit on the wire');
      const b = boundOf(n.item);
      return { valuesPerBit: b.valuesPerBit + b.fixedValues / itemBits, fixedValues: 1 };
    }
    default:
      // A leaf is one value, paid for by its bits unless it takes none.
      return minBits(n) > 0 ? { valuesPerBit: 1, fixedValues: 0 } : { valuesPerBit: 0, fixedValues: 1 };
  }
}
