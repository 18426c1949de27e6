/**
 * A zone gateway: what GameHost serves for a zoned world. It holds the players' connections (the
 * host's), gives each a player id, sends their joins, leaves, inputs and messages to the zones as
 * GatewayBatch values (joins to the spawn zone, the rest to the zone hosting the player, learnt
 * from the feeds' owners), and mirrors the zones' feeds in one ServerWorld that its own
 * ReplicationServer replicates with interest by distance: an entity moving between zones stays
 * one ghost, so a client cannot tell zones apart.
 *
 * Ticks are the zones' ticks: the mirror is stamped S (world.tick() returns S) once every zone's
 * batch of S arrived, or when S is `lateTicks` behind the clock. At clock tick W the players'
 * inputs for S = W + inputLeadTicks are taken and sent, so they reach their zone before it
 * simulates S; the client's prediction reconciles against the stamped S.
 * @internal
 */
import { wiringOf } from '../game/define-game.js';
import type { HostedGame } from '../game/game-host.js';
import { type ClaimedInput, refuseClaims } from '../game/game-prediction.js';
import { InputReceiver } from '../latency/input-receiver.js';
import { ReplicationServer } from '../replication/replication-server.js';
import { ServerWorld } from '../replication/server-world.js';
import {
  GATEWAY_SLOTS,
  gatewayOfPlayer,
  gatewayPlayerId,
  MAX_GATEWAYS,
  slotOfPlayer,
} from './gateway-player-ids.js';
import { checkZonedRefs, EventRefs } from './zone-event-refs.js';
import type { ZoneGatewayOptions, ZoneGatewayStats } from './zone-gateway-options.js';
import type { FeedBatch, GatewayBatch, ZoneInput, ZonePlayerMessage } from './zone-messages.js';
import { ZoneMirror } from './zone-mirror.js';

export type { FeedRefusal, ZoneGatewayOptions, ZoneGatewayStats } from './zone-gateway-options.js';

/** Input ticks sent at most per host tick when the host's timer fell behind the world's clock. */
const MAX_SEND_CATCH_UP_TICKS = 4;

/** A slot's player: its id, the zone hosting it, its own entity (world id) and what its client was told. */
interface Seat {
  playerId: number;
  zone: number;
  /** Tick of the owners record the zone came from. */
  zoneTick: number;
  ownWorldId: number;
  toldMirrorId: number;
  /** By world tick (mod INPUT_RING): the tick taken, and the input tick its take consumed. */
  takenTicks: Float64Array;
  inputTicks: Float64Array;
  /** The newest input tick whose spawn claims were answered (refused: zones do not judge them). */
  claimTick: number;
}

/** World ticks a seat remembers the consumed input of: more than a stamp can lag its zone. */
const INPUT_RING = 64;

export class ZoneGateway implements HostedGame {
  readonly world: ServerWorld;
  readonly replication: ReplicationServer;
  readonly inputs: InputReceiver<unknown>;
  /** Inputs carry spawn claims (the game has spawns): taken off before the zones get them. */
  private readonly claimed: boolean;
  readonly startTick: number;
  readonly mirror: ZoneMirror;
  private readonly seats: (Seat | null)[];
  /** Each slot's generation: bumped as the slot is taken (gateway-player-ids.ts). */
  private readonly generations: Uint8Array;
  private readonly slotList: number[] = [];
  private readonly wiring: ReturnType<typeof wiringOf>;
  private readonly eventRefs: EventRefs;
  private readonly toMirrorId = (worldId: number): number => this.mirror.mirrorIdOf(worldId);
  private readonly messageNames: string[];
  private readonly zoneCount: number;
  private readonly spawnZone: number;
  private readonly lateTicks: number;
  private readonly inputLeadTicks: number;
  private readonly maxAheadTicks: number;
  private readonly reportError: (error: unknown, where: string) => void;
  /** Feeds waiting for their tick's stamp, and the highest tick each zone has published. */
  private readonly waiting: FeedBatch[] = [];
  /** Per zone, its feeds waiting, and the most one zone may have waiting (its share alone). */
  private readonly waitingOf: Int32Array;
  private readonly maxWaitingPerZone: number;
  private readonly zoneTicks: number[];
  /** Per zone, the newest tick of its batches applied to the mirror. */
  private readonly appliedTicks: number[];
  private clockTick: number;
  /** The last tick whose inputs were sent (-1: none yet). */
  private sentTick = -1;
  /** Per zone: this tick's joins, leaves and messages, sent with the next batch. */
  private readonly joins: number[][];
  private readonly leaves: number[][];
  private readonly messages: ZonePlayerMessage[][];
  private readonly counts = {
    stampsOnTime: 0,
    stampsLate: 0,
    inputsSent: 0,
    inputsRefused: 0,
    sendErrors: 0,
  };
  private readonly refusedHere = {
    'bad-header': 0,
    'future-tick': 0,
    'too-many-waiting': 0,
    'unknown-owner': 0,
    'bad-event': 0,
  };

