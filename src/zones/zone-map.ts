/**
 * The zone map: the world's bounds cut into a grid of equal cells, each cell run by one zone.
 * A zone is the union of its cells, so splitting or merging zones moves cells and never redraws
 * shapes; every change bumps `mapVersion` so that zones and gateways can tell which map a message
 * was decided under.
 *
 * Geometry: cell edges lie at min + i × cellWidth (the last one at max exactly). Cells are closed
 * rectangles for distances (a point on a shared edge is at distance 0 from both sides) and
 * half-open for `zoneAt` (a point on an edge belongs to the cell to its right or above), so every
 * point has exactly one zone. A position outside the bounds is treated as the nearest point inside
 * them: an entity pushed off the world still has an owner, and every query agrees on where it is.
 * Distances are Euclidean, as the replication layer's interest radius is.
 *
 * Pure: no clock, no I/O, so zone servers, gateways and browsers can all hold one.
 */

import { isCount, MAX_ZONES, type ZoneMapDescription, zoneMapProblem } from './zone-map-description.js';

export class ZoneMap {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
  readonly columns: number;
  readonly rows: number;
  readonly cellWidth: number;
  readonly cellHeight: number;
  private readonly cells: Uint8Array;
  private readonly cellCounts = new Uint32Array(MAX_ZONES);
  private version: number;
  /** Neighbour lists per zone for the current version, built on first ask. */
  private neighbourCache: (readonly number[] | undefined)[] = [];
  /** Marks for de-duplicating zones within one query without allocating: stamp per zone. */
  private readonly seen = new Uint32Array(MAX_ZONES);
  private stamp = 0;
  /** The cell window of the last `window` call (fields, so a query allocates nothing). */
  private columnFrom = 0;
  private columnTo = 0;
  private rowFrom = 0;
  private rowTo = 0;

  constructor(description: ZoneMapDescription) {
    const problem = zoneMapProblem(description);
    if (problem !== null) throw new RangeError(`ZoneMap: ${problem}`);
    const d = description;
    this.minX = d.minX;
    this.minY = d.minY;
    this.maxX = d.maxX;
    this.maxY = d.maxY;
    this.columns = d.columns;
    this.rows = d.rows;
    this.cellWidth = (d.maxX - d.minX) / d.columns;
    this.cellHeight = (d.maxY - d.minY) / d.rows;
    this.cells = Uint8Array.from(d.cellZones);
    for (const z of this.cells) this.cellCounts[z]++;
    this.version = d.mapVersion ?? 0;
  }

  /**
   * A map of `columns` × `rows` cells whose zones are a grid of `zoneColumns` × `zoneRows` equal
   * blocks (zone = block row × zoneColumns + block column): the usual starting layout.
   */
  static grid(
    bounds: { minX: number; minY: number; maxX: number; maxY: number },
    columns: number,
    rows: number,
    zoneColumns: number,
    zoneRows: number,
  ): ZoneMap {
    if (!isCount(zoneColumns, columns) || !isCount(zoneRows, rows))
      throw new RangeError(
        `ZoneMap.grid: ${zoneColumns}x${zoneRows} zones do not fit ${columns}x${rows} cells`,
      );
    if (zoneColumns * zoneRows > MAX_ZONES)
      throw new RangeError(`ZoneMap.grid: ${zoneColumns * zoneRows} zones is more than ${MAX_ZONES}`);
    const cellZones = new Array<number>(columns * rows);
    for (let row = 0; row < rows; row++)
      for (let col = 0; col < columns; col++) {
        const zone =
          Math.floor((row * zoneRows) / rows) * zoneColumns + Math.floor((col * zoneColumns) / columns);
        cellZones[row * columns + col] = zone;
      }
    return new ZoneMap({ ...bounds, columns, rows, cellZones });
  }

  /** Bumped by every change of a cell's zone. @internal */
  get mapVersion(): number {
    return this.version;
  }

  /** One past the highest zone index that owns a cell. */
  get zoneCount(): number {
    for (let z = MAX_ZONES - 1; z >= 0; z--) if (this.cellCounts[z] > 0) return z + 1;
    return 0;
  }

  /** How many cells `zone` owns (0 for a zone that has none, as after a merge). */
  cellCount(zone: number): number {
    this.checkZone('cellCount', zone);
    return this.cellCounts[zone];
  }

