/**
 * A room server process hosting the arena room type (demo/arena-room.ts) on UDP, for a
 * ProcessManager: it reports to the manager (reportToManager) and reaches the fleet's directory
 * over IPC (the manager's embedded one) or, with `--redis URL`, a RedisDirectory of its own. The
 * connect-token key comes hex-encoded in GW_ROOM_KEY (the backend seals tokens with it).
 *
 *   node dist/demo/room-process.js [--redis URL] [--address 127.0.0.1:0] [--slots 1024]
 *     [--max-rooms 64] [--tick-rate 20] [--room-size 32] [--heartbeat-ms 1000] [--stats-channel NAME]
 */
import { performance } from 'node:perf_hooks';
import { commandLine, flagValue, positiveIntegerFlag, rangeFlag } from '../scripts/cli.js';
import type { ServerCounters } from '../src/connection/server-options.js';
import type { ProcessLoad, RoomServerStats } from '../src/services/index.js';
import {
  type Directory,
  IpcDirectory,
  RedisDirectory,
  RoomServer,
  reportToManager,
} from '../src/services/index.js';
import { toAddress } from '../src/transport/address.js';
import type { TransportStats } from '../src/transport/transport.js';
import { UdpTransport } from '../src/transport/udp-transport.js';
import {
  ARENA_MAX_CLIENTS,
  ARENA_PROTOCOL_ID,
  ARENA_ROOM,
  ArenaRoom,
  arenaChannels,
  arenaFactory,
  arenaTotals,
} from './arena-room.js';

/** What `--stats-channel` publishes each second. */
export interface RoomStats extends RoomServerStats {
  processId: string;
  /** onError reports (hooks that threw, directory failures). */
  errors: number;
  /** Inputs the arenas' avatars took. */
  inputsTaken: number;
  /** The netcode server's counters (requests accepted and refused by reason). */
  netcode: ServerCounters;
  /** The UDP socket's counters (dropped: its receive queue was full; undeliverable: sends refused). */
  udp: TransportStats;
  /** When `udp` was read: ms since the epoch (the load tester aligns every process's counts by it). */
  countedAt: number;
  load: ProcessLoad;
  /** The process's event loop since it started (performance.eventLoopUtilization), ms. */
  eventLoop: { idleMs: number; activeMs: number };
}

const args = commandLine({
  name: 'node dist/demo/room-process.js',
  description:
    'A room server process hosting arena rooms on UDP, under a ProcessManager (GW_ROOM_KEY: the token key, hex).',
  flags: {
    redis: { arg: 'URL', help: "a RedisDirectory at URL (default: the manager's directory over IPC)" },
    address: { arg: 'HOST:PORT', help: 'the UDP address to serve (default 127.0.0.1:0)' },
    slots: { arg: 'N', help: 'client connections at most (default 1024)' },
    'max-rooms': { arg: 'N', help: 'rooms at most (default 64)' },
    'tick-rate': { arg: 'HZ', help: 'room ticks per second (default 20)' },
    'room-size': { arg: 'N', help: `seats per room, 1 to ${ARENA_MAX_CLIENTS} (default 32)` },
    'heartbeat-ms': { arg: 'MS', help: 'directory heartbeat period (default 1000)' },
    'stats-channel': { arg: 'NAME', help: "publish the process's counters (RoomStats) there every second" },
    'starve-ms': {
      arg: 'MS',
      help: "busy-wait this long every 50 ms (default 0): a starved server, the load tester's own test",
    },
  },
});
const key = process.env.GW_ROOM_KEY ?? '';
if (!/^[0-9a-f]{64}$/.test(key)) {
  console.error('room-process: GW_ROOM_KEY must be 32 bytes in hex');
  process.exit(2);
}
const settings = flagValue(() => ({
  slots: positiveIntegerFlag('--slots', args.slots, 1024),
  maxRooms: positiveIntegerFlag('--max-rooms', args['max-rooms'], 64),
  tickRate: rangeFlag('--tick-rate', args['tick-rate'], 20, 1, 120),
  roomSize: Math.floor(rangeFlag('--room-size', args['room-size'], 32, 1, ARENA_MAX_CLIENTS)),
  heartbeatMs: rangeFlag('--heartbeat-ms', args['heartbeat-ms'], 1000, 50, 60_000),
  address: toAddress(args.address ?? '127.0.0.1:0'),
  starveMs: rangeFlag('--starve-ms', args['starve-ms'], 0, 0, 1000),
}));

const directory: Directory & { close?(): Promise<void> | void } =
  args.redis === undefined ? new IpcDirectory() : await RedisDirectory.connect({ url: args.redis });
const socket = await UdpTransport.open({
  address: settings.address,
  maxQueuedDatagrams: 16_384,
  receiveBufferSize: 8 << 20,
  sendBufferSize: 8 << 20,
});
const server = new RoomServer({
  directory,
  protocolId: ARENA_PROTOCOL_ID,
  privateKey: Uint8Array.from(Buffer.from(key, 'hex')),
  transports: [{ kind: 'udp', transport: socket }],
  factory: arenaFactory,
  channels: arenaChannels,
  maxClients: settings.slots,
  maxRooms: settings.maxRooms,
  heartbeatMs: settings.heartbeatMs,
  onError: (error, where) => {
    errors++;
    console.error(`room-process ${where}:`, error);
  },
});
let errors = 0;
server.define(ARENA_ROOM, ArenaRoom, {
  maxClients: settings.roomSize,
  tickRate: settings.tickRate,
  reconnectWindowMs: 0,
  emptyDisposeMs: 5000,
});
await server.start();
const statsChannel = args['stats-channel'];
const statsTimer =
  statsChannel === undefined
    ? null
    : setInterval(() => {
        const stats: RoomStats = {
          processId: server.processId,
          ...server.stats(),
          errors,
          inputsTaken: arenaTotals.inputsTaken,
          netcode: { ...server.messages.server.stats() },
          udp: { ...socket.stats() },
          countedAt: performance.timeOrigin + performance.now(),
          load: server.load(),
          eventLoop: eventLoopSoFar(),
        };
        directory.publish(statsChannel, JSON.stringify(stats)).catch(() => {});
      }, 1000);
const starveTimer =
  settings.starveMs === 0
    ? null
    : setInterval(() => {
        const until = performance.now() + settings.starveMs;
        while (performance.now() < until) {}
      }, 50);
const stop = async () => {
  if (statsTimer !== null) clearInterval(statsTimer);
  if (starveTimer !== null) clearInterval(starveTimer);
  await server.stop();
  socket.close();
  await directory.close?.();
};
const managed = reportToManager({
  load: () => server.load(),
  state: () => server.state(),
  drain: () => server.drain(10_000),
  stop,
});
if (managed === null) {
  // Alone (no manager): serve until Ctrl-C.
  console.log(`room-process ${server.processId}: arena rooms on udp ${socket.localAddress}`);
  process.once('SIGINT', () => void stop().then(() => process.exit(0)));
}

function eventLoopSoFar(): RoomStats['eventLoop'] {
  const { idle, active } = performance.eventLoopUtilization();
  return { idleMs: idle, activeMs: active };
}
