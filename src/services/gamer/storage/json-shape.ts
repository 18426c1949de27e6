/**
 * Whether a value can be stored as a document: JSON only (no undefined, function, bigint, NaN or
 * infinity), nested at most `maxDepth`, at most `maxNodes` values in all, no NUL character and no
 * lone surrogate in any string or key (PostgreSQL's jsonb refuses both). The walk stops at the
 * first problem or past maxNodes, so a hostile value costs at most maxNodes steps.
 */

const LONE_SURROGATE = /\p{Surrogate}/u;

function badText(text: string): string | null {
  if (text.includes('\u0000')) return 'no NUL character in a string';
  if (LONE_SURROGATE.test(text)) return 'no lone surrogate in a string';
  return null;
}

/** Why `value` cannot be stored, or null when it can. */
export function jsonShapeProblem(value: unknown, maxDepth: number, maxNodes: number): string | null {
  if (value === undefined) return 'a value is required';
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let nodes = 1; // counted as they are pushed: the stack never holds more than maxNodes
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'numbers must be finite';
      continue;
    }
    if (typeof v === 'string') {
      const problem = badText(v);
      if (problem !== null) return problem;
      continue;
    }
    if (typeof v !== 'object') return `not JSON: a ${typeof v}`;
    if (depth >= maxDepth) return `nested deeper than ${maxDepth}`;
    if (Array.isArray(v)) {
      nodes += v.length;
      if (nodes > maxNodes) return `at most ${maxNodes} values in a document`;
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return 'not JSON: an object of a class';
    for (const key of Object.keys(v)) {
      const problem = badText(key);
      if (problem !== null) return problem.replace('string', 'key');
      if (++nodes > maxNodes) return `at most ${maxNodes} values in a document`;
      stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return null;
}
