/**
 * The W4 arena (issue 10, benchmark 2) through ghostwire's real stack, in one process: the shared
 * scene (scene.ts: the same motion, seed and follow rule as the @colyseus/schema peer) written
 * into a ServerWorld of {@link W4_ENTITY} entities, a ReplicationServer with distance interest
 * (150 m, leave × 1.15) behind a MessageServer, and N MessageClients with a ClientMirror each,
 * connected over the in-memory transport with netcode encryption (the Node default AEAD).
 *
 * A 20 Hz tick comes in three parts, so the bench can time the server's alone:
 *   game     the scene steps and the game writes every entity (world.set): the game's own work
 *   server   world.tick() + MessageServer.update(now): acks in, relevancy, priority, delta
 *            encode, packet write and encryption for every client
 *   clients  every client reads its packet and sends its ack (so baselines advance)
 */
import { defineMessage, MessageClient, MessageFactory, MessageServer } from '../../src/channels/index.js';
import { nodeDefaultAead } from '../../src/connection/aead-node-default.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import {
  ClientMirror,
  defineEntity,
  type Entity,
  group,
  owner,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { type Schema, t } from '../../src/schema/schema.js';
import { MemoryNetwork, type MemoryTransport } from '../../src/transport/memory-transport.js';
import { followedEntity, W4_ENTITIES, W4_ENTITY, W4_HZ, W4_MAP, W4_RADIUS, W4Scene } from './scene.js';

export const W4_ARENA = {
  /** The interest grid's cell (m): half the radius, as the Colyseus peer's grid. */
  cell: W4_RADIUS / 2,
  /** Distinct states kept per entity (server) and per ghost (client) for baselines. */
  historyLength: 8,
  seed: 0x5eed_0004,
} as const;

/** A W4 entity as the replication layer knows it: the shared schema, positioned by x, y. */
export const W4Unit = defineEntity('unit', W4_ENTITY, { position: (v) => [v.x, v.y] });
type W4Value = { x: number; y: number; heading: number; kind: number; secret?: number[] };

/**
 * The private-field variants (issue 27): each entity carries a 32-byte secret (8 × uint32).
 * 'owner': visible to the client that follows it (its owner), whose secret changes every tick.
 * 'team': visible to the clients of its team (kind; client c is on team c mod 4), 1% of secrets
 * changing a tick. 'public': the same field and changes as 'owner', visible to everyone (what
 * the field costs without privacy).
 */
export type W4Private = 'owner' | 'team' | 'public';
const W4_SECRET = t.object({
  ...(W4_ENTITY as unknown as { fields: Record<string, Schema<unknown>> }).fields,
  secret: t.tuple(t.uint32(), 8),
}) as unknown as Schema<{ x: number; y: number; heading: number; kind: number; secret: number[] }>;
const W4UnitPublic = defineEntity('unit', W4_SECRET, { position: (v) => [v.x, v.y] });
const W4UnitOwner = defineEntity('unit', W4_SECRET, {
  position: (v) => [v.x, v.y],
  visibility: { secret: owner() },
});
const W4UnitTeam = defineEntity('unit', W4_SECRET, {
  position: (v) => [v.x, v.y],
  visibility: { secret: group() },
});

const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(16) }))]);
const PROTOCOL_ID = 0x5eed_0004n;
const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const UNIX_START = 1_700_000_000;

export interface W4Client {
  client: MessageClient;
  mirror: ClientMirror;
  transport: MemoryTransport;
}

export class W4Arena {
  readonly scene: W4Scene;
  readonly network = new MemoryNetwork();
  readonly world: ServerWorld;
  readonly replication: ReplicationServer;
  readonly server: MessageServer;
  readonly serverSocket: MemoryTransport;
  clients: W4Client[] = [];
  now = 0;
  /** Entity updates (a new value of a ghost held) applied by all client mirrors so far. */
  updatesReceived = 0;
  private readonly entities: Entity<W4Value>[] = [];
  /** One reused value for the game's writes (world.set copies what it needs). */
  private readonly value: W4Value = { x: 0, y: 0, heading: 0, kind: 0 };

  private readonly type: typeof W4Unit;
  private readonly secrets: number[][] = [];
  private ticks = 0;

  constructor(
    readonly clientCount: number,
    seed: number = W4_ARENA.seed,
    readonly entityCount: number = W4_ENTITIES,
    readonly privateField: W4Private | null = null,
  ) {
    this.scene = new W4Scene(entityCount, seed);
    const types = { owner: W4UnitOwner, team: W4UnitTeam, public: W4UnitPublic };
    this.type = (privateField === null ? W4Unit : types[privateField]) as typeof W4Unit;
    if (privateField !== null)
      for (let id = 0; id < entityCount; id++) this.secrets.push(new Array<number>(8).fill(id));
    this.world = new ServerWorld({
      types: [this.type],
      capacity: privateField === null || privateField === 'public' ? entityCount : entityCount * 2,
      historyLength: W4_ARENA.historyLength,
    });
    this.replication = new ReplicationServer({
      world: this.world,
      maxClients: clientCount,
      interest: {
        grid: { min: [0, 0], max: [W4_MAP, W4_MAP], cellSize: W4_ARENA.cell },
        radius: W4_RADIUS,
      },
      // BandwidthBudget's defaults: at most 512 bytes per packet, 256 kbit/s.
      bandwidth: {},
    });
    this.serverSocket = this.network.createTransport('10.0.0.1:40000', {
      maxQueuedDatagrams: Math.max(64, clientCount * 2),
    });
    this.server = new MessageServer({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      publicAddresses: [this.serverSocket.localAddress],
      transports: [this.serverSocket],
      aead: nodeDefaultAead,
      unixTime: () => UNIX_START + Math.floor(this.now),
      maxDatagramsPerUpdate: Math.max(1024, clientCount * 4),
      factory,
      channels: [this.replication.channel],
      maxClients: clientCount,
    });
    for (let id = 0; id < entityCount; id++) {
      const entity = this.world.create(this.type, this.read(id));
      if (privateField === 'team') this.world.setGroup(entity, this.scene.kind[id]);
      this.entities.push(entity);
    }
    this.world.tick();
  }

