/**
 * Interest management (relevancy): which entities each client should have ghosts of.
 *
 * The manager owns the world's spatial grid and one InterestView per client. `update()` refreshes
 * every view in one pass: per view, one grid query (at its enter radius, or at its leave radius
 * with a filter) and a pass over its members, so the work is proportional to what is near each
 * client, never clients × entities. An entity is relevant to a
 * view when:
 *   - it is in the manager's or the view's always-relevant list (the game-state entity,
 *     teammates): relevant wherever it is, the filter is not asked; or
 *   - it is within the enter radius, or it was relevant and is still within the leave radius
 *     (hysteresis), and then the optional filter has the last word: it is called with that
 *     verdict and may veto it (hidden, wrong team) or force it (keep it in the hysteresis band).
 *     Entities beyond the leave radius are never offered to the filter: to force a far entity in,
 *     use an always-relevant list.
 * Each update fills every view's `entered` and `left` lists with the exact difference between
 * the relevant sets before and after, so the replication layer creates and destroys ghosts.
 * `removeEntity` takes the entity out of every view at once (`has` turns false) and reports it in
 * the next update's `left` list, so an id reused right away cannot inherit the old ghost.
 */
import { checkIndex } from '../channels/check-index.js';
import { IdList } from './id-list.js';
import { InterestView, type InterestViewOptions } from './interest-view.js';
import { SpatialGrid, type SpatialGridOptions } from './spatial-grid.js';

/**
 * Decides an entity's relevance to a view: `inRange` is the distance verdict (with hysteresis);
 * return true to make it relevant, false to hide it.
 */
export type RelevanceFilter = (view: InterestView, id: number, inRange: boolean) => boolean;

export interface InterestManagerOptions {
  /** The world: capacity (ids), bounds and cell size of the spatial grid. */
  world: SpatialGridOptions;
  /** Client indices are integers in [0, maxClients). */
  maxClients: number;
  filter?: RelevanceFilter;
}

export class InterestManager {
  readonly grid: SpatialGrid;
  readonly maxClients: number;
  filter: RelevanceFilter | undefined;
  /** Relevant to every client wherever they are (the game-state entity). */
  readonly alwaysRelevant = new IdList(4);
  private readonly views: (InterestView | undefined)[];
  /** Clients with a view, in the order they were added (the update order). */
  private readonly active: InterestView[] = [];
  /** `seen[id] === epoch` when id was found relevant in the view being updated. */
  private readonly seen: Uint32Array;
  /**
   * @internal Per id: 1 for an entity whose membership is kept by its owner's code (a private
   * part's companion, see PartAudience), never by distance, filter or always-relevant lists.
   */
  readonly pinned: Uint8Array;
  private epoch = 0;
  private current: InterestView | undefined;
  private enterRadiusSquared = 0;
  /** The grid query's visitor, made once so queries allocate nothing. */
  private readonly visitCandidate = (id: number, distanceSquared: number): void => {
    const view = this.current!;
    if (this.pinned[id] === 1) return;
    const member = view.isMember(id);
    let relevant = member || distanceSquared <= this.enterRadiusSquared;
    if (this.filter !== undefined) relevant = this.filter(view, id, relevant);
    if (relevant) this.admit(view, id, member);
  };

  /** The visitor of the query without a filter: what is within the enter radius and new enters. */
  private readonly visitEntering = (id: number): void => {
    const view = this.current!;
    if (view.isMember(id) || this.pinned[id] === 1) return;
    view.addMember(id);
    view.entered.push(id);
  };

  constructor(options: InterestManagerOptions) {
    this.grid = new SpatialGrid(options.world);
    const { maxClients } = options;
    if (!Number.isInteger(maxClients) || maxClients < 1)
      throw new RangeError(`InterestManager: maxClients must be an integer >= 1, got ${maxClients}`);
    this.maxClients = maxClients;
    this.filter = options.filter;
    this.views = new Array(maxClients).fill(undefined);
    this.seen = new Uint32Array(this.grid.capacity);
    this.pinned = new Uint8Array(this.grid.capacity);
  }