  constructor(private readonly options: ZoneGatewayOptions) {
    const where = 'ZoneGateway';
    const { game, map } = options;
    this.wiring = wiringOf(where, game);
    checkZonedRefs(where, game);
    this.eventRefs = new EventRefs(this.wiring.events);
    const gateway = options.gateway;
    if (!Number.isInteger(gateway) || gateway < 0 || gateway >= MAX_GATEWAYS)
      throw new RangeError(
        `${where}: gateway must be an integer in [0, ${MAX_GATEWAYS - 1}], got ${gateway}`,
      );
    const maxPlayers = options.maxPlayers;
    if (!Number.isInteger(maxPlayers) || maxPlayers < 1 || maxPlayers > GATEWAY_SLOTS)
      throw new RangeError(
        `${where}: maxPlayers must be an integer in [1, ${GATEWAY_SLOTS}], got ${maxPlayers}`,
      );
    if (typeof options.send !== 'function') throw new TypeError(`${where}: send must be a function`);
    this.zoneCount = map.zoneCount;
    this.spawnZone = integerIn(where, 'spawnZone', options.spawnZone ?? 0, 0, this.zoneCount - 1);
    this.startTick = integerIn(where, 'startTick', options.startTick ?? 0, 0, 0xfffffff0);
    this.lateTicks = integerIn(where, 'lateTicks', options.lateTicks ?? 2, 0, 64);
    this.inputLeadTicks = integerIn(where, 'inputLeadTicks', options.inputLeadTicks ?? 1, 0, 16);
    this.maxAheadTicks = integerIn(where, 'maxAheadTicks', options.maxAheadTicks ?? 32, 1, 1024);
    if (!(options.radius > 0 && Number.isFinite(options.radius)))
      throw new RangeError(`${where}: radius must be a finite number > 0, got ${options.radius}`);
    this.reportError =
      options.onError ??
      ((error, at) => console.error(`ghostwire zone gateway ${game.name}: ${at} threw`, error));
    this.world = new ServerWorld({ types: this.wiring.types, capacity: game.maxEntities });
    // The mirror's tick numbers are the zones': empty ticks up to the start.
    while (this.world.serverTick < this.startTick) this.world.tick();
    this.clockTick = this.startTick;
    this.replication = new ReplicationServer({
      world: this.world,
      maxClients: maxPlayers,
      events: this.wiring.events,
      interest: {
        grid: {
          min: [map.minX, map.minY],
          max: [map.maxX, map.maxY],
          cellSize: options.cellSize ?? options.radius,
        },
        radius: options.radius,
      },
    });
    // A game with spawns: clients send claims with each input. Zones do not judge them (yet): the
    // claims stop here and the zones get the game's input.
    this.claimed = wiringOf('ZoneGateway', game).prediction.wireInput !== null;
    this.inputs = new InputReceiver<unknown>({
      schema: wiringOf('ZoneGateway', game).prediction.wireInput ?? game.input,
      tickRate: game.tickRate,
      maxClients: maxPlayers,
      onRefusal: () => this.counts.inputsRefused++,
      // The stamps report what each player's state is after (see reportApplied).
      reportAtTake: false,
    });
    this.mirror = new ZoneMirror(this.world, this.zoneCount);
    this.seats = new Array(maxPlayers).fill(null);
    this.generations = new Uint8Array(maxPlayers);
    this.messageNames = Object.keys(game.messageTypes);
    this.zoneTicks = new Array(this.zoneCount).fill(-1);
    this.appliedTicks = new Array(this.zoneCount).fill(-1);
    this.waitingOf = new Int32Array(this.zoneCount);
    this.maxWaitingPerZone = this.maxAheadTicks + this.lateTicks + 4;
    this.joins = Array.from({ length: this.zoneCount }, () => []);
    this.leaves = Array.from({ length: this.zoneCount }, () => []);
    this.messages = Array.from({ length: this.zoneCount }, () => []);
  }

