/**
 * One zone of a zoned world, as a state machine (no clock, no I/O): the game's rules over the
 * entities the zone owns, fed the gateways' batches, stepped one tick at a time. Each step returns
 * the zone's feed batch for that tick and the handoffs it starts: entities the handoff rule sends
 * to another zone leave this zone's world at once and are owned by nobody until their commit
 * lands in the destination's inbox (the store decides, atomically, exactly once); the destination
 * receives them before it simulates the handoff's tick. A commit the store refuses for a reason
 * that leaves the entity here (a full inbox) brings it back (`handoffRefused`).
 *
 * ZoneRunner (zone-runner.ts) drives it with a clock, the store and the feed.
 */
import type { GameRules } from '../game/game-rules.js';
import { HandoffRule, type HandoffRuleOptions } from './handoff-rule.js';
import type { ZoneMap } from './zone-map.js';
import type {
  EntityRecord,
  FeedBatch,
  FeedEntity,
  GatewayBatch,
  ZoneSnapshotRecord,
} from './zone-messages.js';
import { type InputRefusal, ZoneSimulation } from './zone-simulation.js';
import { MAX_SINCE_HANDOFF_TICKS } from './zone-wire-fields.js';

/** Game messages taken from one player per tick at most (as GameSimulation's MAX_MESSAGES_PER_TICK). */
const MESSAGES_PER_PLAYER_TICK = 16;
/** Messages waiting over all players at most; more are dropped (counted). */
const MAX_WAITING_MESSAGES = 4096;

/** Ticks after a player's handoff during which its old zone sends its traffic on (the memo's L). */
export const FORWARD_TICKS = 30;

/** Traffic for a player that left with its entity: send `batch` on to zone `to`. */
export interface ForwardedBatch {
  to: number;
  batch: GatewayBatch;
}

const NO_FORWARDS: ForwardedBatch[] = [];

export interface ZoneServerOptions {
  rules: GameRules;
  map: ZoneMap;
  zone: number;
  /** The zone's lease epoch: stamped on its feed, fenced on its commits. */
  epoch: number;
  /** How far past the border an entity must be, and how long it stays after a handoff. */
  handoff: HandoffRuleOptions;
  /** A keyframe (every entity, every hosted player) every this many ticks (default 30). */
  keyframeTicks?: number;
  /** Handoffs this zone starts per tick at most; the rest wait a tick (default 64). */
  maxHandoffsPerTick?: number;
  /** Players this zone hosts at once at most (default 1024). */
  maxPlayers?: number;
  /** The tick the zone resumes after (its first step is tick + 1; default 0). */
  tick?: number;
  /** The world id allocator's next n (a snapshot's, after a takeover). */
  nextWorldId?: number;
  onError?: (error: unknown, where: string) => void;
}

/** An entity leaving: commit it to `to` with `record.hseq`, to be simulated there from `tick`. */
export interface OutgoingHandoff {
  to: number;
  tick: number;
  record: EntityRecord;
}

export interface ZoneStepResult {
  feed: FeedBatch;
  handoffs: OutgoingHandoff[];
}

/** What one zone's simulation counts. */
export interface ZoneServerStats {
  /** The last tick it stepped. */
  tick: number;
  /** Entities it owns, and players it hosts, now. */
  entities: number;
  players: number;
  /** Entities it handed on, entities handed to it, and handoffs the store refused that came back. */
  handoffsOut: number;
  handoffsIn: number;
  handoffsReturned: number;
  /** Inputs refused, by reason (forwarded ones count where they were refused). */
  inputsRefused: Record<InputRefusal, number>;
  /** Players' messages dropped: of an unknown type, or over the waiting limit. */
  messagesDropped: number;
  /** Arrivals refused: an entity this zone already owns, or one the game refused (reported to onError). */
  arrivalsRefused: number;
}

export class ZoneServer {
  readonly zone: number;
  readonly simulation: ZoneSimulation;
  readonly map: ZoneMap;
  readonly rule: HandoffRule;
  epoch: number;
  /**
   * While true, step() starts no handoff: entities past the border stay with this zone (the
   * runner sets it while the store is failing, so no entity leaves for a commit that cannot land).
   */
  handoffsPaused = false;
  private readonly keyframeTicks: number;
  private readonly maxHandoffsPerTick: number;
  private readonly messages: { playerId: number; name: string; value: unknown }[] = [];
  private readonly messageNames: string[];
  private readonly counts = {
    handoffsOut: 0,
    handoffsIn: 0,
    handoffsReturned: 0,
    messagesDropped: 0,
    arrivalsRefused: 0,
  };
  private readonly onError: (error: unknown, where: string) => void;
  /** The decision ticks (the handoff's tick - 1) of the entities that arrived since the last step. */
  private readonly arrivedDecisions: number[] = [];
  /**
   * The decision ticks of the entities handed here that the last step stepped for the first time
   * (reused: read it before the next step). With `tick`, a handoff's latency (handoff-latency.ts).
   */
  readonly steppedArrivals: number[] = [];
  private readonly nearZones: number[] = [];
  /** Players that left with their entity: where to, and until which tick their traffic is sent on. */
  private readonly departed = new Map<number, { to: number; untilTick: number }>();

