import { bitsRequired } from '../bits/bits-required.js';
import { checkIndex } from '../channels/check-index.js';
import type { CustomChannelConfig } from '../channels/config.js';
import { BandwidthBudget, type BandwidthBudgetOptions } from './bandwidth-budget.js';
import { checkPositive } from './check-argument.js';
import { CommandRouter, type CommandRouterOptions, type CommandStats } from './command-router.js';
import { configurationHash } from './configuration.js';
import { maxDeltaBits } from './entity-delta.js';
import { type AnyEventType, type EventType, payloadLengthBits } from './event.js';
import { type EmitOptions, EventHub, type EventLimits, type EventStats } from './event-hub.js';
import { EVENTS_HEAD_BITS } from './event-sender.js';
import { FlowControl, type FlowControlOptions, type FlowMode } from './flow-control.js';
import { GhostPlan } from './ghost-plan.js';
import { GhostSender, type GhostShared } from './ghost-sender.js';
import { GENERATION_BITS, idBits, TICK_BITS, updateCountBits } from './ghost-wire.js';
import { InterestManager } from './interest-manager.js';
import { DEFAULT_LEAVE_FACTOR, type InterestView } from './interest-view.js';
import { PartAudience } from './part-audience.js';
import { PriorityAccumulator, type PriorityOptions } from './priority-accumulator.js';
import { PrioritySelection } from './priority-selection.js';
import { Recorder, type RecorderOptions } from './recording/recorder.js';
import type { ViewClipInterest } from './recording/view-clip.js';
import { ReplicationInspector } from './replication-inspector.js';
import type { ServerWorld } from './server-world.js';
import { SharedDeltas } from './shared-deltas.js';
import type { SpatialGridOptions } from './spatial-grid.js';

/** Relevancy by distance: entities whose type has a `position` are relevant within `radius` of a client's view. */
export interface ReplicationInterestOptions {
  /** The grid's bounds and cell size (its capacity is the world's). */
  grid: Omit<SpatialGridOptions, 'capacity'>;
  /** The enter radius of every client's view; set each view's center with `view(client)`. */
  radius: number;
  /** See InterestViewOptions.leaveFactor (default 1.15). */
  leaveFactor?: number;
}

/** What replication counts: the events over every client and the client commands. */
export interface ReplicationStats {
  /** Server events over every client: emitted, queued, written, resent, acked, dropped. */
  readonly events: Readonly<EventStats>;
  /** Client commands: delivered and refused, by reason. */
  readonly commands: Readonly<CommandStats>;
}

export interface ReplicationServerOptions {
  world: ServerWorld;
  /** Client indices are in [0, maxClients) (default 256, as MessageServer's). */
  maxClients?: number;
  /** The ghost section's place in the packet: priority (default 1) and most bytes (default all). */
  priority?: number;
  budgetBytes?: number;
  /** Seconds before an unacked create or destroy is written again (default 0.1). */
  resendInterval?: number;
  /**
   * A per-client token bucket on the section (bytes per packet and kbit/s; see BandwidthBudget):
   * what does not fit waits, highest priority first. Default: BandwidthBudget's, at most 512 bytes
   * a packet and 256 kbit/s, so a 60 Hz game's sections stay under 256 kbit/s.
   */
  bandwidth?: BandwidthBudgetOptions;
  /**
   * Adapts each client's rate to its link (Fiedler's good / bad flow modes, FlowControl): the
   * bucket gets `goodKbps` (default `bandwidth.kbps`, else 256) while the round trip and loss the
   * packet layer measures stay under their thresholds (250 ms, 10%), `badKbps` (default a quarter)
   * from the first packet they do not, until they stayed good for the penalty time. Default: off.
   */
  flow?: FlowControlOptions;
  /** Without it every entity is relevant to every client; with it, types with a position are by distance. */
  interest?: ReplicationInterestOptions;
  /** How priority falls with distance from a view's center (only with `interest`). */
  priorityOptions?: PriorityOptions;
  /** The command router's rate limit and refusal callback (see `commands`). */
  commands?: Omit<CommandRouterOptions, 'world' | 'maxClients'>;
  /** The event types `emit` may send, in the order the clients list them (default none). */
  events?: readonly AnyEventType[];
  /** Per-client event queue sizes, the unreliable events' lifetime, and what a full queue does. */
  eventLimits?: EventLimits;
}