  get playerCount(): number {
    return this.slotList.length;
  }

  /** The player id of the player in `slot`, or -1. */
  playerIdAt(slot: number): number {
    return this.seats[slot]?.playerId ?? -1;
  }

  /** The zone hosting the player in `slot`, or -1. */
  zoneOf(slot: number): number {
    return this.seats[slot]?.zone ?? -1;
  }

  join(index: number): void {
    if (this.seats[index] !== null) throw new RangeError(`ZoneGateway.join: slot ${index} is taken`);
    // A new generation for the slot: records about its last player no longer match this one.
    this.generations[index]++; // a Uint8Array: 255 wraps to 0
    const generation = this.generations[index];
    const playerId = gatewayPlayerId(this.options.gateway, generation, index);
    this.seats[index] = {
      playerId,
      zone: this.spawnZone,
      zoneTick: -1,
      ownWorldId: -1,
      toldMirrorId: -1,
      takenTicks: new Float64Array(INPUT_RING).fill(-1),
      inputTicks: new Float64Array(INPUT_RING).fill(-1),
      claimTick: -1,
    };
    this.slotList.push(index);
    this.joins[this.spawnZone].push(playerId);
  }

  leave(index: number): void {
    const seat = this.seats[index];
    if (seat === null || seat === undefined) return;
    this.seats[index] = null;
    this.slotList.splice(this.slotList.indexOf(index), 1);
    this.leaves[seat.zone].push(seat.playerId);
  }

  playerSlots(): Iterable<number> {
    return this.slotList;
  }

  plays(index: number): boolean {
    return this.seats[index] !== null;
  }

  deliver(index: number, name: string, value: unknown): void {
    const seat = this.seats[index];
    const typeIndex = this.messageNames.indexOf(name);
    if (seat === null || seat === undefined || typeIndex < 0) return;
    this.messages[seat.zone].push({ playerId: seat.playerId, typeIndex, value });
  }

  /**
   * A zone's batch, from the bus: checked now (header, epoch, how far ahead), applied to the
   * mirror when its tick is stamped. Never throws; refusals are counted.
   */
  receive(feed: FeedBatch): void {
    if (!feedHeaderIsSound(feed, this.zoneCount)) {
      this.refusedHere['bad-header']++;
      return;
    }
    if (feed.tick > this.clockTick + this.maxAheadTicks) {
      this.refusedHere['future-tick']++;
      return;
    }
    if (!this.mirror.admitEpoch(feed.zone, feed.epoch)) return;
    // A zone that floods (repeats, old ticks) fills its own share only, not the others'.
    if (this.waitingOf[feed.zone] >= this.maxWaitingPerZone) {
      this.refusedHere['too-many-waiting']++;
      return;
    }
    this.waiting.push(feed);
    this.waitingOf[feed.zone]++;
    if (feed.tick > this.zoneTicks[feed.zone]) this.zoneTicks[feed.zone] = feed.tick;
  }