  /** Adds an entity to the world at a position (z ignored in 2D). */
  addEntity(id: number, x: number, y: number, z = 0): void {
    this.grid.insert(id, x, y, z);
  }

  /** Moves an entity (see SpatialGrid.move: call it directly in hot loops, or use moveEntities). */
  moveEntity(id: number, x: number, y: number, z = 0): void {
    this.grid.move(id, x, y, z);
  }

  /** Moves every entity in the world from a typed array of positions (see SpatialGrid.moveAll). */
  moveEntities(positions: Float64Array, stride: 2 | 3 = 3, count = this.grid.capacity): void {
    this.grid.moveAll(positions, stride, count);
  }

  /** Removes an entity from the world and from every view it is in (reported as left). */
  removeEntity(id: number): void {
    this.grid.remove(id);
    this.removeFromViews(id);
  }

  /** @internal Removes an id from every view it is in (reported as left), grid or not (a pinned id). */
  removeFromViews(id: number): void {
    for (const view of this.active) {
      if (!view.isMember(id)) continue;
      view.removeSlot(view.slotOf(id));
      view.pendingLeft.push(id);
    }
  }

  addAlwaysRelevant(id: number): void {
    checkIndex('InterestManager.addAlwaysRelevant', 'id', id, this.grid.capacity);
    if (this.alwaysRelevant.indexOf(id) < 0) this.alwaysRelevant.push(id);
  }

  removeAlwaysRelevant(id: number): void {
    const index = this.alwaysRelevant.indexOf(id);
    if (index >= 0) this.alwaysRelevant.swapRemove(index);
  }

  /** Creates the view of a client (empty until the next update). */
  addView(client: number, options: InterestViewOptions): InterestView {
    checkIndex('InterestManager.addView', 'client', client, this.maxClients);
    if (this.views[client] !== undefined)
      throw new RangeError(`InterestManager.addView: client ${client} already has a view`);
    const view = new InterestView(client, this.grid.capacity, options);
    this.views[client] = view;
    this.active.push(view);
    return view;
  }

  /** Forgets a client's view (on disconnect). */
  removeView(client: number): void {
    const view = this.views[checkIndex('InterestManager.removeView', 'client', client, this.maxClients)];
    if (view === undefined) return;
    this.views[client] = undefined;
    this.active.splice(this.active.indexOf(view), 1);
  }

  view(client: number): InterestView | undefined {
    return this.views[checkIndex('InterestManager.view', 'client', client, this.maxClients)];
  }

  /** The views, in update order. Do not modify the array. */
  get allViews(): readonly InterestView[] {
    return this.active;
  }

  /** Refreshes every view: relevant sets, `entered` and `left`. */
  update(): void {
    for (const view of this.active) this.updateView(view);
  }

  /** Refreshes one view (when clients are updated at different rates). */
  updateView(view: InterestView): void {
    if (++this.epoch === 0xffffffff) {
      // After 2^32 view updates the stamps would repeat: start them again.
      this.seen.fill(0);
      this.epoch = 1;
    }
    const { grid } = this;
    const follow = view.follow;
    if (follow >= 0 && grid.has(follow)) {
      const p = follow * 3;
      view.centerX = grid.positions[p];
      view.centerY = grid.positions[p + 1];
      view.centerZ = grid.positions[p + 2];
    }
    view.entered.clear();
    view.left.clear();
    for (let i = 0; i < view.pendingLeft.length; i++) view.left.push(view.pendingLeft.items[i]);
    view.pendingLeft.clear();
    if (this.filter === undefined) this.updateByDistance(view);
    else this.updateFiltered(view);
    // Memory per client: a join fills `entered` with the whole view, later updates a few ids.
    view.entered.trim();
    view.left.trim();
  }

