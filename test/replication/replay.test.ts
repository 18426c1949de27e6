import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { GhostSampler } from '../../src/latency/ghost-sampler.js';
import { compileInterpolator } from '../../src/latency/interpolation.js';
import { ReplayPlayer } from '../../src/latency/replay-player.js';
import {
  ClientMirror,
  defineEntity,
  defineEvent,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { encodeReplay } from '../../src/replication/recording/gwr-format.js';
import { ReplayError } from '../../src/replication/recording/replay-error.js';
import { ReplayFile } from '../../src/replication/recording/replay-file.js';
import { t } from '../../src/schema/schema.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { testSeed } from '../support/seed.js';

const Cube = defineEntity('cube', t.object({ x: t.float(-64, 64, 1 / 512), y: t.float(-64, 64, 1 / 512) }));
const Boom = defineEvent('boom', t.object({ size: t.int(0, 9) }));
const CONFIG = { types: [Cube], capacity: 32, historyLength: 8, events: [Boom] };
const RATE = 20;
const SEED = testSeed('replay');

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Snapshot = Map<number, { x: number; y: number }>;

/** A world run for `ticks` ticks with creates, moves and destroys on the quantization grid; the truth at every tick. */
function record(ticks: number, options: { keyframeSeconds?: number; seed?: number; live?: boolean } = {}) {
  const random = rng(options.seed ?? SEED);
  const world = new ServerWorld(CONFIG);
  const replication = new ReplicationServer({
    world,
    events: [Boom],
    bandwidth: { bytesPerPacket: 4096, kbps: 100000 },
  });
  const recorder = replication.record({
    tickRate: RATE,
    keyframeSeconds: options.keyframeSeconds ?? 1,
    keepSeconds: 1000,
  });
  const factory = new MessageFactory([defineMessage('x', t.object({ a: t.bool() }))]);
  const live = new ClientMirror(CONFIG);
  const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  const client = new MessageConnection({ factory, channels: [live.channel], clientIndex: 0 });
  const liveSnaps = new Map<number, ClientMirror>();
  // biome-ignore lint/suspicious/noExplicitAny: entity handles
  const entities: any[] = [];
  const values: { x: number; y: number }[] = [];
  const truth = new Map<number, Snapshot>();
  const grid = () => Math.round((random() * 100 - 50) * 512) / 512 + 0; // + 0: never -0
  for (let i = 1; i <= ticks; i++) {
    if (entities.length < 20 && random() < 0.4) {
      const v = { x: grid(), y: grid() };
      entities.push(world.create(Cube, v));
      values.push(v);
    }
    if (entities.length > 3 && random() < 0.1) {
      const k = Math.floor(random() * entities.length);
      world.destroy(entities[k]);
      entities.splice(k, 1);
      values.splice(k, 1);
    }
    for (let k = 0; k < entities.length; k++)
      if (random() < 0.5) {
        values[k] = { x: grid(), y: grid() };
        world.set(entities[k], values[k]);
      }
    if (i % 7 === 0) replication.emit(Boom, { size: 1 });
    if (i % 5 === 0) replication.emit(Boom, { size: 9 }, { to: 0 }); // one client's: never recorded
    const tick = world.tick();
    recorder.capture();
    const snap: Snapshot = new Map();
    entities.forEach((e, k) => {
      snap.set(e.id, values[k]);
    });
    truth.set(tick, snap);
    if (options.live) {
      const { data, record } = server.writePacket(i / RATE);
      if (client.readPacket(data, 0, data.length)) server.acked(record);
      liveSnaps.set(tick, live);
    }
  }
  return { recorder, truth, world, live };
}

function snapshotOf(mirror: ClientMirror): Snapshot {
  const s: Snapshot = new Map();
  for (const g of mirror.ghosts()) s.set(g.id, { ...(g.value as { x: number; y: number }) });
  return s;
}

describe('replays', () => {
  const { recorder, truth } = record(200);
  const bytes = recorder.save();

  it('record then play: the mirror equals the server at every tick, in order and by seeking', () => {
    const booms: number[] = [];
    const boomTicks: number[] = [];
    const player = ReplayPlayer.open(bytes, {
      ...CONFIG,
      onEvent: (e) => {
        booms.push((e.value as { size: number }).size);
        boomTicks.push(e.tick);
      },
    });
    // The first frame is the first tick with an entity or a broadcast event (an empty section says nothing).
    const first = player.startTick;
    const firstWithEntities = Math.min(...[...truth].filter(([, s]) => s.size > 0).map(([tick]) => tick));
    assert.ok(first <= firstWithEntities && (first === firstWithEntities || first % 7 === 0));
    assert.equal(player.endTick, 200);
    for (let tick = first; tick <= 200; tick++) {
      player.seek(tick);
      // Frames up to 3 ahead are applied (a tick where nothing changed has no frame).
      const through = Math.min(200, tick + 3);
      assert.ok(player.mirror.newestTick <= through);
      assert.deepEqual(snapshotOf(player.mirror), truth.get(through), `tick ${tick}`);
    }
    assert.ok(
      booms.every((size) => size === 1),
      "broadcast events only, never one client's",
    );
    // Opening dispatches nothing (the file is checked on a mirror of its own) and shows the start
    // tick: every broadcast after it is dispatched exactly once, in order, across every chunk.
    const want: number[] = [];
    for (let tick = first + 1; tick <= 200; tick++) if (tick % 7 === 0) want.push(tick);
    assert.deepEqual(boomTicks, want);
    // A seek back restarts at a keyframe: the events of the frames it passes to reach 100 are not
    // dispatched again; only those of the 3 frames applied ahead of it may be (one every 7 ticks).
    const heard = booms.length;
    player.seek(100.5);
    assert.ok(booms.length - heard <= 1, `${booms.length - heard} events on a seek back`);
    const random = rng(SEED ^ 5);
    for (let i = 0; i < 60; i++) {
      const tick = first + random() * (200 - first);
      player.seek(tick);
      assert.equal(player.renderTick, tick);
      assert.deepEqual(
        snapshotOf(player.mirror),
        truth.get(Math.min(200, Math.floor(tick) + 3)),
        `seek to ${tick}`,
      );
    }
  });

  it('plays at a speed, pauses, and stops at the end', () => {
    const player = ReplayPlayer.open(bytes, CONFIG);
    assert.equal(player.playing, false);
    player.advance(1);
    const first = player.startTick;
    assert.equal(player.renderTick, first, 'paused until play');
    player.play(2);
    player.advance(0.5);
    assert.equal(player.renderTick, first + 20);
    player.pause();
    player.advance(3);
    assert.equal(player.renderTick, first + 20);
    player.play(-1);
    player.advance(0.25);
    assert.equal(player.renderTick, first + 15);
    assert.deepEqual(snapshotOf(player.mirror), truth.get(first + 18));
    player.play(100);
    player.advance(10);
    assert.equal(player.renderTick, 200);
    assert.equal(player.playing, false);
  });

  it('interpolates as a live client does', () => {
    const run = record(60, { live: true });
    assert.equal(run.live.newestTick, run.recorder.lastTick);
    const player = ReplayPlayer.open(run.recorder.save(), CONFIG);
    const interpolator = compileInterpolator(Cube.schema);
    const tick = run.live.newestTick - 2.75;
    player.seek(tick);
    let compared = 0;
    for (const ghost of run.live.ghosts()) {
      const history = run.live.history(ghost.id);
      if (history === null || history.oldestTick > tick - 1) continue;
      const live = new GhostSampler(interpolator).sample(history, tick, run.live.newestTick);
      assert.deepEqual(player.sample(ghost.id), live, `ghost ${ghost.id}`);
      compared++;
    }
    assert.ok(compared > 0);
  });

  it("shows the others viewDelayTicks behind the followed entity (a kill-cam: the killer's view)", () => {
    const run = record(60, { live: true });
    const delayed = ReplayPlayer.open(run.recorder.save(), CONFIG);
    const plain = ReplayPlayer.open(run.recorder.save(), CONFIG);
    const tick = run.live.newestTick - 2.25;
    const delay = 1.5;
    const ids = [...run.live.ghosts()].map((g) => g.id);
    assert.ok(ids.length >= 2);
    delayed.follow(ids[0]);
    delayed.viewDelayTicks = delay;
    assert.equal(delayed.viewDelayTicks, delay);
    delayed.seek(tick);
    plain.seek(tick);
    assert.deepEqual(delayed.sample(ids[0]), plain.sample(ids[0]), 'the followed entity at the render tick');
    let moved = 0;
    for (const id of ids.slice(1)) {
      const history = run.live.history(id);
      if (history === null || history.oldestTick > tick - delay - 1) continue;
      const expected = new GhostSampler(compileInterpolator(Cube.schema)).sample(
        history,
        tick - delay,
        run.live.newestTick,
      );
      assert.deepEqual(delayed.sample(id), expected, `ghost ${id} where the killer saw it`);
      if (JSON.stringify(expected) !== JSON.stringify(plain.sample(id))) moved++;
    }
    assert.ok(moved > 0, 'some of the others were elsewhere at the delayed tick');
    assert.throws(() => {
      delayed.viewDelayTicks = -1;
    }, /viewDelayTicks/);
    assert.throws(() => {
      delayed.viewDelayTicks = Number.NaN;
    }, /viewDelayTicks/);
  });

  it('a save of the last N seconds starts at the keyframe before and shows only those seconds', () => {
    const clip = recorder.save({ seconds: 2 });
    const file = ReplayFile.open(clip, CONFIG);
    assert.equal(file.header.startTick, 200 - 40 + 1);
    assert.ok(file.firstTick <= file.header.startTick && file.firstTick > file.header.startTick - 20);
    assert.ok(clip.length < bytes.length / 2);
    const player = ReplayPlayer.open(clip, CONFIG);
    player.seek(0);
    assert.equal(player.renderTick, 161);
    assert.deepEqual(snapshotOf(player.mirror), truth.get(164));
  });

  it('streams each chunk as it closes, keeps keepSeconds, and stops', () => {
    const world = new ServerWorld(CONFIG);
    const replication = new ReplicationServer({ world, events: [Boom] });
    const chunks: { firstTick: number; lastTick: number }[] = [];
    const recorder = replication.record({
      tickRate: RATE,
      keyframeSeconds: 1,
      keepSeconds: 2,
      onChunk: (chunk) => chunks.push(chunk),
    });
    assert.throws(() => replication.record({ tickRate: RATE }), /already recording/);
    const cube = world.create(Cube, { x: 0, y: 0 });
    for (let i = 1; i <= 100; i++) {
      world.set(cube, { x: i / 8, y: 0 });
      world.tick();
      recorder.capture();
    }
    assert.equal(chunks.length, 4, 'a chunk closes every 20 ticks');
    for (let i = 1; i < chunks.length; i++)
      assert.equal(chunks[i].firstTick, chunks[i - 1].lastTick, 'chunks overlap by a tick');
    assert.ok(
      recorder.firstTick <= recorder.lastTick - 40 + 1 && recorder.firstTick > recorder.lastTick - 60,
      'the ring keeps 2 s from a keyframe',
    );
    const last = recorder.lastTick;
    recorder.stop();
    world.tick();
    recorder.capture();
    assert.equal(recorder.lastTick, last, 'nothing captured once stopped');
    assert.equal(
      replication.interest.view(replication.interest.maxClients - 1),
      undefined,
      'the virtual client left',
    );
    assert.throws(() => replication.view(replication.interest.maxClients - 1), RangeError);
    assert.throws(() => replication.record({ tickRate: 0 }), /tickRate/);
    const again = replication.record({ tickRate: RATE });
    assert.equal(again.stopped, false);
  });

  it('plays across keyframes at ticks where nothing changed (no frame), and to a last tick with none', () => {
    const world = new ServerWorld(CONFIG);
    const replication = new ReplicationServer({ world, events: [Boom] });
    const recorder = replication.record({ tickRate: RATE, keyframeSeconds: 1 });
    const cube = world.create(Cube, { x: 0, y: 0 });
    const xs = new Map<number, number>();
    let x = 0;
    for (let i = 1; i <= 125; i++) {
      if (i % 3 === 0 && i < 110) {
        x = i / 8;
        world.set(cube, { x, y: 1 });
      }
      xs.set(world.tick(), x);
      recorder.capture();
    }
    assert.equal(recorder.lastTick, world.serverTick, 'the last tick captured, though it has no frame');
    const player = ReplayPlayer.open(recorder.save(), { ...CONFIG, aheadTicks: 1 });
    assert.equal(player.endTick, world.serverTick);
    for (let tick = player.startTick; tick <= player.endTick; tick++) {
      player.seek(tick - 1);
      const shown = player.mirror.ghost(cube.id)?.value as { x: number } | undefined;
      assert.equal(shown?.x, xs.get(Math.min(tick, player.endTick)), `tick ${tick}`);
    }
  });

  it('refuses corrupt and hostile files with a reason and a byte offset', () => {
    const cases: [string, Uint8Array, RegExp, object?][] = [];
    const patch = (at: number, value: number) => {
      const copy = bytes.slice();
      copy[at] ^= value;
      return copy;
    };
    cases.push(['magic', patch(0, 1), /bad magic/]);
    cases.push(['header', patch(9, 1), /header CRC/]);
    cases.push(['body', patch(60, 0x10), /chunk body CRC/]);
    cases.push(['footer', patch(bytes.length - 6, 1), /footer magic/]);
    cases.push(['index crc', patch(bytes.length - 14, 1), /index CRC/]);
    cases.push(['truncated', bytes.subarray(0, bytes.length - 1), /footer|index/]);
    cases.push(['short', bytes.subarray(0, 10), /too short/]);
    cases.push(['big', bytes, /exceeds/, { maxFileBytes: 100 }]);
    cases.push(['empty', new Uint8Array(0), /too short/]);
    // A body whose CRC is right but whose section is garbage: the mirror's refusal refuses the file.
    const file = ReplayFile.open(bytes, CONFIG);
    const forged = bytes.slice();
    const c = file.chunks[0];
    for (let i = 0; i < c.lengths[1]; i++) forged[c.offsets[1] + i] = 0xff;
    const bodyAt = c.offsets[0] - 2;
    const headAt = bodyAt - 22;
    const view = new DataView(forged.buffer);
    const body = view.getUint32(headAt + 4, true);
    view.setUint32(headAt + 18, crc32(forged, headAt + 22, headAt + 22 + body), true);
    cases.push(['section', forged, /section refused/]);
    const other = new ClientMirror({ ...CONFIG, capacity: 64 });
    cases.push([
      'fingerprint',
      encodeReplay({ ...file.header, configuration: other.configuration }, []),
      /index count|fingerprint/,
    ]);
    for (const [what, input, reason, limits] of cases) {
      assert.throws(
        () => ReplayFile.open(input, CONFIG, limits),
        (error: unknown) =>
          error instanceof ReplayError && reason.test(error.reason) && Number.isInteger(error.offset),
        what,
      );
    }
    assert.throws(() => ReplayFile.open(bytes, { ...CONFIG, capacity: 64 }), /fingerprint/);
  });

  it('random corruption is refused with a ReplayError, quickly (seeded)', () => {
    const random = rng(SEED ^ 9);
    const started = performance.now();
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      const copy = bytes.slice(0, random() < 0.2 ? Math.floor(random() * bytes.length) : bytes.length);
      const flips = 1 + Math.floor(random() * 4);
      for (let k = 0; k < flips && copy.length > 0; k++)
        copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
      try {
        ReplayFile.open(copy, CONFIG);
      } catch (error) {
        assert.ok(error instanceof ReplayError, String(error));
        refused++;
      }
    }
    assert.ok(refused > 250, `${refused} refused`);
    console.log(`replay fuzz: 300 files in ${(performance.now() - started).toFixed(0)} ms`);
  });
});