  /** Makes the clients and connects them all (the handshake is not part of any timing). */
  connect(): void {
    for (let i = 0; i < this.clientCount; i++) {
      // Small queues (one packet arrives per tick): the in-memory transport makes its pooled
      // datagrams as its ring first fills, which would show as heap growth for many ticks.
      const transport = this.network.createTransport(undefined, { maxQueuedDatagrams: 8 });
      const mirror = new ClientMirror({
        types: [this.type],
        capacity:
          this.privateField === null || this.privateField === 'public'
            ? this.entityCount
            : this.entityCount * 2,
        historyLength: W4_ARENA.historyLength,
        onUpdate: () => {
          this.updatesReceived++;
        },
      });
      const client = new MessageClient({
        transport,
        aead: nodeDefaultAead,
        factory,
        channels: [mirror.channel],
      });
      const token = generateConnectToken({
        protocolId: PROTOCOL_ID,
        privateKey: PRIVATE_KEY,
        clientId: BigInt(i + 1),
        serverAddresses: [this.serverSocket.localAddress],
        now: UNIX_START + Math.floor(this.now),
        timeoutSeconds: 30,
        aead: nodeDefaultAead,
      });
      client.connect(token, this.now);
      this.clients.push({ client, mirror, transport });
    }
    for (let round = 0; round < 200; round++) {
      this.now += 1 / W4_HZ;
      this.server.update(this.now);
      this.updateClients();
      if (this.clients.every((c) => c.client.connected)) break;
    }
    const connected = this.clients.filter((c) => c.client.connected).length;
    if (connected !== this.clientCount)
      throw new Error(`W4: ${connected} of ${this.clientCount} clients connected`);
    // The server's client slot is the client number of the shared follow rule.
    for (const { client } of this.clients) {
      const index = client.client.clientIndex;
      const followed = followedEntity(index, this.entityCount);
      this.replication.view(index)!.follow = this.entities[followed].id;
      if (this.privateField === 'owner') this.world.setOwner(this.entities[followed], index);
      if (this.privateField === 'team') this.replication.setGroups(index, 1 << (index % 4));
    }
  }

  /** The game's step: the scene moves and every entity is written. */
  game(): void {
    this.scene.step();
    this.write();
  }

  /** The game's writes alone: every entity's new value into the world (world.set). */
  write(): void {
    this.ticks++;
    if (this.privateField === 'owner' || this.privateField === 'public') {
      // Every owned secret changes every tick (the worst case for the owners' parts).
      for (let c = 0; c < this.clientCount; c++) {
        const secret = this.secrets[followedEntity(c, this.entityCount)];
        for (let i = 0; i < 8; i++) secret[i] = (this.ticks * 2654435761 + i * 40503) >>> 0;
      }
    } else if (this.privateField === 'team') {
      const changes = Math.ceil(this.entityCount / 100);
      for (let i = 0; i < changes; i++) {
        const secret = this.secrets[(this.ticks * 97 + i * 101) % this.entityCount];
        secret[0] = (secret[0] + 1) >>> 0;
      }
    }
    for (let id = 0; id < this.entityCount; id++) this.world.set(this.entities[id], this.read(id));
  }

  /** The server's tick: what the benchmark times. */
  serverTick(): void {
    this.world.tick();
    this.server.update(this.now);
  }

  advanceClock(): void {
    this.now += 1 / W4_HZ;
  }

  /** Every client reads what arrived and sends its packet (with acks). */
  updateClients(): void {
    for (let i = 0; i < this.clients.length; i++) this.clients[i].client.update(this.now);
  }

  /** Drops every client without telling the server (it keeps their connections until they time out). */
  dropClients(): void {
    for (const c of this.clients) c.transport.close();
    this.clients = [];
  }

  /** Mean ghosts per client mirror. */
  meanGhosts(): number {
    let sum = 0;
    for (const c of this.clients) sum += c.mirror.size;
    return sum / Math.max(1, this.clients.length);
  }

  private read(id: number): W4Value {
    const v = this.value;
    v.x = this.scene.x[id];
    v.y = this.scene.y[id];
    v.heading = this.scene.heading[id];
    v.kind = this.scene.kind[id];
    if (this.privateField !== null) v.secret = this.secrets[id];
    return v;
  }
}
