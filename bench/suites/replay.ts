/**
 * Recording (issue 27, item 4): how big a recording is per minute and what the recorder costs the
 * server per tick, for two worlds:
 *
 *   W4     the W4 arena's scene (bench/w4/scene.ts): 10,000 entities all moving every tick, 20 Hz
 *   demo   the demo game (demo/game.ts, demo/rules.ts): 60 wandering orbs and 8 bot avatars
 *          walking at random, 30 Hz, through the game layer's GameSimulation
 *
 * Each world ticks as its server would, a Recorder (ReplicationServer.record) captures each tick,
 * and the recording of the whole run is saved as a .gwr file. The run is one minute of game time
 * (--quick: 20 s, scaled to a minute). Printed: the file's bytes per minute, its share in
 * keyframes, the bound (every entity sending its widest delta every tick, plus the keyframes'
 * widest creates), and the capture's CPU per tick (median and 95th percentile over the ticks).
 * The saved file is read back (ReplayFile) and its last tick's ghosts checked against the world.
 * A 5 s kill-cam cut to one entity's view (Recorder.save with viewOf, what GameServer.killcam
 * sends) is timed in both worlds (W4 with its radius of 150; the demo given a radius of 16 m, which
 * it does not have live): its CPU per cut and its size beside the whole world's 5 s; and the same cut
 * as GameServer.killcam makes it, in slices within its default 2 ms a tick (KillcamQueue): its CPU
 * in all, each tick's cut work (median, p95, worst: a slice is never split, so one slice over the
 * budget makes its tick so) and the ticks it took; its clip is checked byte-equal to the one-shot's.
 */
import { ARENA, arena, SPEED } from '../../demo/game.js';
import { demoRules } from '../../demo/rules.js';
import { ScratchList } from '../../src/channels/scratch-list.js';
import { wiringOf } from '../../src/game/define-game.js';
import { GameSimulation } from '../../src/game/game-simulation.js';
import { KillcamQueue } from '../../src/game/killcam-queue.js';
import { prng } from '../../src/random/prng.js';
import { ClientMirror } from '../../src/replication/client-mirror.js';
import { maxDeltaBits } from '../../src/replication/entity-delta.js';
import type { EntityLayout } from '../../src/replication/entity-layout.js';
import type { AnyEventType } from '../../src/replication/event.js';
import { GENERATION_BITS, idBits, TICK_BITS } from '../../src/replication/ghost-wire.js';
import type { Recorder } from '../../src/replication/recording/recorder.js';
import { ReplayFile } from '../../src/replication/recording/replay-file.js';
import { ReplicationServer } from '../../src/replication/replication-server.js';
import { type Entity, ServerWorld } from '../../src/replication/server-world.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { check, collectAllGarbage, type SuiteContext } from '../harness.js';
import { W4_ARENA, W4Unit } from '../w4/arena.js';
import { W4_ENTITIES, W4_MAP, W4Scene } from '../w4/scene.js';

/** What one recorded run measured. */
export interface RecordingFigures {
  world: string;
  entities: number;
  tickRate: number;
  ticks: number;
  /** The saved file's bytes, scaled to one minute of game time. */
  bytesPerMinute: number;
  /** Bytes per minute in the chunks' first frames (the keyframes). */
  keyframeBytesPerMinute: number;
  /** The bound per minute: every entity's widest delta every tick, plus every keyframe's widest creates. */
  boundBytesPerMinute: number;
  /** Recorder.capture() per tick, microseconds. */
  captureMedianUs: number;
  captureP95Us: number;
  /** world.tick() per tick (the server's own work, for scale), microseconds. */
  tickMedianUs: number;
  /** A 5 s kill-cam from one entity's view (save with viewOf), with relevancy only: its CPU and bytes. */
  killcam?: KillcamFigures;
}

/** What a 5 s kill-cam cut to one entity's view costs (Recorder.save({ seconds: 5, viewOf })). */
export interface KillcamFigures {
  /** Milliseconds per cut: median and most over the runs. */
  medianMs: number;
  maxMs: number;
  runs: number;
  /** The clip's bytes, the whole world's 5 s (save({ seconds: 5 })) and the entities in the view at its end. */
  bytes: number;
  wholeBytes: number;
  inView: number;
  /** The relevancy radius of the view. */
  radius: number;
  /**
   * The same cut as GameServer.killcam makes it (KillcamQueue, SLICE_BUDGET_MS a tick): its
   * CPU in all, the most one tick spent, the ticks it took and its slices.
   */
  slicedTotalMs: number;
  slicedWorstTickMs: number;
  /** The median and 95th percentile of the ticks' cut work. */
  slicedMedianTickMs: number;
  slicedP95TickMs: number;
  slicedTicks: number;
  slices: number;
}

