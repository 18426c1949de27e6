import { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
import { ALIGN_WORST_CASE } from '../serialize/measure-stream.js';
import type { SchemaNode } from './schema.js';

/** Bits a node always takes, or -1 when its size depends on the value. */
export function fixedBits(n: SchemaNode): number {
  switch (n.kind) {
    case 'bool':
      return 1;
    case 'int':
      return bitsRequired(n.min, n.max);
    case 'int64':
      return bitsRequired64(n.min, n.max);
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