  /** The map as plain data (a copy). @internal */
  describe(): ZoneMapDescription & { mapVersion: number; cellZones: number[] } {
    const { minX, minY, maxX, maxY, columns, rows } = this;
    return { minX, minY, maxX, maxY, columns, rows, cellZones: [...this.cells], mapVersion: this.version };
  }

  /** The cells of `zone`, ascending: what a split divides and hands to `moveCells`. */
  cellsOf(zone: number): number[] {
    this.checkZone('cellsOf', zone);
    const out: number[] = [];
    for (let cell = 0; cell < this.cells.length; cell++) if (this.cells[cell] === zone) out.push(cell);
    return out;
  }

  /** The zone of one cell. */
  zoneOfCell(cell: number): number {
    this.checkCell('zoneOfCell', cell);
    return this.cells[cell];
  }

  /** The cell that holds (x, y): half-open cells, positions outside the bounds clamped in. */
  cellAt(x: number, y: number): number {
    checkPoint('cellAt', x, y);
    return this.rowOf(y) * this.columns + this.columnOf(x);
  }

  /** The one zone that holds (x, y). */
  zoneAt(x: number, y: number): number {
    return this.cells[this.cellAt(x, y)];
  }

  /**
   * Gives `cells` to `zone` and bumps `mapVersion` if any cell changed hands (a split or a merge
   * is one call). Returns how many cells changed. Checks every argument before changing anything.
   * @internal (the zones' own machinery, not a game's)
   */
  moveCells(cells: ArrayLike<number>, zone: number): number {
    this.checkZone('moveCells', zone);
    for (let i = 0; i < cells.length; i++) this.checkCell('moveCells', cells[i]);
    let moved = 0;
    for (let i = 0; i < cells.length; i++) {
      const from = this.cells[cells[i]];
      if (from === zone) continue;
      this.cells[cells[i]] = zone;
      this.cellCounts[from]--;
      this.cellCounts[zone]++;
      moved++;
    }
    if (moved > 0) {
      this.version = (this.version + 1) >>> 0;
      this.neighbourCache = [];
    }
    return moved;
  }

  /**
   * The shortest distance from (x, y) (clamped into the bounds) to `zone`'s cells: 0 inside it or
   * on its edge, Infinity for a zone with no cell. Only the cells within `limit` are looked at,
   * so a far zone costs no more than a near one; beyond `limit` the answer is Infinity.
   * @internal (the zones' own machinery, not a game's)
   */
  distanceToZone(zone: number, x: number, y: number, limit = Number.POSITIVE_INFINITY): number {
    this.checkZone('distanceToZone', zone);
    checkPoint('distanceToZone', x, y);
    if (!(limit >= 0)) throw new RangeError(`ZoneMap.distanceToZone: limit ${limit} must be >= 0`);
    if (this.cellCounts[zone] === 0) return Number.POSITIVE_INFINITY;
    const px = clamp(x, this.minX, this.maxX);
    const py = clamp(y, this.minY, this.maxY);
    let best = Number.POSITIVE_INFINITY;
    this.window(px, py, Math.min(limit, this.maxX - this.minX + this.maxY - this.minY));
    for (let row = this.rowFrom; row <= this.rowTo; row++)
      for (let col = this.columnFrom; col <= this.columnTo; col++) {
        if (this.cells[row * this.columns + col] !== zone) continue;
        const d = this.cellDistance(col, row, px, py);
        if (d < best) best = d;
      }
    return best <= limit ? best : Number.POSITIVE_INFINITY;
  }

  /** Whether (x, y) is within `radius` of `zone`'s cells (inside it counts). @internal */
  isWithin(zone: number, x: number, y: number, radius: number): boolean {
    checkRadius('isWithin', radius);
    return this.distanceToZone(zone, x, y, radius) <= radius;
  }

  /**
   * The zones other than `owner` within `radius` of (x, y), ascending, written into `out` (cleared
   * first) and returned: the zones that need a read-only proxy of an entity owned by `owner` at
   * (x, y) whose viewers see `radius` far. The zone that holds the point is among them when the
   * owner is not (an entity in its owner's hysteresis margin). Allocates nothing when `out` is
   * reused.
   * @internal (the zones' own machinery, not a game's)
   */
  proxyZones(owner: number, x: number, y: number, radius: number, out: number[] = []): number[] {
    this.checkZone('proxyZones', owner);
    checkPoint('proxyZones', x, y);
    checkRadius('proxyZones', radius);
    return this.zonesAround(owner, x, y, radius, out);
  }

