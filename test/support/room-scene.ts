/**
 * A RoomServer on an in-memory network with an EmbeddedDirectory, all on one clock the test
 * advances (no timers), netcode clients that mirror their room's world, and connect tokens minted
 * as the backend would: reserve a seat, then seal the seat claim in the token's user data.
 */
import {
  type ChannelConfig,
  defineMessage,
  MessageClient,
  MessageFactory,
} from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ClientMirror, defineEntity, type Entity, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import {
  type Directory,
  EmbeddedDirectory,
  encodeSeatUserData,
  Room,
  type RoomClient,
  RoomServer,
  type RoomServerOptions,
  roomChannel,
} from '../../src/services/index.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';

export const PROTOCOL_ID = 0x726f6f6d73n;
const UNIX_MS = 1_700_000_000_000;

/** An entity per player (its room's tag and a score) and one per room (its tag). */
export const Player = defineEntity(
  'player',
  t.object({ room: t.string(8), seat: t.uint16(), score: t.uint16() }),
);
export const Banner = defineEntity('banner', t.object({ room: t.string(8) }));
export const types = [Player, Banner];
const CAPACITY = 64;
/** Client → room: add to my score. */
export const Score = defineMessage('score', t.object({ add: t.int(1, 100) }));
export const factory = new MessageFactory([Score]);

/** What every TestRoom did, in order, for the tests to read. */
export type HookLog = string[];

/** A small game: a banner, a player entity per seat kept across reconnections, scores by message. */
export class TestRoom extends Room<typeof Score> {
  static log: HookLog = [];
  world = new ServerWorld({ types, capacity: CAPACITY });
  tag = '';
  readonly players = new Map<string, Entity<{ room: string; seat: number; score: number }>>();
  private nextSeat = 0;

  override onCreate(options: Record<string, unknown>): void {
    if (options.refuse === true) throw new Error('refused by onCreate');
    this.tag = typeof options.tag === 'string' ? options.tag.slice(0, 8) : 'room';
    if (typeof options.maxClients === 'number') this.maxClients = options.maxClients;
    this.replicate({ world: this.world });
    this.world.create(Banner, { room: this.tag });
    this.setMetadata({ tag: this.tag });
    this.note('create');
  }

  override onAuth(client: RoomClient, options: Readonly<Record<string, unknown>>): boolean | string {
    return options.banned === true ? `banned ${client.userId}` : true;
  }

  override onJoin(client: RoomClient): void {
    this.players.set(
      client.seatId,
      this.world.create(Player, { room: this.tag, seat: this.nextSeat++, score: 0 }),
    );
    this.note(`join ${client.userId}`);
  }

  override onLeave(client: RoomClient, consented: boolean): void {
    const player = this.players.get(client.seatId);
    if (player !== undefined) this.world.destroy(player);
    this.players.delete(client.seatId);
    this.note(`leave ${client.userId} ${consented}`);
  }

  override onDrop(client: RoomClient): void {
    this.note(`drop ${client.userId}`);
  }

  override onReconnect(client: RoomClient): void {
    this.note(`reconnect ${client.userId}`);
  }

  override onMessage(client: RoomClient, message: { value: unknown }): void {
    const add = (message.value as { add: number }).add;
    if (add === 100) {
      this.kick(client); // a cheat: out
      return;
    }
    const player = this.players.get(client.seatId)!;
    const value = this.world.get(player);
    this.world.set(player, { ...value, score: value.score + add });
  }

  override onDispose(): void {
    this.note('dispose');
  }

  score(client: RoomClient): number {
    return this.world.get(this.players.get(client.seatId)!).score;
  }

  private note(what: string): void {
    TestRoom.log.push(`${this.tag}: ${what}`);
  }
}

/** A player's end: a netcode client with a mirror of its room's world. */
export interface TestClient {
  messages: MessageClient<typeof Score>;
  mirror: ClientMirror;
  /** Whether the test drives it each frame (false: it went silent, as a lost link). */
  live: boolean;
}

