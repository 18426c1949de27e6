/**
 * The demo arena (demo/arena-room.ts: 400 wandering orbs recorded for rewinds, an avatar per player
 * steered by 20 Hz inputs, 40 m interest) as rooms of 64 under one RoomServer, over the in-memory
 * transport with encryption on, every client a light bot (a ClientMirror and an InputSender, an
 * input pushed each tick): the same server work as `npm run loadtest` without sockets or bot
 * processes, so the room server's own CPU per player per tick can be A/B'd on a loaded machine.
 *
 * Measured: the process CPU time (process.cpuUsage, user + system) of `RoomServer.update` alone,
 * the clients' updates outside it; per frame, divided by the players. CPU time, not wall time: the
 * machine is shared. The sockets' send and receive cost (the kernel's) is not in it.
 */
import {
  ARENA_PROTOCOL_ID,
  ARENA_ROOM,
  ArenaRoom,
  arenaChannels,
  arenaFactory,
} from '../../demo/arena-room.js';
import type { CustomChannelConfig } from '../../src/channels/config.js';
import { MessageClient } from '../../src/channels/index.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { InputSender } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { ClientMirror } from '../../src/replication/index.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { RoomServer } from '../../src/services/room-server.js';
import { encodeSeatUserData } from '../../src/services/seat-token.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { CAPACITY, types, Walk, type WalkValue } from '../../tools/live-arena.js';
import { check, fmt, median, type SuiteContext } from '../harness.js';

const ROOM_SIZE = 64;
const TICK_RATE = 20;
const FRAME_MS = 1000 / TICK_RATE;
const UNIX_MS = 1_700_000_000_000;

interface Bot {
  messages: MessageClient;
  mirror: ClientMirror;
  sender: InputSender<WalkValue>;
  input: WalkValue;
  tick: number;
}

/** Runs `rooms` full arena rooms; returns the median server CPU µs per player per tick. */
export async function measureArenaRooms(
  rooms: number,
  steadyFrames: number,
  seed = 13,
  /** Wraps a bot's replication channel (bot index, its ClientMirror's channel): to record what it receives. */
  tap?: (bot: number, channel: CustomChannelConfig) => CustomChannelConfig,
): Promise<{
  perPlayerUs: number;
  simulatePerPlayerUs: number;
  frameCpuMs: number;
  tickMs: number;
  players: number;
}> {
  const players = rooms * ROOM_SIZE;
  const random = prng(seed);
  let now = 0;
  const directory = new EmbeddedDirectory({ nowMs: () => UNIX_MS + now });
  const network = new MemoryNetwork();
  const socket = network.createTransport('10.0.0.1:40000');
  const privateKey = new Uint8Array(32).fill(7);
  const server = new RoomServer({
    directory,
    protocolId: ARENA_PROTOCOL_ID,
    privateKey,
    transports: [{ kind: 'memory', transport: socket }],
    factory: arenaFactory,
    channels: arenaChannels,
    maxClients: players,
    maxRooms: rooms,
    timers: false,
    nowMs: () => now,
    unixTime: () => Math.floor((UNIX_MS + now) / 1000),
    onError: (error, where) => {
      throw new Error(`${where}: ${String(error)}`);
    },
  });
  server.define(ARENA_ROOM, ArenaRoom, { maxClients: ROOM_SIZE, tickRate: TICK_RATE });
  await server.start();
  const bots: Bot[] = [];
  let id = 1n;
  for (let r = 0; r < rooms; r++) {
    const made = await server.createRoom(ARENA_ROOM, { seed: seed + r });
    check(made.ok, 'an arena room was refused');
    if (!made.ok) continue;
    for (let p = 0; p < ROOM_SIZE; p++) {
      const seatId = `s${id}`;
      const seat = await directory.reserveSeat(made.room.roomId, {
        seatId,
        userId: `u${id}`,
        clientId: `${id}`,
        ttlMs: 60_000,
      });
      check(seat.ok, 'a seat was refused');
      const mirror = new ClientMirror({ types, capacity: CAPACITY });
      const sender = new InputSender({ schema: Walk });
      const messages = new MessageClient({
        transport: network.createTransport(),
        factory: arenaFactory,
        channels: [tap === undefined ? mirror.channel : tap(bots.length, mirror.channel), sender.channel],
      });
      messages.connect(
        generateConnectToken({
          protocolId: ARENA_PROTOCOL_ID,
          privateKey,
          clientId: id++,
          serverAddresses: [socket.localAddress],
          now: Math.floor((UNIX_MS + now) / 1000),
          userData: encodeSeatUserData({ roomId: made.room.roomId, seatId }),
        }),
        now / 1000,
      );
      const input = { dx: 0, dy: 0, zap: false, target: 0, aimX: 0, aimY: 0 };
      bots.push({ messages, mirror, sender, input, tick: -1 });
    }
  }
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const frameCpu: number[] = [];
  const frame = async (timed: boolean) => {
    now += FRAME_MS;
    const before = process.cpuUsage();
    server.update(now);
    if (timed) {
      const used = process.cpuUsage(before);
      frameCpu.push((used.user + used.system) / 1000);
    }
    for (const bot of bots) {
      bot.messages.update(now / 1000);
      if (bot.tick < 0) {
        if (bot.mirror.sectionsApplied === 0) continue;
        bot.tick = bot.mirror.newestTick + 2;
      }
      // The load tester's walk: a new heading now and then, half a metre a tick at most.
      if (random() < 0.05) {
        bot.input.dx = Math.round((random() - 0.5) * 64) / 64;
        bot.input.dy = Math.round((random() - 0.5) * 64) / 64;
      }
      bot.sender.push(bot.tick++, bot.input);
    }
    await settle();
  };
  let joinFrames = 0;
  while (server.load().clients < players && joinFrames < 200) {
    await frame(false);
    joinFrames++;
  }
  check(server.load().clients === players, `only ${server.load().clients} of ${players} joined`);
  // Warm-up: every mirror filled, the JIT settled.
  for (let i = 0; i < 60; i++) await frame(false);
  // The arenas' own ticks (simulation, lag-compensation recording), timed apart.
  let simulateUs = 0;
  for (const room of server.rooms) {
    const arena = (room as ArenaRoom).arena!;
    const simulate = arena.simulate.bind(arena);
    arena.simulate = (tick: number) => {
      const before = process.cpuUsage();
      simulate(tick);
      const used = process.cpuUsage(before);
      simulateUs += used.user + used.system;
    };
  }
  for (let i = 0; i < steadyFrames; i++) await frame(true);
  const tickMs = server.load().tickMs;
  let inputs = 0;
  for (const room of server.rooms) inputs += (room as ArenaRoom).arena?.inputsTaken ?? 0;
  check(inputs > 0, 'no input reached an avatar');
  await server.stop();
  const frameCpuMs = median(frameCpu);
  const simulatePerPlayerUs = simulateUs / steadyFrames / players;
  return { perPlayerUs: (frameCpuMs * 1000) / players, simulatePerPlayerUs, frameCpuMs, tickMs, players };
}