/**
 * The server side of replication: one ghost section per connection, fed by one world. Put
 * `channel` in MessageServer's channels; each connection then gets a fresh sender (so a client
 * that reconnects is sent everything again). Call `world.tick()` when the simulation steps and
 * `MessageServer.update(now)` as usual; the world's changes go out in the next packets.
 */
export class ReplicationServer {
  readonly world: ServerWorld;
  readonly interest: InterestManager;
  readonly channel: CustomChannelConfig;
  /** Client commands for this world; a client's ownerships and rate bucket end with its connection. */
  readonly commands: CommandRouter;
  private readonly senders: (GhostSender | null)[];
  private readonly shared: GhostShared;
  private readonly eventHub: EventHub;
  private readonly audience: PartAudience;
  private readonly counters: ReplicationStats;
  private readonly spatial: boolean;
  private readonly radius: number;
  private readonly leaveFactor: number | undefined;
  private refreshedTick = -1;
  /** The recorder's virtual client sits at index maxClients, after every real client. */
  private readonly recorderIndex: number;
  private recorder: Recorder | null = null;
  private inspector: ReplicationInspector | null = null;

  constructor(options: ReplicationServerOptions) {
    const world = options.world;
    this.world = world;
    const maxClients = options.maxClients ?? 256;
    this.spatial = options.interest !== undefined;
    // Without interest every entity sits at the origin of a one-cell grid, inside every view.
    const grid = options.interest?.grid ?? { min: [0, 0], max: [1, 1], cellSize: 1 };
    this.radius =
      options.interest === undefined
        ? 1
        : checkPositive('ReplicationServer', 'interest.radius', options.interest.radius);
    this.leaveFactor = options.interest?.leaveFactor;
    this.recorderIndex = maxClients;
    this.interest = new InterestManager({
      world: { ...grid, capacity: world.capacity },
      maxClients: maxClients + 1,
    });
    const accumulator = new PriorityAccumulator(this.interest, options.priorityOptions);
    this.audience = new PartAudience(world, this.interest, maxClients);
    const resendInterval = options.resendInterval ?? 0.1;
    if (!(resendInterval >= 0 && resendInterval < Number.POSITIVE_INFINITY))
      throw new RangeError(`ReplicationServer: resendInterval must be >= 0 seconds, got ${resendInterval}`);
    // Checks the options now, not at the first connection.
    const budget = new BandwidthBudget(options.bandwidth);
    if (options.flow !== undefined) new FlowControl({ goodKbps: budget.kbps, ...options.flow });
    checkSectionRoom(world, options.events ?? [], budget, options.budgetBytes);
    this.commands = new CommandRouter({ ...options.commands, world, maxClients });
    this.senders = new Array(maxClients + 1).fill(null);
    this.eventHub = new EventHub(world, maxClients, options.events ?? [], options.eventLimits);
    this.counters = { events: this.eventHub.stats, commands: this.commands.stats() };
    this.shared = {
      world,
      configuration: configurationHash(
        world.types,
        world.capacity,
        world.historyLength,
        this.eventHub.events,
      ),
      events: this.eventHub,
      accumulator,
      selection: new PrioritySelection(),
      plan: new GhostPlan(world.capacity),
      deltas: new SharedDeltas(world),
      resendInterval,
      // The default bucket (512 B a packet, 256 kbit/s) keeps a 60 Hz game's sections under 256 kbit/s.
      bandwidth: options.bandwidth ?? {},
      flow: options.flow,
      refresh: () => this.refresh(),
      // A connection that ended frees its view, unless a newer one already took the slot.
      closed: (sender) => {
        const client = sender.view.client;
        if (this.senders[client] !== sender) return;
        this.removeClient(client);
        this.commands.removeClient(client);
        this.audience.removeClient(client);
      },
    };
    const origin = grid.min;
    if (world.onTicked !== undefined)
      throw new RangeError('ReplicationServer: this world already feeds another ReplicationServer');
    world.recorder = this.shared.deltas;
    world.onAudience = (id) => this.audience.entityChanged(id);
    world.onTicked = (id, typeIndex, moved) => {
      const { interest } = this;
      const type = world.types[typeIndex];
      const positioned = this.spatial && type?.position !== undefined;
      const p = id * 3;
      if (moved) {
        // From the world's array: doubles passed to this callback's callee would be boxed.
        if (positioned) interest.grid.moveFrom(id, world.positions, p);
        else if (interest.pinned[id] === 1) placePart(interest, world, id);
        return;
      }
      if (interest.pinned[id] === 1) {
        // A private part's companion ended: out of every view that held it.
        interest.pinned[id] = 0;
        interest.removeFromViews(id);
      }
      if (interest.grid.has(id)) {
        // The entity under this id ended: it is no longer always relevant, to everyone or to any
        // client, so a new entity that reuses the id does not inherit that.
        interest.removeEntity(id);
        interest.removeAlwaysRelevant(id);
        for (const sender of this.senders) if (sender !== null) sender.view.removeAlwaysRelevant(id);
      }
      if (typeIndex < 0) return;
      accumulator.setBase(id, type.priority);
      if (type.partOf !== undefined) {
        // Not in the grid: its views are its audience's (PartAudience); only its position is
        // kept there, its entity's, for priority.
        interest.pinned[id] = 1;
        placePart(interest, world, id);
        return;
      }
      if (positioned) {
        interest.addEntity(id, world.positions[p], world.positions[p + 1], world.positions[p + 2]);
      } else {
        interest.addEntity(id, origin[0], origin[1], origin[2] ?? 0);
        if (this.spatial) interest.addAlwaysRelevant(id);
      }
    };
    // Entities already ticked before replication was set up join the grid now.
    for (let id = 0; id < world.capacity; id++)
      if (world.tickedType[id] >= 0) world.onTicked(id, world.tickedType[id], false);
    this.channel = {
      kind: 'custom',
      priority: options.priority ?? 1,
      ...(options.budgetBytes === undefined ? {} : { budgetBytes: options.budgetBytes }),
      create: (clientIndex) => this.connect(clientIndex),
    };
  }