/** GameServer's default killcamBudgetMs. */
const SLICE_BUDGET_MS = 2;

/** One kill-cam through a KillcamQueue, tick after tick, until sent; asserts the clip is the one-shot's. */
function measureSliced(
  recorder: Recorder,
  follow: number,
  expected: Uint8Array,
): Pick<
  KillcamFigures,
  'slicedTotalMs' | 'slicedWorstTickMs' | 'slicedMedianTickMs' | 'slicedP95TickMs' | 'slicedTicks' | 'slices'
> {
  let clip: Uint8Array | null = null;
  let total = 0;
  const queue = new KillcamQueue({
    budgetMs: SLICE_BUDGET_MS,
    maxPending: 8,
    maxBlockBytes: 1 << 30,
    now: () => performance.now(),
    send: (_viewer, block) => {
      clip = block;
    },
  });
  void queue.add(0, recorder.cut({ seconds: KILLCAM_SECONDS, viewOf: follow }), (c) => c, 0);
  let tick = 0;
  const tickMs: number[] = [];
  while (queue.stats().killcamsPending > 0) {
    const t0 = performance.now();
    queue.run(tick++);
    tickMs.push(performance.now() - t0);
    total += tickMs[tickMs.length - 1];
  }
  const sent = clip as Uint8Array | null;
  check(
    sent !== null && sent.length === expected.length && sent.every((b, i) => b === expected[i]),
    'replay: the sliced kill-cam differs from the one-shot cut',
  );
  const stats = queue.stats();
  return {
    slicedTotalMs: total,
    slicedWorstTickMs: stats.killcamWorstTickMs,
    slicedMedianTickMs: percentile(tickMs, 0.5),
    slicedP95TickMs: percentile(tickMs, 0.95),
    slicedTicks: stats.killcamTicks,
    slices: stats.killcamSlices,
  };
}

const KILLCAM_SECONDS = 5;

/** Times `runs` cuts of the last 5 s from the view of entity `follow` (after one warm-up). */
function measureKillcam(
  recorder: Recorder,
  world: ServerWorld,
  follow: number,
  runs: number,
  radius: number,
  events: readonly AnyEventType[] = [],
): KillcamFigures {
  const times: number[] = [];
  let clip = recorder.save({ seconds: KILLCAM_SECONDS, viewOf: follow });
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    clip = recorder.save({ seconds: KILLCAM_SECONDS, viewOf: follow });
    times.push(performance.now() - t0);
  }
  const mirror = playLastChunk(clip, world, events);
  check(mirror.ghost(follow) !== null, 'replay: the kill-cam lost the followed entity');
  const sliced = measureSliced(recorder, follow, clip);
  return {
    ...sliced,
    medianMs: percentile(times, 0.5),
    maxMs: Math.max(...times),
    runs,
    bytes: clip.length,
    wholeBytes: recorder.save({ seconds: KILLCAM_SECONDS }).length,
    inView: mirror.size,
    radius,
  };
}

const KEYFRAME_SECONDS = 5;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** The widest a minute of recording can be for these types and capacity (see the suite's comment). */
function boundPerMinute(
  layouts: readonly EntityLayout<unknown>[],
  capacity: number,
  tickRate: number,
): number {
  const widest = Math.max(...layouts.map((l) => maxDeltaBits(l)));
  const typeBits = Math.max(0, Math.ceil(Math.log2(layouts.length)));
  const ticks = 60 * tickRate;
  const keyframes = Math.ceil(60 / KEYFRAME_SECONDS);
  // A frame: its varint head (tick delta, length: at most 1 + 5 bytes) and the section's head
  // (tick, configuration bit, list ends, count, events bit) and per entity an update.
  const frameBits = 48 + TICK_BITS + 1 + 2 + 32 + 1 + capacity * (idBits(capacity) + 1 + widest);
  const createBits = capacity * (1 + idBits(capacity) + typeBits + GENERATION_BITS + widest);
  return (ticks * frameBits + keyframes * createBits) / 8;
}

/** Byte counts of a .gwr file's first frames (its keyframes), from the format's chunk heads. */
function keyframeBytes(file: Uint8Array): number {
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const headerBytes = v.getUint16(6, true);
  const footer = file.length - 12;
  const indexAt = v.getUint32(footer, true);
  let at = headerBytes;
  let total = 0;
  while (at < indexAt) {
    const body = v.getUint32(at + 4, true);
    let p = at + 22;
    // First frame: tick delta varint (0), length varint, section.
    while (file[p] & 0x80) p++;
    p++;
    let length = 0;
    let shift = 0;
    for (;;) {
      const b = file[p++];
      length += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) break;
    }
    total += length;
    at += 22 + body;
  }
  return total;
}