  constructor(options: ZoneServerOptions) {
    const where = 'ZoneServer';
    const { map, zone } = options;
    if (!Number.isInteger(zone) || zone < 0 || zone >= map.zoneCount)
      throw new RangeError(`${where}: zone ${zone} is not one of the map's ${map.zoneCount} zones`);
    if (!Number.isSafeInteger(options.epoch) || options.epoch < 0)
      throw new RangeError(`${where}: epoch ${options.epoch} must be an integer >= 0`);
    this.zone = zone;
    this.map = map;
    this.epoch = options.epoch;
    this.rule = new HandoffRule(options.handoff);
    this.keyframeTicks = positiveInteger(where, 'keyframeTicks', options.keyframeTicks ?? 30);
    this.maxHandoffsPerTick = positiveInteger(where, 'maxHandoffsPerTick', options.maxHandoffsPerTick ?? 64);
    this.onError =
      options.onError ?? ((error, at) => console.error(`ghostwire zone ${zone}: ${at} failed`, error));
    this.simulation = new ZoneSimulation(options.rules, {
      zone,
      ...(options.maxPlayers === undefined ? {} : { maxPlayers: options.maxPlayers }),
      ...(options.nextWorldId === undefined ? {} : { nextWorldId: options.nextWorldId }),
      onError: this.onError,
    });
    const start = options.tick ?? 0;
    if (!Number.isSafeInteger(start) || start < 0)
      throw new RangeError(`${where}: tick ${start} must be an integer >= 0`);
    this.skipTo(start);
    this.messageNames = Object.keys(options.rules.game.messageTypes);
  }

  /**
   * A zone as its snapshot left it (a takeover): its entities and players, the rules' game data,
   * its world ids; it steps on from the snapshot's tick. Inbox entries after the snapshot's cursor
   * are the caller's to `arrive`.
   */
  static restore(
    options: Omit<ZoneServerOptions, 'tick' | 'nextWorldId'>,
    snapshot: ZoneSnapshotRecord,
  ): ZoneServer {
    if (snapshot.zone !== options.zone)
      throw new RangeError(
        `ZoneServer.restore: the snapshot is zone ${snapshot.zone}'s, not ${options.zone}'s`,
      );
    const zone = new ZoneServer({ ...options, tick: snapshot.tick, nextWorldId: snapshot.nextWorldId });
    const simulation = zone.simulation;
    Object.assign(simulation.data, JSON.parse(snapshot.gameData));
    for (const record of snapshot.entities)
      simulation.receiveEntity(record, snapshot.tick - record.sinceHandoffTicks);
    for (const record of snapshot.players) simulation.receivePlayer(record);
    // Restoring is not news: the feed's next keyframe tells the gateways.
    simulation.owners.length = 0;
    return zone;
  }

  /** Whether every hosted player that has sent inputs has its input for the next tick here. */
  inputsReady(): boolean {
    return this.simulation.inputsReady(this.tick + 1);
  }

  /** Moves the zone's clock on to `tick` without simulating the ticks between (a zone too far behind). */
  skipTo(tick: number): void {
    const world = this.simulation.world;
    while (world.serverTick < tick) world.tick();
  }

  /** The last tick stepped. */
  get tick(): number {
    return this.simulation.world.serverTick;
  }

