/**
 * The Colyseus capacity run's server process (forked by colyseus.ts, one process so its CPU reads
 * from /proc/PID/stat): a Colyseus 0.18 Server with the WebSocket transport, the arena room
 * registered as 'arena', its HTTP matchmaking on the same port. Config: a ServerConfig as JSON in
 * argv[2]. Sends 'ready', then a progress line each second; answers 'mark' and 'report'.
 */
import { performance } from 'node:perf_hooks';
import { Server } from '@colyseus/core';
import { Encoder } from '@colyseus/schema';
import { WebSocketTransport } from '@colyseus/ws-transport';
import type { Command, ServerConfig, ServerProgress, ServerReport } from './colyseus-protocol.js';
import { arenaConfig, arenaStats, ColyseusArenaRoom } from './colyseus-room.js';
import { ROOM_NAME } from './colyseus-state.js';

const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
// The encoder's buffer is a static read when each room's Encoder is made: set before any room.
if (config.encoderBufferBytes > 0) Encoder.BUFFER_SIZE = config.encoderBufferBytes;
arenaConfig.seed = config.seed;
arenaConfig.verify = config.verify;

const server = new Server({ transport: new WebSocketTransport(), greet: false, gracefullyShutdown: false });
server.define(ROOM_NAME, ColyseusArenaRoom);
await server.listen(config.port, '127.0.0.1');

let mark = {
  stats: { ...arenaStats },
  elu: performance.eventLoopUtilization(),
  cpu: process.cpuUsage(),
  at: 0,
};
mark.at = performance.now();

process.on('message', (message: Command) => {
  if (message.type === 'mark') {
    mark = {
      stats: { ...arenaStats },
      elu: performance.eventLoopUtilization(),
      cpu: process.cpuUsage(),
      at: 0,
    };
    mark.at = performance.now();
  } else if (message.type === 'report') {
    const s = arenaStats;
    const m = mark.stats;
    const cpu = process.cpuUsage(mark.cpu);
    const report: ServerReport = {
      type: 'report',
      rooms: s.rooms,
      players: s.players,
      ticks: s.ticks - m.ticks,
      ticksOnTime: s.ticksOnTime - m.ticksOnTime,
      inputsTaken: s.inputsTaken - m.inputsTaken,
      inputsRejected: s.inputsRejected - m.inputsRejected,
      zaps: s.zaps - m.zaps,
      hits: s.hits - m.hits,
      checksCompared: s.checksCompared - m.checksCompared,
      checksMismatched: s.checksMismatched - m.checksMismatched,
      checksUnmatched: s.checksUnmatched - m.checksUnmatched,
      eventLoopUtilization: performance.eventLoopUtilization(mark.elu).utilization,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      seconds: (performance.now() - mark.at) / 1000,
    };
    process.send?.(report);
  } else if (message.type === 'stop') {
    void server.gracefullyShutdown(false).finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));

setInterval(() => {
  const progress: ServerProgress = {
    type: 'progress',
    rooms: arenaStats.rooms,
    players: arenaStats.players,
    ticks: arenaStats.ticks,
  };
  process.send?.(progress);
}, 1000).unref();
process.send?.({ type: 'ready' });
