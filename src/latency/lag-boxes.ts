/** LagCompensation's broad phase: boxes [minX, minY, minZ, maxX, maxY, maxZ], checked and overlapped. */

/** A box [minX, minY, minZ, maxX, maxY, maxZ] without NaN and with min <= max on each axis. */
export function checkVolume(where: string, v: ArrayLike<number>): void {
  if (v == null || typeof v !== 'object' || v.length !== 6)
    throw new RangeError(`${where}: a box must be 6 numbers [minX, minY, minZ, maxX, maxY, maxZ]`);
  for (let a = 0; a < 3; a++) {
    // NaN fails both comparisons; infinite extents (a box of everything) are allowed.
    if (!(v[a] <= v[a + 3]))
      throw new RangeError(`${where}: box axis ${a} must have min <= max, got [${v[a]}, ${v[a + 3]}]`);
  }
}

/**
 * Whether the union of the boxes at offsets `a` and `b` of `boxes` overlaps `v`: the swept box of
 * every blend of the two.
 */
export function overlaps(boxes: Float64Array, a: number, b: number, v: ArrayLike<number>): boolean {
  for (let axis = 0; axis < 3; axis++) {
    const min = Math.min(boxes[a + axis], boxes[b + axis]);
    const max = Math.max(boxes[a + axis + 3], boxes[b + axis + 3]);
    if (min > v[axis + 3] || max < v[axis]) return false;
  }
  return true;
}