  /**
   * A gateway's batch: joins run onJoin now, inputs wait for their tick. Inputs and leaves for a
   * player that left with its entity in the last FORWARD_TICKS ticks come back, by zone, for the
   * caller to send on (a gateway learns of a handoff a little after it).
   */
  receive(batch: GatewayBatch): ForwardedBatch[] {
    const simulation = this.simulation;
    let forwards: ForwardedBatch[] | null = null;
    const forwardTo = (playerId: number): ForwardedBatch | null => {
      const gone = this.departed.get(playerId);
      if (gone === undefined || gone.untilTick < this.tick) return null;
      forwards ??= [];
      let forward = forwards.find((f) => f.to === gone.to);
      if (forward === undefined) {
        forward = {
          to: gone.to,
          batch: {
            gateway: batch.gateway,
            tick: batch.tick,
            joins: [],
            leaves: [],
            inputs: [],
            messages: [],
          },
        };
        forwards.push(forward);
      }
      return forward;
    };
    for (const playerId of batch.leaves)
      if (!simulation.leavePlayer(playerId)) forwardTo(playerId)?.batch.leaves.push(playerId);
    for (const playerId of batch.joins) simulation.joinPlayer(playerId);
    for (const input of batch.inputs) {
      if (simulation.input(input) !== 'not-hosted') continue;
      const forward = forwardTo(input.playerId);
      // Not here and not gone from here: its entity may be on its way here (the input overtook
      // the handoff), so it waits a little for the player.
      if (forward === null) simulation.keepUnclaimed(input);
      else forward.batch.inputs.push(input);
    }
    for (const message of batch.messages) {
      const name = this.messageNames[message.typeIndex];
      if (name === undefined || this.messages.length >= MAX_WAITING_MESSAGES) {
        this.counts.messagesDropped++;
        continue;
      }
      if (simulation.playerById(message.playerId) === null) {
        forwardTo(message.playerId)?.batch.messages.push(message);
        continue;
      }
      this.messages.push({ playerId: message.playerId, name, value: message.value });
    }
    this.forgetDeparted();
    return forwards ?? NO_FORWARDS;
  }

  /**
   * An entity handed to this zone (from its inbox), simulated here from the next step. `fromTick`:
   * the first tick it is this zone's (a handoff's tick); when this zone has stepped past it, its
   * player catches up on the ticks it missed. Refused (false, counted) when the zone already owns
   * that world id or the game refuses the record.
   */
  arrive(record: EntityRecord, fromTick = this.tick + 1): boolean {
    if (!this.admit(record, fromTick)) return false;
    this.arrivedDecisions.push(fromTick - 1);
    return true;
  }

  /** An entity taken in (handed here, or back after a refused commit): `arrive` without the latency. */
  private admit(record: EntityRecord, fromTick: number): boolean {
    const simulation = this.simulation;
    const here = simulation.entityByWorldId(record.worldId);
    if (here !== null) {
      // The same entity after more handoffs (it left and came back while a snapshot was restored):
      // the newer record is the truth. An older or equal one is a repeat.
      if (simulation.hseqs[here.id] >= record.hseq) {
        this.counts.arrivalsRefused++;
        return false;
      }
      simulation.release(here, simulation.hseqs[here.id]);
    }
    try {
      simulation.receiveEntity(record, this.tick, fromTick);
    } catch (error) {
      this.counts.arrivalsRefused++;
      this.onError(error, 'arrive');
      return false;
    }
    this.counts.handoffsIn++;
    return true;
  }

  /** A handoff the store refused while the entity stays this zone's (a full inbox): it is back, as it left. */
  handoffRefused(handoff: OutgoingHandoff): void {
    const record = { ...handoff.record, hseq: handoff.record.hseq - 1 };
    if (this.admit(record, this.tick + 1)) {
      this.counts.handoffsIn--;
      this.counts.handoffsReturned++;
    }
  }

  /** Simulates the next tick: the rules, then the feed batch of what changed and the handoffs to start. */
  step(): ZoneStepResult {
    const simulation = this.simulation;
    const world = simulation.world;
    this.deliverMessages();
    simulation.simulate();
    const tick = world.tick();
    // The arrivals just stepped for the first time, copied into steppedArrivals (both arrays reused).
    this.steppedArrivals.length = 0;
    for (const decided of this.arrivedDecisions) this.steppedArrivals.push(decided);
    this.arrivedDecisions.length = 0;
    const keyframe = tick % this.keyframeTicks === 0;
    const entities: FeedEntity[] = [];
    const handoffs: OutgoingHandoff[] = [];
    for (const handle of simulation.owned) {
      const id = handle.id;
      const typeIndex = world.typeOf[id];
      if (keyframe || world.latestTicks[id] === tick)
        entities.push({ worldId: simulation.worldIds[id], typeIndex, state: handle.state });
    }
    for (const handle of simulation.owned) {
      if (this.handoffsPaused || handoffs.length >= this.maxHandoffsPerTick) break;
      const id = handle.id;
      const type = world.types[world.typeOf[id]];
      if (type.position === undefined) continue;
      const since = Math.min(MAX_SINCE_HANDOFF_TICKS, tick - simulation.movedAt[id]);
      const to = this.rule.target(
        this.map,
        this.zone,
        world.positions[id * 3],
        world.positions[id * 3 + 1],
        since,
      );
      if (to === null || to === this.zone) continue;
      const record = simulation.release(handle, simulation.hseqs[id] + 1);
      if (record.player !== null)
        this.departed.set(record.player.playerId, { to, untilTick: tick + FORWARD_TICKS });
      handoffs.push({ to, tick: tick + 1, record });
      this.counts.handoffsOut++;
    }
    const owners = [...simulation.owners];
    if (keyframe) {
      // Every hosted player, so a gateway that missed a change learns it.
      owners.length = 0;
      for (const player of simulation.players) {
        const own = player.entity;
        owners.push({
          playerId: this.simulation.playerIdAt(player.index),
          worldId: own === null ? -1 : simulation.worldIds[own.id],
        });
      }
    }
    const feed: FeedBatch = {
      zone: this.zone,
      epoch: this.epoch,
      tick,
      keyframe,
      entities,
      removed: [...simulation.removed],
      owners,
      events: [...simulation.events],
    };
    simulation.owners.length = 0;
    simulation.removed.length = 0;
    simulation.events.length = 0;
    return { feed, handoffs };
  }