  /**
   * The zones whose cells touch `zone`'s cells along an edge or at a corner, ascending (cached
   * per map version). These are the zones that exchange border feeds when the interest radius is
   * below a cell's width and height; for a larger radius use `zonesNear`.
   * @internal (the zones' own machinery, not a game's)
   */
  neighbours(zone: number): readonly number[] {
    this.checkZone('neighbours', zone);
    let cached = this.neighbourCache[zone];
    if (cached === undefined) {
      cached = Object.freeze(this.zonesNear(zone, 0));
      this.neighbourCache[zone] = cached;
    }
    return cached;
  }

  /**
   * The other zones with a cell within `radius` of one of `zone`'s cells, ascending: every zone
   * that may need proxies of `zone`'s entities for viewers that see `radius` far. Costs one pass
   * over the zone's cells and their surroundings: meant for set-up and map changes, not per tick.
   * @internal (the zones' own machinery, not a game's)
   */
  zonesNear(zone: number, radius: number): number[] {
    this.checkZone('zonesNear', zone);
    checkRadius('zonesNear', radius);
    const out: number[] = [];
    const stamp = this.nextStamp();
    this.seen[zone] = stamp;
    const reachX = Math.ceil(radius / this.cellWidth);
    const reachY = Math.ceil(radius / this.cellHeight);
    // Every other zone found ends the scan early: a radius as wide as the world costs one pass.
    let others = 0;
    for (let z = 0; z < MAX_ZONES; z++) if (z !== zone && this.cellCounts[z] > 0) others++;
    for (let row = 0; row < this.rows && out.length < others; row++)
      for (let col = 0; col < this.columns && out.length < others; col++) {
        if (this.cells[row * this.columns + col] !== zone) continue;
        for (let r = Math.max(0, row - reachY - 1); r <= Math.min(this.rows - 1, row + reachY + 1); r++)
          for (
            let c = Math.max(0, col - reachX - 1);
            c <= Math.min(this.columns - 1, col + reachX + 1);
            c++
          ) {
            const other = this.cells[r * this.columns + c];
            if (this.seen[other] === stamp) continue;
            if (this.cellGap(col, row, c, r) > radius) continue;
            this.seen[other] = stamp;
            insertSorted(out, other);
          }
      }
    return out;
  }

  /**
   * The zones whose closed cells hold (x, y) (clamped), ascending, into `out`: one for a point
   * inside a zone, several for a point on a border between zones (up to 4, at a grid corner).
   * @internal (the zones' own machinery, not a game's)
   */
  zonesTouching(x: number, y: number, out: number[] = []): number[] {
    checkPoint('zonesTouching', x, y);
    return this.zonesAround(-1, x, y, 0, out);
  }

  /** The zones but `except` (-1: none) within `radius` of (x, y) clamped, ascending, into `out`. */
  private zonesAround(except: number, x: number, y: number, radius: number, out: number[]): number[] {
    out.length = 0;
    const px = clamp(x, this.minX, this.maxX);
    const py = clamp(y, this.minY, this.maxY);
    const stamp = this.nextStamp();
    if (except >= 0) this.seen[except] = stamp;
    this.window(px, py, radius);
    for (let row = this.rowFrom; row <= this.rowTo; row++)
      for (let col = this.columnFrom; col <= this.columnTo; col++) {
        const zone = this.cells[row * this.columns + col];
        if (this.seen[zone] === stamp || this.cellDistance(col, row, px, py) > radius) continue;
        this.seen[zone] = stamp;
        insertSorted(out, zone);
      }
    return out;
  }