/** Reads `file` back (every section through a mirror's refusals) and returns a mirror at its last tick. */
function playLastChunk(
  file: Uint8Array,
  world: ServerWorld,
  events: readonly AnyEventType[] = [],
): ClientMirror {
  const mirrorOptions = {
    types: world.types,
    capacity: world.capacity,
    historyLength: world.historyLength,
    events,
  };
  const replay = ReplayFile.open(file, mirrorOptions);
  const mirror = new ClientMirror(mirrorOptions);
  const chunk = replay.chunks[replay.chunks.length - 1];
  const rs = new ReadStream(0);
  const staged = new ScratchList<unknown>();
  for (let f = 0; f < chunk.ticks.length; f++) {
    const refused = replay.applyFrame(mirror, chunk, f, rs, staged);
    check(refused === null, `replay: a frame of the saved file was refused: ${refused}`);
  }
  check(
    mirror.newestTick === world.serverTick,
    `replay: the file ends at ${mirror.newestTick}, not ${world.serverTick}`,
  );
  return mirror;
}

function recordW4(seconds: number): RecordingFigures {
  const tickRate = 20;
  const scene = new W4Scene(W4_ENTITIES, W4_ARENA.seed);
  const world = new ServerWorld({
    types: [W4Unit],
    capacity: W4_ENTITIES,
    historyLength: W4_ARENA.historyLength,
  });
  const replication = new ReplicationServer({
    world,
    maxClients: 1,
    interest: { grid: { min: [0, 0], max: [W4_MAP, W4_MAP], cellSize: W4_ARENA.cell }, radius: 150 },
  });
  const value = { x: 0, y: 0, heading: 0, kind: 0 };
  const read = (id: number) => {
    value.x = scene.x[id];
    value.y = scene.y[id];
    value.heading = scene.heading[id];
    value.kind = scene.kind[id];
    return value;
  };
  const entities: Entity<typeof value>[] = [];
  for (let id = 0; id < W4_ENTITIES; id++) entities.push(world.create(W4Unit, read(id)));
  world.tick();
  const recorder = replication.record({
    tickRate,
    keyframeSeconds: KEYFRAME_SECONDS,
    keepSeconds: seconds + 10,
  });
  const ticks = seconds * tickRate;
  const capture: number[] = [];
  const tickTimes: number[] = [];
  for (let i = 0; i < ticks; i++) {
    scene.step();
    for (let id = 0; id < W4_ENTITIES; id++) world.set(entities[id], read(id));
    const t0 = performance.now();
    world.tick();
    const t1 = performance.now();
    recorder.capture();
    capture.push((performance.now() - t1) * 1000);
    tickTimes.push((t1 - t0) * 1000);
  }
  const file = recorder.save();
  const mirror = playLastChunk(file, world);
  check(mirror.size === W4_ENTITIES, `replay: W4 played back ${mirror.size} ghosts`);
  collectAllGarbage();
  const killcam = measureKillcam(recorder, world, entities[0].id, 5, 150);
  for (let id = 0; id < W4_ENTITIES; id += 97) {
    const shown = mirror.ghost(id)?.value as typeof value;
    const server = world.get(entities[id]);
    check(
      shown.x === server.x && shown.y === server.y && shown.heading === server.heading,
      `replay: W4 entity ${id} played back as ${JSON.stringify(shown)}, not ${JSON.stringify(server)}`,
    );
  }
  const scale = 60 / seconds;
  return {
    world: 'W4 (bench/w4 scene)',
    entities: W4_ENTITIES,
    tickRate,
    ticks,
    bytesPerMinute: file.length * scale,
    keyframeBytesPerMinute: keyframeBytes(file) * scale,
    boundBytesPerMinute: boundPerMinute([W4Unit.layout as EntityLayout<unknown>], W4_ENTITIES, tickRate),
    captureMedianUs: percentile(capture, 0.5),
    captureP95Us: percentile(capture, 0.95),
    tickMedianUs: percentile(tickTimes, 0.5),
    killcam,
  };
}

const BOTS = 8;
/** The relevancy radius the demo run is given, in metres of its 64 m arena. */
const DEMO_RADIUS = 16;