/** `wrap` stands between the server and the directory (faults injected there); the test sees the directory itself. */
export async function roomScene(
  extra: Partial<RoomServerOptions<typeof Score>> = {},
  wrap: (directory: Directory) => Directory = (directory) => directory,
) {
  const clock = { ms: 0 };
  const directory = new EmbeddedDirectory({ nowMs: () => UNIX_MS + clock.ms });
  const network = new MemoryNetwork();
  const serverSocket = network.createTransport('10.0.0.1:40000');
  const privateKey = new Uint8Array(32).fill(7);
  const errors: string[] = [];
  const server = new RoomServer({
    directory: wrap(directory),
    protocolId: PROTOCOL_ID,
    privateKey,
    transports: [{ kind: 'memory', transport: serverSocket }],
    factory,
    channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
    maxClients: 16,
    timers: false,
    nowMs: () => clock.ms,
    unixTime: () => Math.floor((UNIX_MS + clock.ms) / 1000),
    aead: nobleAead,
    onError: (error, where) => errors.push(`${where}: ${String(error)}`),
    ...extra,
  });
  TestRoom.log = [];
  server.define('test', TestRoom, {
    maxClients: 4,
    tickRate: 20,
    reconnectWindowMs: 3000,
    emptyDisposeMs: 2000,
  });
  await server.start();
  const clients: TestClient[] = [];
  let nextClientId = 1n;

  /** Lets the directory's promises and published messages run. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  /** `ms` of frames, 10 ms each: the server's frame, then every live client; settles after each. */
  const run = async (ms: number) => {
    for (let elapsed = 0; elapsed < ms; elapsed += 10) {
      clock.ms += 10;
      server.update(clock.ms);
      for (const c of clients) if (c.live) c.messages.update(clock.ms / 1000);
      await settle();
    }
  };
  /** A connect token for a seat (as the backend mints it): `userData` from the claim unless given. */
  const token = (
    claim: { roomId: string; seatId: string } | null,
    clientId = nextClientId++,
    timeoutSeconds = 1,
  ) =>
    generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey,
      clientId,
      serverAddresses: [serverSocket.localAddress],
      now: Math.floor((UNIX_MS + clock.ms) / 1000),
      timeoutSeconds,
      userData: claim === null ? new Uint8Array(256) : encodeSeatUserData(claim),
      aead: nobleAead,
    });
  /** A new player's end on its own address, connecting with `connectToken`. */
  const connect = (connectToken: Uint8Array, extraChannels: ChannelConfig[] = []): TestClient => {
    const mirror = new ClientMirror({ types, capacity: CAPACITY });
    const messages = new MessageClient({
      transport: network.createTransport(),
      aead: nobleAead,
      factory,
      channels: [mirror.channel, { kind: 'reliable-ordered' }, ...extraChannels],
    });
    messages.connect(connectToken, clock.ms / 1000);
    const client = { messages, mirror, live: true };
    clients.push(client);
    return client;
  };
  /** Reserves a seat for `userId` and connects with a token for it; the seat's id is returned too. */
  const join = async (
    roomId: string,
    userId: string,
    options?: Record<string, unknown>,
    extraChannels: ChannelConfig[] = [],
  ) => {
    const seatId = `seat-${userId}-${nextClientId}`;
    const clientId = nextClientId;
    const reserved = await directory.reserveSeat(roomId, {
      seatId,
      userId,
      clientId: clientId.toString(),
      ttlMs: 10_000,
      options,
    });
    if (!reserved.ok) throw new Error(`reserve refused: ${reserved.reason}`);
    const client = connect(token({ roomId, seatId }, nextClientId++), extraChannels);
    return { client, seatId, clientId };
  };
  const create = async (options: Record<string, unknown> = {}) => {
    const result = await server.createRoom('test', options);
    if (!result.ok) throw new Error(`create refused: ${result.reason}`);
    return result.room as TestRoom;
  };
  return { clock, directory, network, server, errors, clients, settle, run, token, connect, join, create };
}

/** The tags of the ghosts a client mirrors (sorted). */
export function mirroredRooms(client: { mirror: ClientMirror }): string[] {
  const tags: string[] = [];
  for (let id = 0; id < CAPACITY; id++) {
    const ghost = client.mirror.ghost(id);
    if (ghost !== null) tags.push((ghost.value as { room: string }).room);
  }
  return tags.sort();
}
