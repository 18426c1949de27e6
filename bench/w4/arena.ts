/**
 * The W4 arena (issue 10, benchmark 2) through the real stack, in one process: 10,000 units
 * random-walking at 5 m/s on a 2 km × 2 km map, a ServerWorld + ReplicationServer with distance
 * interest (150 m, leave × 1.15) behind a MessageServer, and N MessageClients with a ClientMirror
 * each, connected over the in-memory transport with netcode encryption (node:crypto AEAD).
 * Client c follows unit c × (units / clients).
 *
 * `step()` is one 20 Hz tick in three parts, so the bench can time the server's alone:
 *   game     the units walk and the game writes them (world.set): the game's own work
 *   server   world.tick() + MessageServer.update(now): acks in, relevancy, priority, delta
 *            encode, packet write and encryption for every client
 *   clients  every client reads its packet and sends its ack (so baselines advance)
 */
import { defineMessage, MessageClient, MessageFactory, MessageServer } from '../../src/channels/index.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import {
  ClientMirror,
  defineEntity,
  type Entity,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { MemoryNetwork, type MemoryTransport } from '../../src/transport/memory-transport.js';

export const W4 = {
  units: 10_000,
  map: 2_000,
  speed: 5,
  hz: 20,
  radius: 150,
  cell: 75,
  /** Distinct states kept per unit (server) and per ghost (client) for baselines. */
  historyLength: 8,
} as const;

/** A unit: position at 1/32 m (16 bits per axis) and a heading in 256 steps. */
export const Unit = defineEntity(
  'unit',
  t.object({ x: t.float(0, W4.map, 1 / 32), y: t.float(0, W4.map, 1 / 32), heading: t.uint8() }),
  { position: (v) => [v.x, v.y] },
);
type UnitValue = { x: number; y: number; heading: number };

const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(16) }))]);
const PROTOCOL_ID = 0x5eed_0004n;
const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const UNIX_START = 1_700_000_000;

export interface W4Client {
  client: MessageClient;
  mirror: ClientMirror;
  transport: MemoryTransport;
}

export class W4Scene {
  readonly network = new MemoryNetwork();
  readonly world: ServerWorld;
  readonly replication: ReplicationServer;
  readonly server: MessageServer;
  readonly serverSocket: MemoryTransport;
  clients: W4Client[] = [];
  now = 0;
  private readonly units: Entity<UnitValue>[] = [];
  private readonly values: UnitValue[] = [];
  private readonly heading: Float64Array;
  private random: number;

  constructor(
    readonly clientCount: number,
    seed = 0x5eed_0004,
  ) {
    this.world = new ServerWorld({ types: [Unit], capacity: W4.units, historyLength: W4.historyLength });
    this.replication = new ReplicationServer({
      world: this.world,
      maxClients: clientCount,
      interest: {
        grid: { min: [0, 0], max: [W4.map, W4.map], cellSize: W4.cell },
        radius: W4.radius,
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
      aead: nodeAead,
      unixTime: () => UNIX_START + Math.floor(this.now),
      maxDatagramsPerUpdate: Math.max(1024, clientCount * 4),
      factory,
      channels: [this.replication.channel],
      maxClients: clientCount,
    });
    this.random = seed | 1;
    this.heading = new Float64Array(W4.units);
    for (let id = 0; id < W4.units; id++) {
      const value = { x: this.next() * W4.map, y: this.next() * W4.map, heading: 0 };
      this.heading[id] = this.next() * 2 * Math.PI;
      this.values.push(value);
      this.units.push(this.world.create(Unit, value));
    }
    this.world.tick();
  }

  /** Makes the clients and connects them all (the handshake is not part of any timing). */
  connect(): void {
    for (let i = 0; i < this.clientCount; i++) {
      // Small queues (one packet arrives per tick): the in-memory transport makes its pooled
      // datagrams as its ring first fills, which would show as heap growth for many ticks.
      const transport = this.network.createTransport(undefined, { maxQueuedDatagrams: 8 });
      const mirror = new ClientMirror({ types: [Unit], capacity: W4.units, historyLength: W4.historyLength });
      const client = new MessageClient({ transport, aead: nodeAead, factory, channels: [mirror.channel] });
      const token = generateConnectToken({
        protocolId: PROTOCOL_ID,
        privateKey: PRIVATE_KEY,
        clientId: BigInt(i + 1),
        serverAddresses: [this.serverSocket.localAddress],
        now: UNIX_START + Math.floor(this.now),
        timeoutSeconds: 30,
        aead: nodeAead,
      });
      client.connect(token, this.now);
      this.clients.push({ client, mirror, transport });
    }
    for (let round = 0; round < 200; round++) {
      this.now += 1 / W4.hz;
      this.server.update(this.now);
      this.updateClients();
      if (this.clients.every((c) => c.client.connected)) break;
    }
    const connected = this.clients.filter((c) => c.client.connected).length;
    if (connected !== this.clientCount)
      throw new Error(`W4: ${connected} of ${this.clientCount} clients connected`);
    const spacing = Math.floor(W4.units / this.clientCount);
    for (const { client } of this.clients) {
      const index = client.client.clientIndex;
      this.replication.view(index)!.follow = index * spacing;
    }
  }

  /** The game's step: every unit turns a little, walks, bounces off the edges, and is written. */
  game(): void {
    const step = W4.speed / W4.hz;
    for (let id = 0; id < W4.units; id++) {
      const v = this.values[id];
      let h = this.heading[id] + (this.next() - 0.5) * 0.5;
      let x = v.x + Math.cos(h) * step;
      let y = v.y + Math.sin(h) * step;
      if (x < 0 || x > W4.map) {
        x = v.x;
        h = Math.PI - h;
      }
      if (y < 0 || y > W4.map) {
        y = v.y;
        h = -h;
      }
      this.heading[id] = h;
      v.x = x;
      v.y = y;
      v.heading = Math.floor((((h % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) * (128 / Math.PI)) & 255;
      this.world.set(this.units[id], v);
    }
  }

  /** The server's tick: what the benchmark times. The clock moves on one tick first. */
  serverTick(): void {
    this.world.tick();
    this.server.update(this.now);
  }

  advanceClock(): void {
    this.now += 1 / W4.hz;
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

  /** xorshift32 in [0, 1). */
  private next(): number {
    let s = this.random;
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    this.random = s;
    return (s >>> 0) / 4294967296;
  }
}
