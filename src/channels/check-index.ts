/**
 * Checks an index argument (a channel, a client slot) given by the caller: an integer in
 * [0, count). Misuse fails loudly at the call, naming the argument: a TypeError for a value that
 * is not a number (`"0"` would otherwise index an array and pass), a RangeError for a number that
 * is not an integer in range. The fast path is one unsigned shift and two comparisons, no
 * allocation, so it can sit on every send and receive.
 */
export function checkIndex(where: string, argument: string, value: unknown, count: number): number {
  if ((value as number) >>> 0 === value && (value as number) < count) return value as number;
  if (typeof value !== 'number')
    throw new TypeError(`${where}: ${argument} must be a number, got ${describe(value)}`);
  throw new RangeError(`${where}: ${argument} must be an integer in [0, ${count - 1}], got ${value}`);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : typeof value;
}
