/**
 * The arena's interest for the Colyseus copy: user code in a Colyseus game (the framework has
 * none), written like ghostwire's (a uniform grid of half-radius cells, Euclidean distance, enter
 * within 40 m, leave beyond 46 m), so both servers send each client the same entities. Kept apart
 * from src/replication so the Colyseus figure does not move when ghostwire's grid does.
 *
 * Entities are small integers (orbs 0..399, avatars 400 + seat) at integer positions on the
 * 1/64 m grid; the room rebuilds the grid once a tick and refreshes each client's set from it.
 */
import { ARENA_UNITS, ENTER_METRES, GRID, LEAVE_METRES } from './colyseus-state.js';

const CELL = (ENTER_METRES / 2) * GRID;
const CELLS = Math.ceil(ARENA_UNITS / CELL) + 1;
const ENTER2 = (ENTER_METRES * GRID) ** 2;
const LEAVE2 = (LEAVE_METRES * GRID) ** 2;
const cellOf = (v: number) => Math.min(CELLS - 1, Math.max(0, Math.floor(v / CELL)));

export class ArenaGrid {
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly alive: Uint8Array;
  private readonly start = new Int32Array(CELLS * CELLS + 1);
  private readonly items: Int32Array;

  constructor(readonly capacity: number) {
    this.x = new Int32Array(capacity);
    this.y = new Int32Array(capacity);
    this.alive = new Uint8Array(capacity);
    this.items = new Int32Array(capacity);
  }

  /** Buckets every live entity by cell (a counting sort): once a tick, after the moves. */
  rebuild(): void {
    const { start, items, x, y, alive } = this;
    start.fill(0);
    for (let id = 0; id < this.capacity; id++)
      if (alive[id] === 1) start[cellOf(y[id]) * CELLS + cellOf(x[id]) + 1]++;
    for (let c = 1; c < start.length; c++) start[c] += start[c - 1];
    const fill = start.slice(0, CELLS * CELLS);
    for (let id = 0; id < this.capacity; id++)
      if (alive[id] === 1) items[fill[cellOf(y[id]) * CELLS + cellOf(x[id])]++] = id;
  }

  /**
   * Refreshes one client's relevant set around (cx, cy): `leave(id)` for each member now beyond
   * the leave radius or gone, then `enter(id)` for each entity within the enter radius not yet in.
   */
  refresh(
    set: InterestSet,
    cx: number,
    cy: number,
    enter: (id: number) => void,
    leave: (id: number) => void,
  ): void {
    const { x, y, alive, start, items } = this;
    const member = set.member;
    const list = set.list;
    for (let i = set.count - 1; i >= 0; i--) {
      const id = list[i];
      const dx = x[id] - cx;
      const dy = y[id] - cy;
      if (alive[id] === 1 && dx * dx + dy * dy <= LEAVE2) continue;
      member[id] = 0;
      list[i] = list[--set.count];
      leave(id);
    }
    const r = ENTER_METRES * GRID;
    const x0 = cellOf(cx - r);
    const x1 = cellOf(cx + r);
    const y1 = cellOf(cy + r);
    for (let cyi = cellOf(cy - r); cyi <= y1; cyi++)
      for (let cxi = x0; cxi <= x1; cxi++) {
        const c = cyi * CELLS + cxi;
        for (let k = start[c]; k < start[c + 1]; k++) {
          const id = items[k];
          if (member[id] === 1) continue;
          const dx = x[id] - cx;
          const dy = y[id] - cy;
          if (dx * dx + dy * dy > ENTER2) continue;
          member[id] = 1;
          list[set.count++] = id;
          enter(id);
        }
      }
  }
}

/** One client's relevant entities. */
export class InterestSet {
  readonly member: Uint8Array;
  readonly list: Int32Array;
  count = 0;

  constructor(capacity: number) {
    this.member = new Uint8Array(capacity);
    this.list = new Int32Array(capacity);
  }

  /** Forgets `id` without a callback (it is being deleted from the state). */
  drop(id: number): void {
    if (this.member[id] === 0) return;
    this.member[id] = 0;
    const i = this.list.indexOf(id);
    this.list[i] = this.list[--this.count];
  }
}
