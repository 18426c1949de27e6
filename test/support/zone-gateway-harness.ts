/**
 * A zone gateway served by GameHost over loopback UDP, with its zones played by hand: each
 * HandZone keeps entities by world id, takes the gateway's batches (joins make a walker, inputs
 * move it with the game's `step`), and publishes one FeedBatch per batch. A hand zone hands a
 * player's walker to another zone when told to (or when `handoffX` says so), forwarding the
 * player's later traffic there, as a real zone does.
 */
import { GameHost } from '../../src/game/game-host.js';
import { ZoneGateway, type ZoneGatewayOptions } from '../../src/zones/zone-gateway.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import type {
  FeedBatch,
  FeedEntity,
  GatewayBatch,
  PlayerOwner,
  ZoneEvent,
} from '../../src/zones/zone-messages.js';
import { SIDE, type ZoneGameInput, zoneGame } from './zone-game.js';

export const WALKER = 0;
export const WANDERER = 1;
type Walker = { x: number; y: number; steps: number };

/** Two zones side by side: x < 50 is zone 0, x >= 50 zone 1. */
export function twoZoneMap(): ZoneMap {
  return new ZoneMap({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE, columns: 2, rows: 1, cellZones: [0, 1] });
}

export class HandZone {
  readonly entities = new Map<number, { typeIndex: number; state: unknown }>();
  /** Hosted players and their walker's world id. */
  readonly players = new Map<number, number>();
  readonly batches: GatewayBatch[] = [];
  /** Players handed to another zone: their traffic goes on there. */
  readonly departed = new Map<number, HandZone>();
  epoch = 0;
  /** Publishes its batches (false: keeps them in `held`, to deliver late by hand). */
  publishing = true;
  readonly held: FeedBatch[] = [];
  private next = 0;
  private changedOwners: PlayerOwner[] = [];
  private removed: number[] = [];
  private forwarded: GatewayBatch[] = [];
  /** Events for the next feed batch. */
  readonly events: ZoneEvent[] = [];
  /** Moves every wanderer by this much x a tick. */
  wandererSpeed = 0;
  /** When set: a player's walker past this x goes to `handoffTo` after the tick. */
  handoffX = Number.POSITIVE_INFINITY;
  handoffTo: HandZone | null = null;

  constructor(
    readonly zone: number,
    private readonly publish: (feed: FeedBatch) => void,
  ) {}

  spawn(typeIndex: number, state: unknown): number {
    const worldId = (this.zone << 24) | this.next++;
    this.entities.set(worldId, { typeIndex, state });
    return worldId;
  }

  /** An entity (and its player) leaves for `to`, which publishes it from its next batch. */
  handOff(worldId: number, to: HandZone): void {
    const entity = this.entities.get(worldId)!;
    this.entities.delete(worldId);
    to.entities.set(worldId, entity);
    for (const [playerId, own] of this.players) {
      if (own !== worldId) continue;
      this.players.delete(playerId);
      this.departed.set(playerId, to);
      to.players.set(playerId, worldId);
      to.changedOwners.push({ playerId, worldId });
    }
  }

  destroy(worldId: number): void {
    this.entities.delete(worldId);
    this.removed.push(worldId);
  }

  /** The gateway's batch for one tick: simulated at once, its feed published. */
  take(batch: GatewayBatch): void {
    this.batches.push(batch);
    for (const playerId of batch.joins) {
      const worldId = this.spawn(WALKER, { x: 45, y: 50, steps: 0 });
      this.players.set(playerId, worldId);
      this.changedOwners.push({ playerId, worldId });
    }
    for (const forwarded of this.forwarded.splice(0)) this.apply(forwarded);
    this.apply(batch);
    for (const entity of this.entities.values()) {
      if (entity.typeIndex !== WANDERER || this.wandererSpeed === 0) continue;
      const s = entity.state as { x: number; y: number; heading: number };
      entity.state = { ...s, x: Math.min(SIDE, s.x + this.wandererSpeed) };
    }
    const entities: FeedEntity[] = [...this.entities].map(([worldId, e]) => ({ worldId, ...e }));
    const feed: FeedBatch = {
      zone: this.zone,
      epoch: this.epoch,
      tick: batch.tick,
      keyframe: false,
      entities,
      removed: this.removed.splice(0),
      owners: this.changedOwners.splice(0),
      events: this.events.splice(0),
    };
    if (this.publishing) this.publish(feed);
    else this.held.push(feed);
    const to = this.handoffTo;
    if (to !== null)
      for (const worldId of [...this.players.values()])
        if ((this.entities.get(worldId)!.state as Walker).x > this.handoffX) this.handOff(worldId, to);
  }

  private apply(batch: GatewayBatch): void {
    const onward = new Map<HandZone, GatewayBatch>();
    for (const input of batch.inputs) {
      const to = this.departed.get(input.playerId);
      if (to !== undefined) {
        let forward = onward.get(to);
        if (forward === undefined) {
          forward = { ...batch, joins: [], leaves: [], inputs: [], messages: [] };
          onward.set(to, forward);
        }
        forward.inputs.push(input);
        continue;
      }
      const worldId = this.players.get(input.playerId);
      if (worldId === undefined) continue;
      const entity = this.entities.get(worldId)!;
      entity.state = zoneGame.step(entity.state as Walker, input.input as ZoneGameInput);
    }
    for (const [to, forward] of onward) to.forwarded.push(forward);
    for (const playerId of batch.leaves) {
      const worldId = this.players.get(playerId);
      this.players.delete(playerId);
      if (worldId !== undefined) this.destroy(worldId);
    }
  }
}

export interface GatewayScene {
  host: GameHost<ZoneGateway>;
  gateway: ZoneGateway;
  zones: HandZone[];
  close(): Promise<void>;
}

/** A gateway on loopback UDP over two hand zones (the map above). */
export async function startGatewayScene(
  options: Partial<Omit<ZoneGatewayOptions, 'game' | 'map' | 'send' | 'maxPlayers'>> = {},
): Promise<GatewayScene> {
  const map = twoZoneMap();
  let gateway: ZoneGateway | null = null;
  const zones: HandZone[] = [0, 1].map((zone) => new HandZone(zone, (feed) => gateway?.receive(feed)));
  const host = await GameHost.start(
    'test gateway',
    zoneGame,
    (maxPlayers, onError) => {
      gateway = new ZoneGateway({
        game: zoneGame,
        map,
        gateway: 3,
        maxPlayers,
        radius: 20,
        send: (zone, batch) => zones[zone].take(batch),
        ...options,
        ...(onError === undefined ? {} : { onError }),
      });
      return gateway;
    },
    { port: 0, transports: ['udp'] },
  );
  return { host, gateway: host.hosted, zones, close: () => host.close() };
}
