/**
 * Points (the arena's orbs) bucketed in square cells, kept as each one moves, so "the first point
 * within a box" visits the few points in the cells the box overlaps instead of all of them.
 * Lists in typed arrays: nothing is allocated after construction.
 */
export class PointCells {
  private readonly columns: number;
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly cellOf: Int32Array;

  /** Points 0..count-1 in [0, size]² (clamped into it), in cells of `cellSize`; none placed yet. */
  constructor(
    count: number,
    readonly size: number,
    readonly cellSize: number,
  ) {
    this.columns = Math.max(1, Math.ceil(size / cellSize));
    this.head = new Int32Array(this.columns * this.columns).fill(-1);
    this.next = new Int32Array(count).fill(-1);
    this.prev = new Int32Array(count).fill(-1);
    this.cellOf = new Int32Array(count).fill(-1);
  }

  private column(v: number): number {
    const c = Math.floor(v / this.cellSize);
    return c < 0 ? 0 : c >= this.columns ? this.columns - 1 : c;
  }

  /** Point `i` is now at (x, y). */
  place(i: number, x: number, y: number): void {
    const cell = this.column(y) * this.columns + this.column(x);
    const was = this.cellOf[i];
    if (was === cell) return;
    if (was >= 0) {
      const p = this.prev[i];
      const n = this.next[i];
      if (p >= 0) this.next[p] = n;
      else this.head[was] = n;
      if (n >= 0) this.prev[n] = p;
    }
    const first = this.head[cell];
    this.next[i] = first;
    this.prev[i] = -1;
    if (first >= 0) this.prev[first] = i;
    this.head[cell] = i;
    this.cellOf[i] = cell;
  }

  /**
   * The lowest-numbered point with |px − x| < reach and |py − y| < reach (the same answer as a scan
   * of every point in order), or -1. `px`, `py`: the points' coordinates, as placed.
   */
  firstWithin(x: number, y: number, reach: number, px: Float64Array, py: Float64Array): number {
    const columns = this.columns;
    const x0 = this.column(x - reach);
    const x1 = this.column(x + reach);
    const y0 = this.column(y - reach);
    const y1 = this.column(y + reach);
    let best = -1;
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        for (let i = this.head[cy * columns + cx]; i >= 0; i = this.next[i]) {
          if ((best < 0 || i < best) && Math.abs(px[i] - x) < reach && Math.abs(py[i] - y) < reach) best = i;
        }
      }
    }
    return best;
  }
}
