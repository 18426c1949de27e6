/** 16-bit sequence numbers that wrap: s1 is newer than s2 if it is ahead by less than half the space. */
export function sequenceGreaterThan(s1: number, s2: number): boolean {
  return (s1 > s2 && s1 - s2 <= 32768) || (s1 < s2 && s2 - s1 > 32768);
}

export function sequenceLessThan(s1: number, s2: number): boolean {
  return sequenceGreaterThan(s2, s1);
}