  /** A client's interest view (to set its center, or add always-relevant entities); null when not connected. */
  view(clientIndex: number): InterestView | null {
    // The recorder's virtual client (index maxClients) is not a client's.
    checkIndex('ReplicationServer.view', 'clientIndex', clientIndex, this.recorderIndex);
    return this.interest.view(clientIndex) ?? null;
  }

  /**
   * Sends an event to clients with the state of the next `world.tick()` (like create, set and
   * destroy): about `entity`, to the clients that have (or are sent) its ghost then; else to every
   * client, or to `to` only. Unreliable (default): written at most once, dropped when it waits
   * longer than eventLimits.unreliableMaxAge. Reliable: resent until acked, delivered exactly once
   * in emit order. With `part` (a private field of `entity`), only the clients that hold that
   * part get it (the event names the part's companion id). Throws for a type not in `events`, a value outside its schema, a handle to a
   * destroyed entity, a bad `to`, or more than eventLimits.pendingSize emits without a tick.
   */
  emit<T>(type: EventType<T, string>, value: T, options?: EmitOptions): void {
    this.refresh(); // hands out the events of past ticks first, even when no client asks for a packet
    if (options?.part !== undefined) {
      if (options.entity === undefined) throw new RangeError('ReplicationServer.emit: part needs entity');
      if (!this.world.isAlive(options.entity))
        throw new RangeError('ReplicationServer.emit: the entity is not a live entity of this world');
      // To the part's holders only: the event is about the part's companion.
      options = { ...options, entity: this.world.partEntity(options.entity, options.part) };
    }
    this.eventHub.emit(type, value, options);
  }

  /**
   * Sets the groups a client belongs to (bit g: group g, e.g. `1 << team`): it sees the `group()`
   * fields of the entities in those groups (world.setGroup), from the next tick. Kept across the
   * client's reconnects; cleared when its connection ends.
   */
  setGroups(clientIndex: number, mask: number): void {
    checkIndex('ReplicationServer.setGroups', 'clientIndex', clientIndex, this.recorderIndex);
    if (!(Number.isInteger(mask) && mask >= 0 && mask <= 0xffffffff))
      throw new RangeError(
        `ReplicationServer.setGroups: mask must be a 32-bit unsigned integer, got ${mask}`,
      );
    this.audience.setGroups(clientIndex, mask);
  }

