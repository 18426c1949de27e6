import { IdList } from './id-list.js';
import type { InterestManager } from './interest-manager.js';
import type { InterestView } from './interest-view.js';
import type { ServerWorld } from './server-world.js';

/**
 * Which clients hold which private parts: a part's companion is a member of a client's view
 * exactly while its entity is and the part's audience admits the client. Run once per tick
 * after the interest update. The work is per entity that entered or left a view, per audience
 * change (O(views) for an entity, O(members) for a client), never per changed entity × client:
 * a tick where only values change costs nothing here.
 */
export class PartAudience {
  /** Per client: the groups it belongs to (bit g: group g). */
  private readonly groups: Uint32Array;
  private readonly changedEntities = new IdList(16);
  private readonly entityQueued: Uint8Array;
  private readonly changedClients = new IdList(4);
  private readonly clientQueued: Uint8Array;
  private readonly scratch: number[] = [];
  /** Whether any type has private parts (else sync has nothing to do). */
  private readonly anyParts: boolean;

  constructor(
    private readonly world: ServerWorld,
    private readonly interest: InterestManager,
    /** Real clients are [0, maxClients): a recorder's virtual client after them is never a holder. */
    private readonly maxClients: number,
  ) {
    this.groups = new Uint32Array(maxClients);
    this.entityQueued = new Uint8Array(world.capacity);
    this.clientQueued = new Uint8Array(maxClients);
    this.anyParts = world.types.some((type) => type.partOf !== undefined);
  }

  /** An entity's owner, group or predicate inputs changed: re-judge its parts for every view. */
  entityChanged(id: number): void {
    if (this.entityQueued[id] === 1) return;
    this.entityQueued[id] = 1;
    this.changedEntities.push(id);
  }

  /** A client's groups or predicate inputs changed: re-judge the parts of everything it sees. */
  clientChanged(client: number): void {
    if (!this.anyParts || this.clientQueued[client] === 1) return;
    this.clientQueued[client] = 1;
    this.changedClients.push(client);
  }

  setGroups(client: number, mask: number): void {
    if (this.groups[client] === mask >>> 0) return;
    this.groups[client] = mask >>> 0;
    this.clientChanged(client);
  }

  groupsOf(client: number): number {
    return this.groups[client];
  }

  /** Whether the client is in the audience of a companion's part (its entity's owner, group, predicate). */
  holds(client: number, companion: number): boolean {
    const world = this.world;
    const parent = world.parentOf[companion];
    const type = world.types[world.typeOf[companion]];
    const audience = type?.partOf?.part.audience;
    // A recording is the public audience: no part for the recorder, and no predicate call for it.
    if (parent < 0 || audience === undefined || client >= this.maxClients) return false;
    switch (audience.kind) {
      case 'owner':
        return world.ownsId(client, parent);
      case 'group': {
        const group = world.groupOfId[parent];
        return group >= 0 && ((this.groups[client] >>> group) & 1) === 1;
      }
      case 'when': {
        const entity = world.entity(parent);
        if (entity === null) return false;
        try {
          return audience.test(client, entity) === true;
        } catch {
          return false; // a predicate that throws admits nobody
        }
      }
    }
  }

  /** After the interest update: parts follow their entities in and out, and audience changes apply. */
  sync(): void {
    if (!this.anyParts) return;
    const { world, interest } = this;
    const views = interest.allViews;
    for (let v = 0; v < views.length; v++) {
      const view = views[v];
      const left = view.left;
      const leftCount = left.length;
      for (let i = 0; i < leftCount; i++) {
        const ids = world.partIds[left.items[i]];
        if (ids !== null) for (let j = 0; j < ids.length; j++) this.withdraw(view, ids[j]);
      }
      const entered = view.entered;
      const enteredCount = entered.length;
      for (let i = 0; i < enteredCount; i++) {
        const ids = world.partIds[entered.items[i]];
        if (ids !== null) for (let j = 0; j < ids.length; j++) this.judge(view, ids[j]);
      }
    }
    for (let i = 0; i < this.changedEntities.length; i++) {
      const id = this.changedEntities.items[i];
      this.entityQueued[id] = 0;
      const ids = world.partIds[id];
      if (ids === null) continue;
      for (let v = 0; v < views.length; v++) {
        const view = views[v];
        if (!view.isMember(id)) continue;
        for (let j = 0; j < ids.length; j++) this.judge(view, ids[j]);
      }
    }
    this.changedEntities.clear();
    for (let i = 0; i < this.changedClients.length; i++) {
      const client = this.changedClients.items[i];
      this.clientQueued[client] = 0;
      const view = interest.view(client);
      if (view === undefined) continue;
      // The members first: judging adds and removes slots.
      const parents = this.scratch;
      parents.length = 0;
      for (let slot = 0; slot < view.count; slot++)
        if (world.partIds[view.ids[slot]] !== null) parents.push(view.ids[slot]);
      for (const parent of parents) {
        const ids = world.partIds[parent]!;
        for (let j = 0; j < ids.length; j++) this.judge(view, ids[j]);
      }
    }
    this.changedClients.clear();
  }

  /** Forgets a client's groups (its connection ended for good). */
  removeClient(client: number): void {
    this.groups[client] = 0;
  }

  /** Grants or withdraws one part for one view whose client sees its entity. */
  private judge(view: InterestView, companion: number): void {
    const member = view.isMember(companion);
    const held = this.world.tickedType[companion] >= 0 && this.holds(view.client, companion);
    if (held && !member) {
      view.addMember(companion);
      view.entered.push(companion);
    } else if (!held && member) this.withdraw(view, companion);
  }

  private withdraw(view: InterestView, companion: number): void {
    if (!view.isMember(companion)) return;
    view.removeSlot(view.slotOf(companion));
    view.left.push(companion);
  }
}
