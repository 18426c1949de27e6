/**
 * A zone map as plain data, its limits, and the check that a description (from a snapshot, from
 * the supervisor over the bus) is one: cheap, total, with a reason.
 */

/** Zone indexes fit in 8 bits: a world id carries the allocating zone in its top byte. */
export const MAX_ZONES = 256;
/** At most this many cells (columns × rows), so a map stays small enough to send and to scan. */
export const MAX_CELLS = 65_536;

/** A map as plain data: what a snapshot stores or a supervisor sends. */
export interface ZoneMapDescription {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
  readonly columns: number;
  readonly rows: number;
  /** The zone of each cell, row by row from (minX, minY): cell = row × columns + column. */
  readonly cellZones: ArrayLike<number>;
  /** 0 for a new map; a restored map keeps its version. */
  readonly mapVersion?: number;
}

export const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;

/**
 * Why `d` is not a valid map, or null. Cheap and total (never throws), so a description that
 * came over the bus can be checked before it is built; the constructor throws this same reason.
 */
export function zoneMapProblem(d: ZoneMapDescription): string | null {
  if (typeof d !== 'object' || d === null) return 'not an object';
  for (const key of ['minX', 'minY', 'maxX', 'maxY'] as const)
    if (typeof d[key] !== 'number' || !Number.isFinite(d[key])) return `${key} is not a finite number`;
  if (!(d.maxX > d.minX) || !(d.maxY > d.minY)) return 'the bounds are empty (max must exceed min)';
  if (!isCount(d.columns, MAX_CELLS) || !isCount(d.rows, MAX_CELLS))
    return `columns and rows must be integers from 1 to ${MAX_CELLS}`;
  // Cells must have a finite, non-zero size, or every division by it goes wrong.
  const cellWidth = (d.maxX - d.minX) / d.columns;
  const cellHeight = (d.maxY - d.minY) / d.rows;
  if (!(cellWidth > 0 && cellHeight > 0 && Number.isFinite(cellWidth) && Number.isFinite(cellHeight)))
    return 'the cells have no finite, non-zero size';
  if (d.columns * d.rows > MAX_CELLS) return `${d.columns}x${d.rows} cells is more than ${MAX_CELLS}`;
  const cells = d.cellZones;
  if (typeof cells !== 'object' || cells === null || cells.length !== d.columns * d.rows)
    return `cellZones must hold columns x rows = ${d.columns * d.rows} zones`;
  for (let i = 0; i < cells.length; i++) {
    const z = cells[i];
    if (!Number.isInteger(z) || z < 0 || z >= MAX_ZONES)
      return `cell ${i} has zone ${z}, not 0..${MAX_ZONES - 1}`;
  }
  const v = d.mapVersion ?? 0;
  if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) return `mapVersion ${v} is not a uint32`;
  return null;
}