  /** Clock tick `tick`: stamps what is due, centres each view on its player, sends the zones their batches. */
  tick(hostTick: number): void {
    const tick = this.options.clock?.() ?? hostTick;
    this.clockTick = tick;
    let next = this.world.serverTick + 1;
    // Every zone's batch of a tick came when the slowest zone's newest batch is at or past it.
    let slowest = Number.POSITIVE_INFINITY;
    for (const zoneTick of this.zoneTicks) if (zoneTick < slowest) slowest = zoneTick;
    while (next <= tick) {
      const complete = next <= slowest;
      if (!complete && next > tick - this.lateTicks) break;
      this.stamp(next);
      if (complete) this.counts.stampsOnTime++;
      else this.counts.stampsLate++;
      next++;
    }
    this.centreViews();
    // Every world tick since the last call, once each (the host's timer may skip one or run twice in one).
    const last = tick + this.inputLeadTicks;
    let from = Math.max(this.sentTick + 1, last - MAX_SEND_CATCH_UP_TICKS + 1);
    if (this.sentTick < 0) from = last;
    for (let s = from; s <= last; s++) this.sendBatches(s);
    if (last > this.sentTick) this.sentTick = last;
  }

  stats(): ZoneGatewayStats {
    return {
      feedsApplied: this.mirror.applied,
      refused: { ...this.mirror.refusals, ...this.refusedHere },
      entities: this.mirror.size,
      players: this.slotList.length,
      ...this.counts,
    };
  }

  /** Applies the batches of ticks up to `tick` in tick order, then stamps the mirror `tick`. */
  private stamp(tick: number): void {
    // One pass: the batches due move to `due` (in tick order), the rest stay in place.
    const due: FeedBatch[] = [];
    let kept = 0;
    for (const feed of this.waiting) {
      if (feed.tick <= tick) {
        due.push(feed);
        this.waitingOf[feed.zone]--;
      } else this.waiting[kept++] = feed;
    }
    this.waiting.length = kept;
    if (due.length > 1) due.sort((a, b) => a.tick - b.tick);
    for (const feed of due) {
      if (feed.tick > this.appliedTicks[feed.zone]) this.appliedTicks[feed.zone] = feed.tick;
      this.mirror.apply(feed);
      this.applyOwners(feed);
      this.applyEvents(feed);
    }
    this.tellOwners();
    this.world.tick();
    this.reportApplied(tick);
  }

  /**
   * Tells each client which of its inputs the state stamped `tick` is after: the one taken for
   * the newest tick of its zone applied, which is the stamp's own when that zone's batch came in
   * time, and an earlier one when the stamp went without it. Reported as the stamp's own input,
   * an older state would be compared with a newer prediction and corrected for nothing.
   */
  private reportApplied(tick: number): void {
    for (const slot of this.slotList) {
      const seat = this.seats[slot]!;
      const zoneTick = Math.min(tick, this.appliedTicks[seat.zone]);
      const at = zoneTick & (INPUT_RING - 1);
      if (zoneTick >= 0 && seat.takenTicks[at] === zoneTick)
        this.inputs.report(slot, tick, seat.inputTicks[at]);
    }
  }

  /** The seat of this gateway's player `playerId` (null: another gateway's, or one who left). */
  private seatOf(playerId: unknown): Seat | null {
    if (typeof playerId !== 'number' || gatewayOfPlayer(playerId) !== this.options.gateway) return null;
    const seat = this.seats[slotOfPlayer(playerId)];
    return seat !== undefined && seat !== null && seat.playerId === playerId ? seat : null;
  }

  /** The feed's owners: which zone hosts each of this gateway's players, and its own entity. */
  private applyOwners(feed: FeedBatch): void {
    for (const owner of feed.owners) {
      const seat = this.seatOf(owner?.playerId);
      if (seat === null || feed.tick < seat.zoneTick) continue;
      const worldId = owner.worldId;
      if (worldId !== -1 && this.mirror.entry(worldId) === undefined) {
        this.refusedHere['unknown-owner']++;
        continue;
      }
      seat.zone = feed.zone;
      seat.zoneTick = feed.tick;
      seat.ownWorldId = worldId;
    }
  }

