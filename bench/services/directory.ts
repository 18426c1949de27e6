/**
 * Directory joins (issue 14): 1,000 simultaneous joins, each a reserveSeat (as the HTTP backend
 * does) then a consumeSeat (as the room server does when the client connects), all started at once
 * with Promise.all, into 10 rooms of 100 seats. Against the embedded directory and RedisDirectory
 * on a local redis-server (two connections: the backend's and the room server's). Per join: the
 * time from its start to its seat taken; p50 / p99 over the joins and joins per second over the
 * burst, medians of several bursts. Where redis-server is absent the Redis row is skipped with the
 * reason.
 */
import type { Directory } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { RedisDirectory } from '../../src/services/redis-directory.js';
import { findRedisServer, noRedisReason, RedisServer } from '../../test/support/redis.js';
import { check, consume, median, type SuiteContext } from '../harness.js';

const JOINS = 1000;
const ROOMS = 10;

interface Burst {
  p50: number;
  p99: number;
  joinsPerSecond: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** One burst of JOINS joins on fresh rooms; `backend` reserves, `server` consumes. */
async function burst(backend: Directory, server: Directory, round: number): Promise<Burst> {
  const processId = `bench-process-${round}`;
  await server.registerProcess(
    {
      processId,
      machine: 'bench',
      addresses: { udp: '127.0.0.1:40000' },
      state: 'ready',
      maxRooms: ROOMS,
      load: { rooms: 0, clients: 0, tickMs: 0, tickMaxMs: 0 },
      heartbeatAt: 0,
    },
    60_000,
  );
  for (let r = 0; r < ROOMS; r++) {
    const listing = {
      roomId: `bench-${round}-${r}`,
      name: 'bench',
      processId,
      locked: false,
      private: false,
    };
    check(
      await server.createRoom({ ...listing, maxClients: JOINS / ROOMS, metadata: {} }),
      'createRoom refused',
    );
  }
  const latencies = new Array<number>(JOINS);
  const join = async (i: number): Promise<boolean> => {
    const started = performance.now();
    const roomId = `bench-${round}-${i % ROOMS}`;
    const seatId = `seat-${round}-${i}`;
    const reserved = await backend.reserveSeat(roomId, {
      seatId,
      userId: `u${i}`,
      clientId: `${i}`,
      ttlMs: 30_000,
    });
    if (!reserved.ok) return false;
    const taken = await server.consumeSeat(seatId, roomId);
    latencies[i] = performance.now() - started;
    return taken.ok;
  };
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: JOINS }, (_, i) => join(i)));
  const seconds = (performance.now() - started) / 1000;
  const ok = results.filter(Boolean).length;
  check(ok === JOINS, `${ok} of ${JOINS} joins succeeded (each room had room for all of its joins)`);
  consume(ok);
  await server.removeProcess(processId);
  const sorted = latencies.sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), joinsPerSecond: JOINS / seconds };
}

async function measureDirectory(backend: Directory, server: Directory, rounds: number): Promise<Burst> {
  await burst(backend, server, -1); // warm-up: scripts loaded, code optimised
  const bursts: Burst[] = [];
  for (let round = 0; round < rounds; round++) bursts.push(await burst(backend, server, round));
  return {
    p50: median(bursts.map((b) => b.p50)),
    p99: median(bursts.map((b) => b.p99)),
    joinsPerSecond: median(bursts.map((b) => b.joinsPerSecond)),
  };
}

export async function runDirectory(ctx: SuiteContext): Promise<void> {
  const rounds = ctx.options.quick ? 3 : 9;
  ctx.note(
    `\n== directory: ${JOINS.toLocaleString('en-US')} simultaneous joins (reserveSeat + consumeSeat) into ${ROOMS} rooms, median of ${rounds} bursts ==`,
  );
  const rows: string[][] = [];
  const row = (name: string, b: Burst) => {
    rows.push([
      name,
      b.p50.toFixed(2),
      b.p99.toFixed(2),
      Math.round(b.joinsPerSecond).toLocaleString('en-US'),
    ]);
    ctx.record(`directory.${name}`, b);
  };

  const embedded = new EmbeddedDirectory();
  row('embedded', await measureDirectory(embedded, embedded, rounds));
  await embedded.close();

  if (findRedisServer() === null) {
    ctx.note(`redis: skipped (${noRedisReason()})`);
  } else {
    const server = await RedisServer.start();
    try {
      const options = { url: server.url, keyPrefix: 'bench:' };
      const [backend, roomServer] = await Promise.all([
        RedisDirectory.connect(options),
        RedisDirectory.connect(options),
      ]);
      try {
        row('redis (local redis-server, 2 connections)', await measureDirectory(backend, roomServer, rounds));
      } finally {
        await Promise.all([backend.close(), roomServer.close()]);
      }
    } finally {
      await server.dispose();
    }
  }

  const headers = ['directory', 'join p50 ms', 'join p99 ms', 'joins/s'];
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  ctx.note([line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));
  ctx.note(
    'A join is timed from its reserveSeat call to its consumeSeat answer while all 1,000 are in flight, so p50 is mostly queueing behind the others.',
  );
}