  /** The groups a client belongs to (a mask). */
  groupsOf(clientIndex: number): number {
    return this.audience.groupsOf(
      checkIndex('ReplicationServer.groupsOf', 'clientIndex', clientIndex, this.recorderIndex),
    );
  }

  /** Asks the `when(test)` private fields again for one client (what its tests read changed). */
  revisitClient(clientIndex: number): void {
    this.audience.clientChanged(
      checkIndex('ReplicationServer.revisitClient', 'clientIndex', clientIndex, this.recorderIndex),
    );
  }

  /** What replication has counted over every client (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<ReplicationStats> {
    return this.counters;
  }

  /**
   * A client's flow mode and the rate it sets (with `flow` in the options; null without, or when
   * the client is not connected): the mode, the rate in kbit/s, the seconds of good conditions bad
   * mode needs before returning, and how many times the link fell to bad mode.
   */
  flowStats(clientIndex: number): { mode: FlowMode; kbps: number; penalty: number; drops: number } | null {
    const flow =
      this.senders[checkIndex('ReplicationServer.flowStats', 'clientIndex', clientIndex, this.recorderIndex)]
        ?.flow;
    if (flow === null || flow === undefined) return null;
    return { mode: flow.mode, kbps: flow.kbps, penalty: flow.penalty, drops: flow.drops };
  }

  /**
   * The network inspector (made on first call): per-packet traces of watched clients and who holds
   * an entity. It reveals every client's data: never expose it to players.
   */
  inspect(): ReplicationInspector {
    this.inspector ??= new ReplicationInspector(
      this.shared,
      this.senders,
      this.interest.grid.positions,
      this.recorderIndex,
    );
    return this.inspector;
  }

  /**
   * Bytes of the typed arrays replication keeps for one client (its interest view and ghost
   * table), or 0 when it is not connected: what a connection costs here, for memory budgets.
   */
  clientByteLength(clientIndex: number): number {
    const sender = this.senders[clientIndex];
    return sender === null || sender === undefined ? 0 : sender.byteLength + sender.view.byteLength;
  }

  /**
   * Starts recording this world (one recording per server): a virtual client that sees every
   * entity, has no budget and acks at once, so the world is encoded once per tick whatever the
   * number of viewers. Call the recorder's `capture()` right after each `world.tick()`; `save`
   * gives a .gwr file (docs/replay-format.md). Records the public audience only.
   */
  record(options: RecorderOptions): Recorder {
    if (this.recorder !== null) throw new Error('ReplicationServer.record: this server is already recording');
    const index = this.recorderIndex;
    const recorder = new Recorder(
      {
        world: this.world,
        configuration: this.shared.configuration,
        restart: () => {
          this.interest.removeView(index);
          // A radius past any coordinate: the grid clamps the query to its cells.
          const view = this.interest.addView(index, { enterRadius: 1e100, follow: -1 });
          view.setCenter(0, 0, 0);
          const sender = new GhostSender(
            { ...this.shared, bandwidth: undefined, flow: undefined, closed: () => {} },
            view,
          );
          this.senders[index] = sender;
          this.refreshedTick = -1; // the new view fills at the next refresh
          return sender;
        },
        stop: () => {
          this.removeClient(index);
          this.recorder = null;
        },
        events: this.eventHub.events,
        // A kill-cam's view (save with viewOf): the live views' rule.
        ...(this.spatial ? { view: this.viewRule() } : {}),
      },
      options,
    );
    this.recorder = recorder;
    return recorder;
  }

  /** The recording `record` started (null when none, or once it stopped): what a host captures after each tick. */
  get recording(): Recorder | null {
    return this.recorder;
  }

  /** The live views' relevancy rule (with interest), for a recording's view of one entity. */
  private viewRule(): ViewClipInterest {
    return {
      radius: this.radius,
      leaveFactor: this.leaveFactor ?? DEFAULT_LEAVE_FACTOR,
      dimensions: this.interest.grid.dimensions,
    };
  }

  /** Forgets a client (done when its connection ends; a new connection in its slot starts afresh). */
  removeClient(clientIndex: number): void {
    this.interest.removeView(clientIndex);
    this.senders[clientIndex] = null;
  }

