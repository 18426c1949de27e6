/**
 * A fleet on one real redis-server: room-server processes (plain forks, each with its own
 * RedisDirectory), the HTTP backend and a matchmaker in this process, players as real UDP netcode
 * clients. Pairs are matched into rooms on both processes; one process is killed (SIGKILL): its
 * rooms are reported gone, its players' connections time out and their reconnect answers 410; a
 * new process takes new rooms; then Redis restarts empty and the fleet lists itself again while
 * its players play on. Skipped with the reason where redis-server is absent (required under CI).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ClientState } from '../../src/connection/client.js';
import {
  BackendClient,
  BackendError,
  createBackend,
  Matchmaker,
  PROCESS_GONE,
  type ProcessGone,
  RedisDirectory,
  type Seated,
  type ServedBackend,
  serveBackend,
} from '../../src/services/index.js';
import { RoomPlacer } from '../../src/services/room-placement.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { PROTOCOL_ID, Score } from '../support/room-scene.js';
import {
  connected,
  mirroredPlayers,
  type Player,
  Players,
  stateOf,
  until,
} from '../support/services-players.js';

const CHILD = fileURLToPath(new URL('../fixtures/room-server-child.js', import.meta.url));

interface Pair {
  backends: BackendClient[];
  seats: Seated[];
  ends: Player[];
  roomId: string;
  processId: string;
}

describe('a fleet of room-server processes sharing one Redis', { skip: redisSkip() }, () => {
  let redis: RedisServer;
  let directory: RedisDirectory;
  let served: ServedBackend;
  let matchmaker: Matchmaker;
  const players = new Players();
  const key = new Uint8Array(32).map((_, i) => (i * 13 + 5) & 0xff);
  const children = new Map<string, ChildProcess>();
  const gone: ProcessGone[] = [];
  let serial = 0;
  const pairs: Pair[] = [];

  /** A room-server process; resolves once it is listed in the directory. */
  async function spawnProcess(): Promise<string> {
    const processId = `proc-${++serial}`;
    const child = fork(CHILD, [], {
      env: {
        ...process.env,
        GW_ROOM_KEY: Buffer.from(key).toString('hex'),
        GW_REDIS_URL: redis.url,
        GHOSTWIRE_PROCESS_ID: processId,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.set(processId, child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${processId} not ready in 15 s`)), 15_000);
      child.on('message', (m: { kind?: string }) => {
        if (m.kind !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`${processId} exited at start: ${code ?? signal}`)),
      );
    });
    return processId;
  }

  /** Two players matched into one room, connected over UDP and mirroring each other. */
  async function pair(): Promise<Pair> {
    const backends = [0, 1].map(() => new BackendClient({ url: served.url }));
    await Promise.all(backends.map((b, i) => b.auth({ name: `p${pairs.length}-${i}` })));
    const seats = await Promise.all(
      backends.map((b) => b.matchmake({ pool: 'duo', transport: 'udp', pollMs: 50 })),
    );
    assert.equal(seats[0].roomId, seats[1].roomId, 'matched into one room');
    const ends = await Promise.all(seats.map((s) => players.connect(s.connectToken)));
    await until('both to mirror both players', 8000, () =>
      ends.every((e) => mirroredPlayers(e).length === 2),
    );
    const result = { backends, seats, ends, roomId: seats[0].roomId, processId: seats[0].processId };
    pairs.push(result);
    return result;
  }

  /** One player scores; the other sees it (the room plays on). */
  async function plays(p: Pair, add: number): Promise<void> {
    const target = mirroredPlayers(p.ends[0]).reduce((sum, g) => sum + g.score, 0) + add;
    p.ends[0].messages.send(1, Score, { add });
    await until('the partner to see the new score', 8000, () =>
      p.ends.every((e) => mirroredPlayers(e).reduce((sum, g) => sum + g.score, 0) === target),
    );
  }

  before(async () => {
    redis = await RedisServer.start();
    directory = await RedisDirectory.connect({ url: redis.url, commandTimeoutMs: 1000 });
    await directory.subscribe(PROCESS_GONE, (m) => gone.push(JSON.parse(m) as ProcessGone));
    // One placer for every match: it counts the rooms it placed since each process's heartbeat,
    // so consecutive matches spread over the processes.
    const placer = new RoomPlacer(directory, 5000);
    matchmaker = new Matchmaker({
      directory,
      rules: {
        minPlayers: 2,
        maxPlayers: 2,
        fillWaitMs: 60_000,
        skillWindow: { initial: 1e6, perSecond: 0, max: 1e6 },
      },
      onMatch: async () => ({
        roomId: await placer.createRoom({ name: 'test', options: {}, private: true, transport: 'udp' }),
      }),
    });
    matchmaker.start(100);
    served = await serveBackend(
      createBackend({
        directory,
        privateKey: key,
        protocolId: PROTOCOL_ID,
        matchmaker,
        rateLimit: false,
        timeoutSeconds: 1,
        tokenSeconds: 5,
        sweepIntervalMs: 250,
        onError: () => {}, // Redis restarting: some requests answer 500, the test retries
      }),
    );
  });

  after(async () => {
    players.close();
    await matchmaker?.stop();
    await served?.close();
    for (const child of children.values()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    await directory?.close();
    await redis?.dispose();
  });

  it('matches pairs into rooms on both processes', async () => {
    const [a, b] = [await spawnProcess(), await spawnProcess()];
    const first = await pair();
    const second = await pair();
    assert.deepEqual(
      new Set([first.processId, second.processId]),
      new Set([a, b]),
      'one room on each process',
    );
    for (const p of [first, second])
      assert.equal((await directory.getRoom(p.roomId))?.processId, p.processId);
  });

  it('a killed process: its rooms reported gone, its players time out and are told 410, the other plays on', async () => {
    const [victim, survivor] = pairs;
    children.get(victim.processId)?.kill('SIGKILL');
    await until('PROCESS_GONE for the killed process', 10_000, () =>
      gone.some((g) => g.processId === victim.processId),
    );
    const report = gone.find((g) => g.processId === victim.processId)!;
    assert.deepEqual([report.reason, report.roomIds], ['lapsed', [victim.roomId]]);
    assert.equal(await directory.getRoom(victim.roomId), null);
    assert.equal(await directory.getSeat(victim.seats[0].seatId), null, 'its seats released');
    await until('its players’ connections to time out', 8000, () =>
      victim.ends.every((e) => stateOf(e) === ClientState.ConnectionTimedOut),
    );
    for (const backend of victim.backends) {
      const refused = await backend.reconnect().catch((error: unknown) => error);
      assert.ok(refused instanceof BackendError, String(refused));
      assert.deepEqual([refused.status, refused.roomGone], [410, true], refused.message);
    }
    assert.ok(survivor.ends.every(connected));
    await plays(survivor, 4);
  });

  it('a new process takes new rooms', async () => {
    const fresh = await spawnProcess();
    const third = await pair();
    assert.equal(third.processId, fresh, 'the emptier, new process');
  });

  it('Redis restarted empty: processes register again, rooms and seats are listed again, players play on, new joins succeed', async () => {
    const live = pairs.slice(1);
    await redis.restart();
    await until('the live processes to be listed again', 10_000, async () => {
      const ids = (await directory.listProcesses().catch(() => [])).map((p) => p.processId).sort();
      return (
        ids.join() ===
        live
          .map((p) => p.processId)
          .sort()
          .join()
      );
    });
    for (const p of live)
      await until(`room ${p.roomId} listed again with its two seats`, 10_000, async () => {
        const room = await directory.getRoom(p.roomId).catch(() => null);
        return room?.seats === 2 && room.processId === p.processId;
      });
    for (const p of live) {
      assert.ok(p.ends.every(connected), 'its players stayed connected');
      await plays(p, 2);
    }
    const fourth = await pair();
    assert.ok(live.some((p) => p.processId === fourth.processId));
  });
});