  /** Distance from a point inside the bounds to cell (col, row), closed. */
  private cellDistance(col: number, row: number, px: number, py: number): number {
    const x0 = edge(col, this.minX, this.maxX, this.cellWidth, this.columns);
    const x1 = edge(col + 1, this.minX, this.maxX, this.cellWidth, this.columns);
    const y0 = edge(row, this.minY, this.maxY, this.cellHeight, this.rows);
    const y1 = edge(row + 1, this.minY, this.maxY, this.cellHeight, this.rows);
    const dx = px < x0 ? x0 - px : px > x1 ? px - x1 : 0;
    const dy = py < y0 ? y0 - py : py > y1 ? py - y1 : 0;
    return dx === 0 ? dy : dy === 0 ? dx : Math.sqrt(dx * dx + dy * dy);
  }

  /** Distance between two closed cells (0 when they share an edge or a corner). */
  private cellGap(c0: number, r0: number, c1: number, r1: number): number {
    const gapColumns = Math.max(0, Math.abs(c1 - c0) - 1);
    const gapRows = Math.max(0, Math.abs(r1 - r0) - 1);
    return Math.hypot(gapColumns * this.cellWidth, gapRows * this.cellHeight);
  }

  /**
   * The cell columns and rows that may lie within `radius` of a point in the bounds, one cell
   * wider on each side than the division says, so a rounding at a cell edge never drops a cell
   * that the exact distance test would keep.
   */
  private window(px: number, py: number, radius: number): void {
    this.columnFrom = Math.max(0, Math.floor((px - radius - this.minX) / this.cellWidth) - 1);
    this.columnTo = Math.min(this.columns - 1, Math.floor((px + radius - this.minX) / this.cellWidth) + 1);
    this.rowFrom = Math.max(0, Math.floor((py - radius - this.minY) / this.cellHeight) - 1);
    this.rowTo = Math.min(this.rows - 1, Math.floor((py + radius - this.minY) / this.cellHeight) + 1);
  }

  private columnOf(x: number): number {
    return halfOpenIndex(x, this.minX, this.maxX, this.cellWidth, this.columns);
  }

  private rowOf(y: number): number {
    return halfOpenIndex(y, this.minY, this.maxY, this.cellHeight, this.rows);
  }

  private nextStamp(): number {
    this.stamp = (this.stamp + 1) >>> 0;
    if (this.stamp === 0) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  private checkZone(method: string, zone: number): void {
    if (!Number.isInteger(zone) || zone < 0 || zone >= MAX_ZONES)
      throw new RangeError(`ZoneMap.${method}: zone ${zone} is not an integer from 0 to ${MAX_ZONES - 1}`);
  }

  private checkCell(method: string, cell: number): void {
    if (!Number.isInteger(cell) || cell < 0 || cell >= this.cells.length)
      throw new RangeError(
        `ZoneMap.${method}: cell ${cell} is not an integer from 0 to ${this.cells.length - 1}`,
      );
  }
}

/**
 * The i in [0, count) with min + i × size <= v < min + (i + 1) × size, clamped: the division can
 * round across an edge by one unit in the last place, so it is corrected against the very edges
 * that distances use, and `zoneAt` never disagrees with `zonesTouching`.
 */
function halfOpenIndex(v: number, min: number, max: number, size: number, count: number): number {
  let i = Math.floor((v - min) / size);
  if (i >= 0 && i < count && v < edge(i, min, max, size, count)) i--;
  else if (i >= -1 && i < count - 1 && v >= edge(i + 1, min, max, size, count)) i++;
  return i < 0 ? 0 : i >= count ? count - 1 : i;
}

/** Edge i of `count` cells of `size` from `min`; the last one is `max` itself, whatever the rounding. */
function edge(i: number, min: number, max: number, size: number, count: number): number {
  return i >= count ? max : min + i * size;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), hi);
}

function checkPoint(method: string, x: number, y: number): void {
  if (!Number.isFinite(x) || !Number.isFinite(y))
    throw new RangeError(`ZoneMap.${method}: position (${x}, ${y}) is not finite`);
}

function checkRadius(method: string, radius: number): void {
  if (!Number.isFinite(radius) || radius < 0)
    throw new RangeError(`ZoneMap.${method}: radius ${radius} must be a finite number >= 0`);
}

/** Inserts `v` (known absent) into the ascending array `out`: lists here hold a handful of zones. */
function insertSorted(out: number[], v: number): void {
  let i = out.length;
  out.push(v);
  while (i > 0 && out[i - 1] > v) {
    out[i] = out[i - 1];
    i--;
  }
  out[i] = v;
}
