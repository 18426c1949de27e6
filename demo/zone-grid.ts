/**
 * The zoned demo's grid (`npm start -- --zones N`): how the arena is cut into N equal zones, and
 * the description the page reads from GET /zones to draw the borders. Browser-safe.
 */

/** The most zones the demo's flag takes. */
export const MAX_DEMO_ZONES = 16;

/** The zone grid as the page learns it from GET /zones. */
export interface DemoZoneGrid {
  /** Zones across (x) and down (y); zone z is at column z % columns, row floor(z / columns). */
  columns: number;
  rows: number;
  /** The arena's rectangle the grid cuts. */
  bounds: { minX: number; minY: number; maxX: number; maxY: number };
}

/**
 * The most square grid of exactly `zones` zones, wider than tall when it cannot be square
 * (4: 2 × 2, 2: 2 × 1, 6: 3 × 2, 7: 7 × 1): the fewest columns whose square reaches `zones`.
 */
export function demoZoneGrid(zones: number): { columns: number; rows: number } {
  if (!Number.isInteger(zones) || zones < 1 || zones > MAX_DEMO_ZONES)
    throw new RangeError(`demoZoneGrid: zones must be an integer in [1, ${MAX_DEMO_ZONES}], got ${zones}`);
  let columns = Math.ceil(Math.sqrt(zones));
  while (zones % columns !== 0) columns++;
  return { columns, rows: zones / columns };
}

/**
 * The borders between zones as line segments ([x1, y1, x2, y2] in arena units): the inner edges
 * only, the arena's own edge being drawn anyway. One zone has none.
 */
export function zoneBorders(grid: DemoZoneGrid): [number, number, number, number][] {
  const { minX, minY, maxX, maxY } = grid.bounds;
  const lines: [number, number, number, number][] = [];
  for (let c = 1; c < grid.columns; c++) {
    const x = minX + ((maxX - minX) * c) / grid.columns;
    lines.push([x, minY, x, maxY]);
  }
  for (let r = 1; r < grid.rows; r++) {
    const y = minY + ((maxY - minY) * r) / grid.rows;
    lines.push([minX, y, maxX, y]);
  }
  return lines;
}

/** Reads GET /zones' answer as the page gets it: a grid, or null for anything else (the plain demo answers null). */
export function readZoneGrid(value: unknown): DemoZoneGrid | null {
  if (typeof value !== 'object' || value === null) return null;
  const { columns, rows, bounds } = value as Partial<DemoZoneGrid>;
  const whole = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_DEMO_ZONES;
  if (!whole(columns) || !whole(rows) || typeof bounds !== 'object' || bounds === null) return null;
  const { minX, minY, maxX, maxY } = bounds;
  if (![minX, minY, maxX, maxY].every(Number.isFinite) || !(maxX > minX && maxY > minY)) return null;
  return { columns: columns!, rows: rows!, bounds: { minX, minY, maxX, maxY } };
}
