/**
 * The HTTP backend's join path: 1,000 players (already authenticated) ask POST
 * /rooms/join-or-create at once, over loopback HTTP, with four stand-in room processes (100 seats a
 * room, so about ten rooms get created on the way). Each answer is a reserved seat and a sealed
 * connect token. The players' fetch runs in the same process as the backend, so the figures include
 * the client side of HTTP on the same core. The same joins handed to the hono app's fetch directly
 * (no sockets) split the backend's own work from HTTP's. Once on the embedded directory, once on a
 * RedisDirectory over a local redis-server (the backend and the room processes on a connection
 * each); where redis-server is absent the Redis rows are skipped with the reason.
 */
import { type Backend, createBackend, serveBackend } from '../../src/services/backend.js';
import type { Directory } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { RedisDirectory } from '../../src/services/redis-directory.js';
import {
  addressesOf,
  call,
  FakeRoomProcess,
  guest,
  PRIVATE_KEY,
  PROTOCOL_ID,
} from '../../test/support/backend-fixture.js';
import { findRedisServer, noRedisReason, RedisServer } from '../../test/support/redis.js';
import { check, fmt, median, type SuiteContext } from '../harness.js';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

type Join = (session: string) => Promise<number>;

/** One player's join over HTTP, or straight into the app; its status. */
function joiner(url: string, app: Backend['app'] | null): Join {
  const body = JSON.stringify({ name: 'arena', transport: 'udp' });
  if (app === null)
    return async (session) =>
      (await call(url, 'POST', '/rooms/join-or-create', JSON.parse(body), session)).status;
  return async (session) => {
    const request = new Request('http://backend/rooms/join-or-create', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` },
      body,
    });
    const response = await app.fetch(request);
    await response.arrayBuffer();
    return response.status;
  };
}

/** A fresh, empty directory for one round: the backend's handle and the room processes'. */
interface Directories {
  backend: Directory;
  rooms: Directory;
  close(): Promise<void>;
}

type OpenDirectories = () => Promise<Directories>;

function embedded(): OpenDirectories {
  return async () => {
    const directory = new EmbeddedDirectory();
    return { backend: directory, rooms: directory, close: () => directory.close() };
  };
}

/** Each round under its own key prefix on `server`, so it starts empty. */
function redis(server: RedisServer): OpenDirectories {
  let rounds = 0;
  return async () => {
    const options = { url: server.url, keyPrefix: `bench${rounds++}:` };
    const [backend, rooms] = await Promise.all([
      RedisDirectory.connect(options),
      RedisDirectory.connect(options),
    ]);
    return {
      backend,
      rooms,
      close: async () => {
        await Promise.all([backend.close(), rooms.close()]);
      },
    };
  };
}

async function round(
  players: number,
  overHttp: boolean,
  open: OpenDirectories,
): Promise<{ latencies: number[]; seconds: number; rooms: number }> {
  const directories = await open();
  const directory = directories.backend;
  const backend = createBackend({
    directory,
    privateKey: PRIVATE_KEY,
    protocolId: PROTOCOL_ID,
    rateLimit: false,
  });
  const served = await serveBackend(backend);
  const join = joiner(served.url, overHttp ? null : backend.app);
  try {
    for (let i = 0; i < 4; i++)
      await FakeRoomProcess.start(directories.rooms, {
        processId: `p${i}`,
        addresses: addressesOf(i),
        maxClients: 100,
        maxRooms: 100,
      });
    const sessions = await Promise.all(
      Array.from({ length: players }, (_, i) => guest(served.url, `bot${i}`).then((g) => g.session)),
    );
    const start = performance.now();
    const latencies = await Promise.all(
      sessions.map(async (session) => {
        const t0 = performance.now();
        const status = await join(session);
        check(status === 200, `backend: join answered ${status}`);
        return performance.now() - t0;
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const rooms = (await directory.findRooms({ name: 'arena' })).length;
    return { latencies: latencies.sort((a, b) => a - b), seconds, rooms };
  } finally {
    await served.close();
    await directories.close();
  }
}

async function measure(
  ctx: SuiteContext,
  directoryName: string,
  open: OpenDirectories,
  directoryNote: string,
): Promise<void> {
  const players = 1000;
  const rounds = ctx.options.quick ? 2 : 5;
  await round(200, true, open); // warm-up
  for (const overHttp of [true, false]) {
    const p50s: number[] = [];
    const p99s: number[] = [];
    const rates: number[] = [];
    let rooms = 0;
    for (let r = 0; r < rounds; r++) {
      const result = await round(players, overHttp, open);
      p50s.push(percentile(result.latencies, 50));
      p99s.push(percentile(result.latencies, 99));
      rates.push(players / result.seconds);
      rooms = result.rooms;
    }
    const how = overHttp ? 'over loopback HTTP' : "straight into the app's fetch (no sockets)";
    ctx.note(
      `${directoryName}: ${players} simultaneous POST /rooms/join-or-create ${how}, median of ${rounds} rounds:`,
    );
    ctx.note(`  join latency p50 ${fmt(median(p50s))} ms, p99 ${fmt(median(p99s))} ms`);
    ctx.note(`  ${fmt(median(rates))} joins/s (seat + connect token each; ${rooms} rooms of 100 created)`);
    const key = `${directoryName} ${overHttp ? 'http' : 'app'}`;
    ctx.record(`${key} join p50 ms`, { median: median(p50s), samples: p50s });
    ctx.record(`${key} join p99 ms`, { median: median(p99s), samples: p99s });
    ctx.record(`${key} joins per second`, { median: median(rates), samples: rates });
  }
  ctx.note(`  ${directoryNote}; four stand-in room processes; the players share the core with the backend.`);
}

export async function runBackend(ctx: SuiteContext): Promise<void> {
  await measure(ctx, 'embedded', embedded(), 'Embedded directory');
  if (findRedisServer() === null) {
    ctx.note(`redis: skipped: ${noRedisReason()}`);
    return;
  }
  const server = await RedisServer.start();
  try {
    await measure(
      ctx,
      'redis',
      redis(server),
      'RedisDirectory on a local redis-server (backend and room processes on a connection each)',
    );
  } finally {
    await server.dispose();
  }
}
