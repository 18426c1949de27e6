/**
 * One RoomServer process hosting many small rooms (issue 14): ROOMS rooms of 4 players at 20 Hz,
 * each a world of 16 wandering orbs and an avatar per player that moves every tick, replicated to
 * its own players only, over the in-memory transport with an EmbeddedDirectory. Measured:
 * - the join of every player at once: seat reservations, tokens, netcode handshakes and the seat
 *   taken in the directory, in frames of 50 ms virtual time; wall time with the server and every
 *   client in this one thread;
 * - the steady frame: `RoomServer.update` (every room's tick, ghost sections, one packet per
 *   client), timed alone, the clients' own updates outside the timing; from it, the players one
 *   core could serve at 20 Hz with the frame as the only work.
 * Medians; the machine is shared, so figures are noisy.
 */
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ClientMirror, defineEntity, type Entity, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { Room, type RoomClient } from '../../src/services/room.js';
import { roomChannel } from '../../src/services/room-channels.js';
import { RoomServer } from '../../src/services/room-server.js';
import { encodeSeatUserData } from '../../src/services/seat-token.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { check, fmt, median, type SuiteContext } from '../harness.js';

const PER_ROOM = 4;
const ORBS = 16;
const TICK_RATE = 20;
const FRAME_MS = 1000 / TICK_RATE;
const PROTOCOL_ID = 0x62656e6368n;
const UNIX_MS = 1_700_000_000_000;
const coordinate = t.float(0, 100, 1 / 64);
const Body = defineEntity('body', t.object({ x: coordinate, y: coordinate }));
const types = [Body];
const CAPACITY = 32;

class BenchRoom extends Room {
  readonly world = new ServerWorld({ types, capacity: CAPACITY });
  private readonly bodies: Entity<{ x: number; y: number }>[] = [];
  private readonly avatars = new Map<RoomClient, Entity<{ x: number; y: number }>>();
  joinedAt: number[] = [];

  override onCreate(): void {
    this.replicate({ world: this.world });
    for (let i = 0; i < ORBS; i++) this.bodies.push(this.world.create(Body, { x: i * 5, y: 50 }));
  }

  override onJoin(client: RoomClient): void {
    const avatar = this.world.create(Body, { x: 50, y: 50 });
    this.avatars.set(client, avatar);
    this.bodies.push(avatar);
    this.joinedAt.push(performance.now());
  }

  override onTick(tick: number): void {
    for (let i = 0; i < this.bodies.length; i++) {
      const x = (i * 5 + tick * 0.25) % 100;
      this.world.set(this.bodies[i], { x, y: 50 + 10 * Math.sin(tick / 20 + i) });
    }
  }
}

