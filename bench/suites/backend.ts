/**
 * The HTTP backend's join path: 1,000 players (already authenticated) ask POST
 * /rooms/join-or-create at once, over loopback HTTP, with the embedded directory and four stand-in
 * room processes (100 seats a room, so about ten rooms get created on the way). Each answer is a
 * reserved seat and a sealed connect token. The players' fetch runs in the same process as the
 * backend, so the figures include the client side of HTTP on the same core. The same joins handed
 * to the hono app's fetch directly (no sockets) split the backend's own work from HTTP's.
 */
import { type Backend, createBackend, serveBackend } from '../../src/services/backend.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import {
  addressesOf,
  call,
  FakeRoomProcess,
  guest,
  PRIVATE_KEY,
  PROTOCOL_ID,
} from '../../test/support/backend-fixture.js';
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

async function round(
  players: number,
  overHttp: boolean,
): Promise<{ latencies: number[]; seconds: number; rooms: number }> {
  const directory = new EmbeddedDirectory();
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
      await FakeRoomProcess.start(directory, {
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
    await directory.close();
  }
}

export async function runBackend(ctx: SuiteContext): Promise<void> {
  const players = 1000;
  const rounds = ctx.options.quick ? 2 : 5;
  await round(200, true); // warm-up
  for (const overHttp of [true, false]) {
    const p50s: number[] = [];
    const p99s: number[] = [];
    const rates: number[] = [];
    let rooms = 0;
    for (let r = 0; r < rounds; r++) {
      const result = await round(players, overHttp);
      p50s.push(percentile(result.latencies, 50));
      p99s.push(percentile(result.latencies, 99));
      rates.push(players / result.seconds);
      rooms = result.rooms;
    }
    const how = overHttp ? 'over loopback HTTP' : "straight into the app's fetch (no sockets)";
    ctx.note(`${players} simultaneous POST /rooms/join-or-create ${how}, median of ${rounds} rounds:`);
    ctx.note(`  join latency p50 ${fmt(median(p50s))} ms, p99 ${fmt(median(p99s))} ms`);
    ctx.note(`  ${fmt(median(rates))} joins/s (seat + connect token each; ${rooms} rooms of 100 created)`);
    const key = overHttp ? 'http' : 'app';
    ctx.record(`${key} join p50 ms`, { median: median(p50s), samples: p50s });
    ctx.record(`${key} join p99 ms`, { median: median(p99s), samples: p99s });
    ctx.record(`${key} joins per second`, { median: median(rates), samples: rates });
  }
  ctx.note(
    '  Embedded directory, four stand-in room processes; the players share the core with the backend.',
  );
}