/** The fixed cost of a room: `rooms` arena rooms with nobody in them (orbs wander, are recorded and replicated to no one); CPU µs per room per tick. */
export async function measureEmptyRooms(rooms: number, frames: number): Promise<number> {
  let now = 0;
  const network = new MemoryNetwork();
  const server = new RoomServer({
    directory: new EmbeddedDirectory({ nowMs: () => UNIX_MS + now }),
    protocolId: ARENA_PROTOCOL_ID,
    privateKey: new Uint8Array(32).fill(7),
    transports: [{ kind: 'memory', transport: network.createTransport('10.0.0.1:40000') }],
    factory: arenaFactory,
    channels: arenaChannels,
    maxClients: rooms * ROOM_SIZE,
    maxRooms: rooms,
    timers: false,
    nowMs: () => now,
    unixTime: () => Math.floor((UNIX_MS + now) / 1000),
  });
  server.define(ARENA_ROOM, ArenaRoom, { maxClients: ROOM_SIZE, tickRate: TICK_RATE, emptyDisposeMs: 1e9 });
  await server.start();
  for (let r = 0; r < rooms; r++) check((await server.createRoom(ARENA_ROOM, { seed: r })).ok, 'refused');
  const cpu: number[] = [];
  for (let i = 0; i < 60 + frames; i++) {
    now += FRAME_MS;
    const before = process.cpuUsage();
    server.update(now);
    const used = process.cpuUsage(before);
    if (i >= 60) cpu.push(used.user + used.system);
  }
  check(server.rooms.length === rooms, 'an empty room was disposed');
  await server.stop();
  return median(cpu) / rooms;
}

export async function runArenaRooms(ctx: SuiteContext): Promise<void> {
  const rooms = Number(process.env.GW_ARENA_ROOMS ?? (ctx.options.quick ? 1 : 2));
  const frames = Number(process.env.GW_ARENA_FRAMES ?? (ctx.options.quick ? 100 : 300));
  const r = await measureArenaRooms(rooms, frames);
  const perCore = Math.floor(1e6 / TICK_RATE / r.perPlayerUs);
  ctx.note(
    `demo arena, ${rooms} room(s) of ${ROOM_SIZE} (${r.players} light bots, in-memory transport, encrypted): RoomServer.update ${fmt(r.frameCpuMs)} ms CPU per frame (median of ${frames}), ${fmt(r.perPlayerUs)} µs CPU per player per tick, of which the arenas' simulation (mean) ${fmt(r.simulatePerPlayerUs)} µs; room tick mean ${fmt(r.tickMs)} ms`,
  );
  ctx.note(
    `=> about ${perCore.toLocaleString('en-US')} players per core at ${TICK_RATE} Hz from the frame alone (no socket syscalls, no GC of other work)`,
  );
  const emptyRoomUs = await measureEmptyRooms(8, frames);
  ctx.note(
    `a room's fixed cost: ${fmt(emptyRoomUs)} µs CPU per empty arena room per tick (8 rooms, nobody in them): ${fmt(emptyRoomUs / ROOM_SIZE)} µs per player per tick when full`,
  );
  ctx.record('arena', {
    emptyRoomUs,
    rooms,
    players: r.players,
    frameCpuMs: r.frameCpuMs,
    perPlayerUs: r.perPlayerUs,
    simulatePerPlayerUs: r.simulatePerPlayerUs,
    perCore,
  });
}