export async function runRooms(ctx: SuiteContext): Promise<void> {
  const rooms = ctx.options.quick ? 100 : 250;
  const players = rooms * PER_ROOM;
  const steadyFrames = ctx.options.quick ? 60 : 200;
  let now = 0;
  const directory = new EmbeddedDirectory({ nowMs: () => UNIX_MS + now });
  const network = new MemoryNetwork();
  const socket = network.createTransport('10.0.0.1:40000');
  const privateKey = new Uint8Array(32).fill(9);
  const factory = new MessageFactory([defineMessage('unused', t.bool())]);
  const server = new RoomServer({
    directory,
    protocolId: PROTOCOL_ID,
    privateKey,
    transports: [{ kind: 'memory', transport: socket }],
    factory,
    channels: [roomChannel('replication')],
    maxClients: players,
    maxRooms: rooms,
    timers: false,
    nowMs: () => now,
    unixTime: () => Math.floor((UNIX_MS + now) / 1000),
    onError: (error, where) => {
      throw new Error(`${where}: ${String(error)}`);
    },
  });
  server.define('bench', BenchRoom, { maxClients: PER_ROOM, tickRate: TICK_RATE });
  await server.start();
  const made: BenchRoom[] = [];
  for (let r = 0; r < rooms; r++) {
    const result = await server.createRoom('bench');
    check(result.ok, 'a room was refused');
    if (result.ok) made.push(result.room as BenchRoom);
  }
  const clients: { messages: MessageClient; mirror: ClientMirror }[] = [];
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const frame = async (timed: number[] | null) => {
    now += FRAME_MS;
    const start = performance.now();
    server.update(now);
    timed?.push(performance.now() - start);
    for (const c of clients) c.messages.update(now / 1000);
    await settle();
  };

  // Everyone at once: reserve, mint, connect; then frames until every seat is taken.
  const joinStart = performance.now();
  let id = 1n;
  for (const room of made) {
    for (let p = 0; p < PER_ROOM; p++) {
      const seatId = `s${id}`;
      const seat = await directory.reserveSeat(room.roomId, {
        seatId,
        userId: `u${id}`,
        clientId: `${id}`,
        ttlMs: 30_000,
      });
      check(seat.ok, 'a seat was refused');
      const mirror = new ClientMirror({ types, capacity: CAPACITY });
      const messages = new MessageClient({
        transport: network.createTransport(),
        factory,
        channels: [mirror.channel],
      });
      messages.connect(
        generateConnectToken({
          protocolId: PROTOCOL_ID,
          privateKey,
          clientId: id++,
          serverAddresses: [socket.localAddress],
          now: Math.floor((UNIX_MS + now) / 1000),
          userData: encodeSeatUserData({ roomId: room.roomId, seatId }),
        }),
        now / 1000,
      );
      clients.push({ messages, mirror });
    }
  }
  const mintedMs = performance.now() - joinStart;
  let joinFrames = 0;
  while (server.load().clients < players && joinFrames < 200) {
    await frame(null);
    joinFrames++;
  }
  const joinMs = performance.now() - joinStart;
  check(server.load().clients === players, `only ${server.load().clients} of ${players} joined`);
  const joinedAt = made.flatMap((room) => room.joinedAt.map((at) => at - joinStart)).sort((a, b) => a - b);

  // Steady play: every frame a tick in every room and a packet to every client.
  for (let i = 0; i < 20; i++) await frame(null);
  const frameMs: number[] = [];
  for (let i = 0; i < steadyFrames; i++) await frame(frameMs);
  await server.heartbeat();
  const load = server.load();
  for (const c of clients)
    check(c.mirror.size === ORBS + PER_ROOM, `a client mirrors ${c.mirror.size} ghosts`);
  const sorted = [...frameMs].sort((a, b) => a - b);
  const frameMedian = median(frameMs);
  const perCore = Math.floor((players * FRAME_MS) / frameMedian);
  await server.stop();

  const lines = [
    `${players.toLocaleString('en-US')} simultaneous joins into ${rooms} rooms of ${PER_ROOM} (in-memory transport, EmbeddedDirectory, server and clients in one thread): all seated after ${joinFrames} frames of ${FRAME_MS} ms virtual, ${fmt(joinMs)} ms wall (${fmt(mintedMs)} of it reserving seats and minting tokens); seated at p50 ${fmt(joinedAt[Math.floor(joinedAt.length / 2)])} ms, p99 ${fmt(joinedAt[Math.floor(joinedAt.length * 0.99)])} ms wall`,
    `steady frame (${rooms} room ticks at ${TICK_RATE} Hz, ${ORBS + PER_ROOM} moving entities each, a packet to each of ${players.toLocaleString('en-US')} clients): median ${fmt(frameMedian)} ms, p99 ${fmt(sorted[Math.floor(sorted.length * 0.99)])} ms over ${steadyFrames} frames; room tick mean ${fmt(load.tickMs)} ms, worst ${fmt(load.tickMaxMs)} ms`,
    `=> about ${perCore.toLocaleString('en-US')} players per core at ${TICK_RATE} Hz if the frame were a core's only work (${players} × ${FRAME_MS} ms / median frame)`,
  ];
  for (const line of lines) ctx.note(line);
  ctx.record('rooms', {
    rooms,
    players,
    joinFrames,
    joinMs,
    joinP50Ms: joinedAt[Math.floor(joinedAt.length / 2)],
    joinP99Ms: joinedAt[Math.floor(joinedAt.length * 0.99)],
    frameMedianMs: frameMedian,
    frameP99Ms: sorted[Math.floor(sorted.length * 0.99)],
    tickMs: load.tickMs,
    playersPerCore: perCore,
  });
}