  /** The feed's events, to their player (if it plays here) or to every client. */
  private applyEvents(feed: FeedBatch): void {
    const events = this.wiring.events;
    for (const event of feed.events) {
      // Index 0 is ghostwire.owner: the gateway alone tells it, with mirror ids.
      const type =
        Number.isInteger(event?.typeIndex) && event.typeIndex > 0 ? events[event.typeIndex] : undefined;
      if (type === undefined) {
        this.refusedHere['bad-event']++;
        continue;
      }
      let to = -1;
      if (event.to !== -1) {
        if (this.seatOf(event.to) === null) continue;
        to = slotOfPlayer(event.to);
      }
      try {
        this.replication.emit(
          type,
          // World ids to this gateway's ghost ids; one it does not mirror is none.
          this.eventRefs.rewrite(event.typeIndex, event.value, this.toMirrorId),
          to < 0 ? { reliable: event.reliable } : { reliable: event.reliable, to },
        );
      } catch {
        this.refusedHere['bad-event']++;
      }
    }
  }

  /** Each client whose own entity's mirror id changed is told it, as GameSimulation.own does. */
  private tellOwners(): void {
    for (const slot of this.slotList) {
      const seat = this.seats[slot]!;
      const entry = seat.ownWorldId === -1 ? undefined : this.mirror.entry(seat.ownWorldId);
      const id = entry === undefined ? -1 : entry.entity.id;
      if (id === seat.toldMirrorId) continue;
      seat.toldMirrorId = id;
      if (entry !== undefined) this.world.setOwner(entry.entity, slot);
      this.replication.emit(this.wiring.owner, { id }, { to: slot, reliable: true });
    }
  }

  private centreViews(): void {
    const positions = this.world.positions;
    for (const slot of this.slotList) {
      const id = this.seats[slot]!.toldMirrorId;
      const view = this.replication.view(slot);
      if (view === null || id < 0) continue;
      view.setCenter(positions[id * 3], positions[id * 3 + 1], positions[id * 3 + 2]);
    }
  }

  /** Every zone's batch for tick `tick`: the players' inputs for it, and what waited since the last. */
  private sendBatches(tick: number): void {
    const inputs: ZoneInput[][] = Array.from({ length: this.zoneCount }, () => []);
    for (const slot of this.slotList) {
      const seat = this.seats[slot]!;
      const taken = this.inputs.take(slot, tick);
      if (taken === null) continue;
      const input = this.claimed ? (taken as ClaimedInput).input : taken;
      const inputTick = this.inputs.lastInputTick(slot);
      if (this.claimed && inputTick > seat.claimTick) {
        seat.claimTick = inputTick;
        const claims = (taken as ClaimedInput).claims ?? 0;
        refuseClaims(this.replication, this.wiring.prediction, slot, inputTick, claims);
      }
      seat.takenTicks[tick & (INPUT_RING - 1)] = tick;
      seat.inputTicks[tick & (INPUT_RING - 1)] = this.inputs.lastInputTick(slot);
      inputs[seat.zone].push({ playerId: seat.playerId, tick, viewTick: this.inputs.viewTick(slot), input });
      this.counts.inputsSent++;
    }
    for (let zone = 0; zone < this.zoneCount; zone++) {
      const batch: GatewayBatch = {
        gateway: this.options.gateway,
        tick,
        joins: this.joins[zone].splice(0),
        leaves: this.leaves[zone].splice(0),
        inputs: inputs[zone],
        messages: this.messages[zone].splice(0),
      };
      try {
        this.options.send(zone, batch);
      } catch (error) {
        this.counts.sendErrors++;
        this.reportError(error, 'send');
      }
    }
  }
}

/** Whether a batch's header and lists have the shape of a FeedBatch (the codec checks the rest). */
function feedHeaderIsSound(feed: FeedBatch, zoneCount: number): boolean {
  return (
    typeof feed === 'object' &&
    feed !== null &&
    Number.isInteger(feed.zone) &&
    feed.zone >= 0 &&
    feed.zone < zoneCount &&
    Number.isInteger(feed.epoch) &&
    feed.epoch >= 0 &&
    Number.isInteger(feed.tick) &&
    feed.tick >= 0 &&
    Array.isArray(feed.entities) &&
    Array.isArray(feed.removed) &&
    Array.isArray(feed.owners) &&
    Array.isArray(feed.events)
  );
}

function integerIn(where: string, name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`${where}: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}
