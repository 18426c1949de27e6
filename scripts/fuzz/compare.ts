import type { SchemaNode } from '../../src/schema/schema.js';
import { sameBytes } from '../bytes.js';
import { compressedFloatMismatch, f32, show, smallestThreeMismatch } from './helpers.js';

// ---------------------------------------------------------------------------------------------
// Schema-directed comparison
// ---------------------------------------------------------------------------------------------

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export const at = (path: string) => path || 'value';

/**
 * The first difference between two decoded values of `n`, or null when equal: numbers by
 * Object.is (NaN equals NaN, 0 differs from -0), bytes by content, objects field by field with the
 * same number of keys, arrays item by item.
 */
export function diffExact(n: SchemaNode, a: unknown, b: unknown, path = ''): string | null {
  switch (n.kind) {
    case 'bool':
    case 'int':
    case 'entity':
    case 'int64':
    case 'float32':
    case 'float64':
    case 'float':
    case 'string':
    case 'enum':
      return Object.is(a, b) ? null : `${at(path)}: ${show(a)} vs ${show(b)}`;
    case 'bytes':
      return a instanceof Uint8Array && b instanceof Uint8Array && sameBytes(a, b)
        ? null
        : `${at(path)}: ${show(a)} vs ${show(b)}`;
    case 'quaternion':
    case 'smallestThree': {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== 4 || b.length !== 4)
        return `${at(path)}: ${show(a)} vs ${show(b)}`;
      for (let i = 0; i < 4; i++) if (!Object.is(a[i], b[i])) return `${at(path)}: ${show(a)} vs ${show(b)}`;
      return null;
    }
    case 'object': {
      if (!isRecord(a) || !isRecord(b)) return `${at(path)}: ${show(a)} vs ${show(b)}`;
      if (Object.keys(a).length !== Object.keys(b).length)
        return `${at(path)}: keys ${show(Object.keys(a))} vs ${show(Object.keys(b))}`;
      for (const key in n.fields) {
        const d = diffExact(n.fields[key], a[key], b[key], `${path}.${key}`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'array':
    case 'tuple': {
      if (!Array.isArray(a) || !Array.isArray(b)) return `${at(path)}: ${show(a)} vs ${show(b)}`;
      if (a.length !== b.length) return `${at(path)}: length ${a.length} vs ${b.length}`;
      for (let i = 0; i < a.length; i++) {
        const d = diffExact(n.item, a[i], b[i], `${path}[${i}]`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'optional':
      if (a === undefined || b === undefined) return a === b ? null : `${at(path)}: ${show(a)} vs ${show(b)}`;
      return diffExact(n.inner, a, b, path);
  }
}

/**
 * The first way `read` fails to be what writing `written` should read back as, or null: exact for
 * lossless kinds, float32 rounding for float32 and quaternion, the quantization bounds above for
 * compressed floats and smallest-three; an absent optional (undefined or null) reads as undefined.
 */
export function diffRoundTrip(n: SchemaNode, written: unknown, read: unknown, path = ''): string | null {
  const mismatch = (detail: string) => `${at(path)}: ${detail}`;
  switch (n.kind) {
    case 'bool':
    case 'int':
    case 'entity':
    case 'int64':
    case 'float64':
    case 'string':
    case 'enum':
      return Object.is(written, read) ? null : mismatch(`wrote ${show(written)}, read ${show(read)}`);
    case 'float32':
      return Object.is(f32(written as number), read)
        ? null
        : mismatch(`wrote ${show(written)}, read ${show(read)}`);
    case 'float': {
      const d = compressedFloatMismatch(n.spec, written as number, read);
      return d === null ? null : mismatch(d);
    }
    case 'bytes':
      return read instanceof Uint8Array && sameBytes(written as Uint8Array, read)
        ? null
        : mismatch(`wrote ${show(written)}, read ${show(read)}`);
    case 'quaternion': {
      const w = written as number[];
      if (!Array.isArray(read) || read.length !== 4) return mismatch(`read ${show(read)}`);
      for (let i = 0; i < 4; i++)
        if (!Object.is(read[i], f32(w[i]))) return mismatch(`wrote ${show(w)}, read ${show(read)}`);
      return null;
    }
    case 'smallestThree': {
      const d = smallestThreeMismatch(n.bits, written as number[], read);
      return d === null ? null : mismatch(d);
    }
    case 'object': {
      if (!isRecord(read)) return mismatch(`read ${show(read)}`);
      const w = written as Record<string, unknown>;
      for (const key in n.fields) {
        if (!(key in read)) return mismatch(`field ${key} missing from the value read`);
        const d = diffRoundTrip(n.fields[key], w[key], read[key], `${path}.${key}`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'array':
    case 'tuple': {
      const w = written as unknown[];
      if (!Array.isArray(read)) return mismatch(`read ${show(read)}`);
      if (read.length !== w.length) return mismatch(`wrote ${w.length} items, read ${read.length}`);
      for (let i = 0; i < w.length; i++) {
        const d = diffRoundTrip(n.item, w[i], read[i], `${path}[${i}]`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'optional':
      if (written === undefined || written === null)
        return read === undefined ? null : mismatch(`wrote ${show(written)}, read ${show(read)}`);
      if (read === undefined) return mismatch(`wrote ${show(written)}, read undefined`);
      return diffRoundTrip(n.inner, written, read, path);
  }
}