function recordDemo(seconds: number): RecordingFigures {
  const tickRate = arena.tickRate;
  const simulation = new GameSimulation(
    demoRules(0xdec0, { zaps: 0, hits: 0 }, () => {}),
    {
      maxPlayers: 16,
      // Relevancy as a game server's `relevancy` option (the demo itself has none): the recorder
      // sees everything whatever it is; the kill-cam below is cut to a bot's view by it.
      replicate: (options) =>
        new ReplicationServer({
          ...options,
          maxClients: 16,
          interest: {
            grid: { min: [0, 0], max: [ARENA, ARENA], cellSize: DEMO_RADIUS },
            radius: DEMO_RADIUS,
          },
        }),
    },
  );
  const players = Array.from({ length: BOTS }, (_, i) => simulation.join(i));
  const world = simulation.world;
  const random = prng(0xb075);
  const heading = players.map(() => ({ dx: 0, dy: 0 }));
  simulation.simulate();
  world.tick();
  const recorder = simulation.replication.record({
    tickRate,
    keyframeSeconds: KEYFRAME_SECONDS,
    keepSeconds: seconds + 10,
  });
  const ticks = seconds * tickRate;
  const capture: number[] = [];
  const tickTimes: number[] = [];
  const clamp = (v: number) => Math.min(ARENA, Math.max(0, v));
  for (let i = 0; i < ticks; i++) {
    // Bots walk as the demo's do: a direction held for a while, then another.
    players.forEach((player, b) => {
      if (random() < 0.05)
        heading[b] = { dx: Math.floor(random() * 3) - 1, dy: Math.floor(random() * 3) - 1 };
      const a = player.state as { x: number; y: number; score: number };
      player.state = { ...a, x: clamp(a.x + heading[b].dx * SPEED), y: clamp(a.y + heading[b].dy * SPEED) };
    });
    simulation.simulate();
    const t0 = performance.now();
    world.tick();
    const t1 = performance.now();
    recorder.capture();
    capture.push((performance.now() - t1) * 1000);
    tickTimes.push((t1 - t0) * 1000);
  }
  const file = recorder.save();
  const events = wiringOf('bench', arena).events;
  const mirror = playLastChunk(file, world, events);
  check(mirror.size === simulation.entities.length, `replay: the demo played back ${mirror.size} ghosts`);
  const killcam = measureKillcam(recorder, world, players[0].entity!.id, 20, DEMO_RADIUS, events);
  const scale = 60 / seconds;
  return {
    world: `demo game (60 orbs, ${BOTS} bots)`,
    entities: simulation.entities.length,
    tickRate,
    ticks,
    bytesPerMinute: file.length * scale,
    keyframeBytesPerMinute: keyframeBytes(file) * scale,
    // The demo's live entities (orbs and avatars), not its capacity of 256.
    boundBytesPerMinute: boundPerMinute(
      world.types.map((t) => t.layout as EntityLayout<unknown>),
      60 + BOTS,
      tickRate,
    ),
    captureMedianUs: percentile(capture, 0.5),
    captureP95Us: percentile(capture, 0.95),
    tickMedianUs: percentile(tickTimes, 0.5),
    killcam,
  };
}

export function runReplay(ctx: SuiteContext): void {
  const seconds = ctx.options.quick ? 20 : 60;
  const runs = [recordW4(seconds)];
  collectAllGarbage();
  runs.push(recordDemo(seconds));
  for (const r of runs) {
    check(
      r.bytesPerMinute > 0 && r.bytesPerMinute <= r.boundBytesPerMinute,
      `replay: ${r.world} over its bound`,
    );
  }
  const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes < 1e6 ? 3 : 1);
  ctx.note(
    `${seconds} s of game time per world (scaled to a minute), keyframes every ${KEYFRAME_SECONDS} s:`,
  );
  for (const r of runs)
    ctx.note(
      `  ${r.world}: ${r.entities} entities at ${r.tickRate} Hz: ${mb(r.bytesPerMinute)} MB/min ` +
        `(keyframes ${mb(r.keyframeBytesPerMinute)}; bound ${mb(r.boundBytesPerMinute)}); ` +
        `capture ${r.captureMedianUs.toFixed(0)} µs/tick median, ${r.captureP95Us.toFixed(0)} p95 ` +
        `(world.tick ${r.tickMedianUs.toFixed(0)} µs)`,
    );
  for (const r of runs)
    if (r.killcam !== undefined)
      ctx.note(
        `  ${r.world}: a ${KILLCAM_SECONDS} s kill-cam from one entity's view (radius ${r.killcam.radius}): ` +
          `${r.killcam.medianMs.toFixed(0)} ms median, ${r.killcam.maxMs.toFixed(0)} most over ${r.killcam.runs} cuts; ` +
          `${mb(r.killcam.bytes)} MB holding ${r.killcam.inView} entities at its end ` +
          `(the whole world's ${KILLCAM_SECONDS} s: ${mb(r.killcam.wholeBytes)} MB); ` +
          `sliced at ${SLICE_BUDGET_MS} ms a tick: ${r.killcam.slicedTotalMs.toFixed(0)} ms CPU in all, ` +
          `ticks ${r.killcam.slicedMedianTickMs.toFixed(2)} ms median, ${r.killcam.slicedP95TickMs.toFixed(2)} p95, ` +
          `${r.killcam.slicedWorstTickMs.toFixed(2)} worst, over ${r.killcam.slicedTicks} ticks (${r.killcam.slices} slices)`,
      );
  ctx.record('replay', runs);
}