  private connect(clientIndex: number): GhostSender {
    this.removeClient(clientIndex);
    const view = this.interest.addView(clientIndex, {
      enterRadius: this.radius,
      leaveFactor: this.leaveFactor,
      follow: -1,
    });
    if (!this.spatial) view.setCenter(0, 0, 0);
    const sender = new GhostSender(this.shared, view);
    this.senders[clientIndex] = sender;
    this.inspector?.attach(clientIndex, sender);
    this.refreshedTick = -1; // the new view fills at the next refresh
    return sender;
  }

  /** Brings every view up to the world's tick once per tick, and hands each sender what left it. */
  private refresh(): void {
    if (this.refreshedTick === this.world.serverTick) return;
    this.refreshedTick = this.world.serverTick;
    this.interest.update();
    this.audience.sync(); // private parts follow their entities and audiences
    for (const sender of this.senders) sender?.handleLeft();
    this.eventHub.publish(this.senders); // events hook: emitted events join their clients' queues
    this.shared.deltas.prepare();
  }
}

/** A part companion's position for priority: its entity's, in the grid's array (it is not filed in a cell). */
function placePart(interest: InterestManager, world: ServerWorld, id: number): void {
  const parent = world.parentOf[id];
  const from = parent < 0 ? null : interest.grid.has(parent) ? interest.grid.positions : null;
  const p = id * 3;
  const q = parent * 3;
  const positions = interest.grid.positions;
  if (from === null) {
    positions[p] = world.positions[p];
    positions[p + 1] = world.positions[p + 1];
    positions[p + 2] = world.positions[p + 2];
    return;
  }
  positions[p] = from[q];
  positions[p + 1] = from[q + 1];
  positions[p + 2] = from[q + 2];
}

/**
 * Throws when an entity type's create or an event could never fit a section within the budget
 * (its most bytes a packet, and the channel's `budgetBytes`): it would wait forever, unseen.
 * Nothing is fragmented, so a schema past the room is a configuration error, caught here rather
 * than as a ghost that never appears. The packet's own budget (MessageServer's packetBudgetBytes,
 * 1150 by default) is a further limit this cannot see.
 */
function checkSectionRoom(
  world: ServerWorld,
  events: readonly AnyEventType[],
  budget: BandwidthBudget,
  budgetBytes: number | undefined,
): void {
  const bytes = Math.min(budget.bytesPerPacket, budget.burstBytes, budgetBytes ?? Number.POSITIVE_INFINITY);
  const capacity = world.capacity;
  // The section head once the client acked the configuration (until then the fingerprint waits
  // too): tick, configuration bit, list ends, update count, events bit.
  const head = TICK_BITS + 1 + 2 + updateCountBits(capacity) + EVENTS_HEAD_BITS;
  const room = Math.floor(bytes) * 8 - head;
  const typeBits = Math.max(0, Math.ceil(Math.log2(world.types.length)));
  for (const type of world.types) {
    const bits = 1 + idBits(capacity) + typeBits + GENERATION_BITS + maxDeltaBits(type.layout);
    if (bits > room)
      throw new RangeError(
        `ReplicationServer: a create of entity type ${type.name} may take ${bits} bits, more than a section's room of ${room} (${Math.floor(bytes)} bytes a packet less its head); it could never be sent: raise bandwidth.bytesPerPacket / budgetBytes or bound the schema`,
      );
  }
  // An event alone in the events part: list bits and terminators, its number, type, entity id,
  // tick, payload.
  const eventTypeBits = bitsRequired(0, events.length);
  for (const event of events) {
    const payload = event.fixedBits >= 0 ? event.fixedBits : payloadLengthBits(event) + event.maxBytes * 8;
    const bits = 3 + 16 + eventTypeBits + 1 + idBits(capacity) + 2 + TICK_BITS + payload;
    if (bits > room)
      throw new RangeError(
        `ReplicationServer: an event ${event.name} may take ${bits} bits, more than a section's room of ${room} (${Math.floor(bytes)} bytes a packet less its head); it could never be sent: raise bandwidth.bytesPerPacket / budgetBytes or bound the schema`,
      );
  }
}