  /**
   * Without a filter, a member stays by its distance alone (within the leave radius) or by an
   * always-relevant list, so the grid is asked only for what is within the enter radius (a
   * smaller query) and no stamps are kept. The same sets, and the same entered and left lists
   * in the same order, as the filtered pass would give with a filter that agrees.
   */
  private updateByDistance(view: InterestView): void {
    const { grid } = this;
    const cx = view.centerX;
    const cy = view.centerY;
    const cz = grid.dimensions === 3 ? view.centerZ : 0;
    this.current = view;
    const sphere = grid.sphere; // not grid.query(x, y, z, r): doubles passed to it would be boxed
    sphere[0] = cx;
    sphere[1] = cy;
    sphere[2] = cz;
    sphere[3] = view.enterRadius;
    grid.querySphere(this.visitEntering);
    this.current = undefined;
    this.addAlways(view, this.alwaysRelevant);
    this.addAlways(view, view.alwaysRelevant);
    // Members beyond the leave radius leave. Backwards, so the slot moved into a removed one has
    // already been checked.
    const leaveRadius = view.leaveRadius;
    const leaveSquared = leaveRadius * leaveRadius;
    const positions = grid.positions;
    for (let slot = view.count - 1; slot >= 0; slot--) {
      const id = view.ids[slot];
      if (this.pinned[id] === 1) continue;
      const p = id * 3;
      const dx = positions[p] - cx;
      const dy = positions[p + 1] - cy;
      const dz = positions[p + 2] - cz;
      if (dx * dx + dy * dy + dz * dz <= leaveSquared) continue;
      if (this.alwaysRelevant.indexOf(id) >= 0 || view.alwaysRelevant.indexOf(id) >= 0) continue;
      view.removeSlot(slot);
      view.left.push(id);
    }
  }

  /** With a filter: every candidate within the leave radius is offered to it, members stamped. */
  private updateFiltered(view: InterestView): void {
    const { grid } = this;
    this.current = view;
    this.enterRadiusSquared = view.enterRadius * view.enterRadius;
    const sphere = grid.sphere; // not grid.query(x, y, z, r): doubles passed to it would be boxed
    sphere[0] = view.centerX;
    sphere[1] = view.centerY;
    sphere[2] = grid.dimensions === 3 ? view.centerZ : 0;
    sphere[3] = view.leaveRadius;
    grid.querySphere(this.visitCandidate);
    this.current = undefined;
    this.admitAlways(view, this.alwaysRelevant);
    this.admitAlways(view, view.alwaysRelevant);

    // Members not found relevant this time leave. Backwards, so the slot moved into a removed
    // one has already been checked.
    const { seen, epoch } = this;
    for (let slot = view.count - 1; slot >= 0; slot--) {
      const id = view.ids[slot];
      if (seen[id] === epoch || this.pinned[id] === 1) continue;
      view.removeSlot(slot);
      view.left.push(id);
    }
  }

  /** Bytes of the shared structures (grid, stamps), not counting views. */
  get sharedByteLength(): number {
    return this.grid.byteLength + this.seen.byteLength + this.alwaysRelevant.items.byteLength;
  }

  private addAlways(view: InterestView, list: IdList): void {
    for (let i = 0; i < list.length; i++) {
      const id = list.items[i];
      if (this.grid.has(id) && !view.isMember(id)) {
        view.addMember(id);
        view.entered.push(id);
      }
    }
  }

  private admitAlways(view: InterestView, list: IdList): void {
    for (let i = 0; i < list.length; i++) {
      const id = list.items[i];
      if (this.seen[id] !== this.epoch && this.grid.has(id)) this.admit(view, id, view.isMember(id));
    }
  }

  private admit(view: InterestView, id: number, member: boolean): void {
    this.seen[id] = this.epoch;
    if (member) return;
    view.addMember(id);
    view.entered.push(id);
  }
}