  /** What a takeover restores this zone from (see ZoneServer.restore). */
  snapshot(): ZoneSnapshotRecord {
    const simulation = this.simulation;
    const tick = this.tick;
    const entities: EntityRecord[] = [];
    const players = [];
    for (const handle of simulation.owned) {
      const id = handle.id;
      entities.push({
        worldId: simulation.worldIds[id],
        hseq: simulation.hseqs[id],
        typeIndex: simulation.world.typeOf[id],
        state: handle.state,
        data: JSON.stringify(handle.data),
        sinceHandoffTicks: Math.min(MAX_SINCE_HANDOFF_TICKS, Math.max(0, tick - simulation.movedAt[id])),
        player: null,
      });
    }
    for (const player of simulation.players) {
      const record = {
        playerId: this.simulation.playerIdAt(player.index),
        data: JSON.stringify(player.data),
        inputs: simulation.waitingInputs(player.index),
      };
      const own = player.entity;
      const at = own === null ? -1 : entities.findIndex((e) => e.worldId === simulation.worldIds[own.id]);
      if (at >= 0) entities[at].player = record;
      else players.push(record);
    }
    return {
      zone: this.zone,
      tick,
      nextWorldId: simulation.allocator.next,
      gameData: JSON.stringify(simulation.data),
      entities,
      players,
    };
  }

  /**
   * Entities owned here within `radius` of another zone's cells: those a viewer in a neighbour
   * zone can see (the bench's "border entities"). One pass over the owned entities; allocates
   * nothing.
   */
  entitiesNearBorder(radius: number): number {
    const simulation = this.simulation;
    const world = simulation.world;
    const near = this.nearZones;
    let count = 0;
    for (const handle of simulation.owned) {
      const id = handle.id;
      if (world.types[world.typeOf[id]].position === undefined) continue;
      this.map.proxyZones(this.zone, world.positions[id * 3], world.positions[id * 3 + 1], radius, near);
      if (near.length > 0) count++;
    }
    return count;
  }

  stats(): ZoneServerStats {
    return {
      tick: this.tick,
      entities: this.simulation.entities.length,
      players: this.simulation.hostedPlayers,
      ...this.counts,
      inputsRefused: { ...this.simulation.refusals },
    };
  }

  private forgetDeparted(): void {
    if (this.departed.size === 0) return;
    for (const [playerId, gone] of this.departed)
      if (gone.untilTick < this.tick) this.departed.delete(playerId);
  }

  /** The messages waiting, MESSAGES_PER_PLAYER_TICK a player at most, to onMessage; the rest wait. */
  private deliverMessages(): void {
    if (this.messages.length === 0) return;
    const simulation = this.simulation;
    const taken = new Map<number, number>();
    let kept = 0;
    for (const message of this.messages) {
      const count = taken.get(message.playerId) ?? 0;
      const player = simulation.playerById(message.playerId);
      if (player === null) continue;
      if (count >= MESSAGES_PER_PLAYER_TICK) {
        this.messages[kept++] = message;
        continue;
      }
      taken.set(message.playerId, count + 1);
      simulation.deliver(player, message.name, message.value);
    }
    this.messages.length = kept;
  }
}

function positiveInteger(where: string, name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${where}: ${name} must be an integer >= 1, got ${value}`);
  return value;
}
