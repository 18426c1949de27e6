/**
 * Events in recordings: each recorded event is dispatched exactly once, in order, however the
 * recording is played (straight through at any speed, from a seek, after backward play), for a
 * plain recording (Recorder.save, whose chunks are each numbered by a fresh virtual client) and
 * for a view clip (save with viewOf), also past the reliable window of 256 sequences. Opening a
 * file dispatches nothing: it is checked on a mirror that has none of the caller's callbacks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplayPlayer } from '../../src/latency/replay-player.js';
import { prng } from '../../src/random/prng.js';
import { defineEntity, defineEvent, ReplicationServer, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

const coord = t.float(0, 128, 1 / 64);
const Unit = defineEntity('unit', t.object({ x: coord, y: coord }), { position: (u) => [u.x, u.y] });
const Shot = defineEvent('shot', t.object({ tick: t.uint16(), k: t.int(0, 3) }));
const CONFIG = { types: [Unit], capacity: 16, historyLength: 8, events: [Shot] };
const RATE = 20;
const UNITS = 5;
const SEED = testSeed('replay events');

/** What a player dispatched: `tick:k` per event (k 0 and 1 reliable, 2 unreliable, 3 about unit 0). */
type Heard = string[];

/**
 * A world of UNITS units that wander, recorded for `ticks` ticks with chunks of `keyframeSeconds`,
 * emitting every tick two reliable broadcasts, an unreliable one and a reliable one about unit 0.
 */
function recordWorld(ticks: number, keyframeSeconds: number, relevancy: boolean) {
  const random = prng(SEED);
  const world = new ServerWorld(CONFIG);
  const replication = new ReplicationServer({
    world,
    events: [Shot],
    maxClients: 1,
    ...(relevancy ? { interest: { grid: { min: [0, 0], max: [128, 128], cellSize: 16 }, radius: 200 } } : {}),
  });
  const recorder = replication.record({ tickRate: RATE, keyframeSeconds, keepSeconds: 1000 });
  const units = Array.from({ length: UNITS }, (_, i) => world.create(Unit, { x: 10 + i * 20, y: 64 }));
  const emitted: Heard = [];
  for (let tick = 1; tick <= ticks; tick++) {
    for (const unit of units) world.set(unit, { x: 10 + random() * 100, y: 10 + random() * 100 });
    if (tick > 1) {
      // The first capture opens the recording: events before it are not in it.
      replication.emit(Shot, { tick, k: 0 }, { reliable: true });
      replication.emit(Shot, { tick, k: 1 }, { reliable: true });
      replication.emit(Shot, { tick, k: 2 });
      replication.emit(Shot, { tick, k: 3 }, { reliable: true, entity: units[0] });
      emitted.push(`${tick}:0`, `${tick}:1`, `${tick}:3`, `${tick}:2`);
    }
    world.tick();
    recorder.capture();
  }
  return { recorder, emitted, units };
}

function open(bytes: Uint8Array) {
  const heard: Heard = [];
  let created = 0;
  const player = ReplayPlayer.open(bytes, {
    ...CONFIG,
    onEvent: (event) => {
      const value = event.value as { tick: number; k: number };
      assert.equal(event.tick, value.tick, 'an event carries the tick it was emitted at');
      heard.push(`${value.tick}:${value.k}`);
    },
    onCreate: () => {
      created++;
    },
  });
  return { player, heard, created: () => created };
}

/** Plays at `speed` from the render tick to the end, `frameSeconds` a frame. */
function playToEnd(player: ReplayPlayer, speed: number, frameSeconds: number): void {
  player.play(speed);
  for (let i = 0; i < 100_000 && player.playing; i++) player.advance(frameSeconds);
  assert.equal(player.renderTick, player.endTick);
}

/** The events emitted after tick `from`, in the order a player dispatches them (reliable ones, then the unreliable). */
function after(emitted: Heard, from: number): Heard {
  return emitted.filter((e) => Number(e.split(':')[0]) > from);
}

for (const clip of ['plain', 'view'] as const) {
  describe(`events of a ${clip} recording`, () => {
    // 7 chunks of 1 s with 4 events a tick: 420 reliable ones, past the window of 256.
    const { recorder, emitted, units } = recordWorld(7 * RATE, 1, clip === 'view');
    const bytes = clip === 'plain' ? recorder.save() : recorder.save({ seconds: 6.5, viewOf: units[2].id });
    const probe = open(bytes).player;
    const chunks = probe.file.chunks;
    const start = probe.startTick;
    console.log(
      `replay events (${clip}): seed ${SEED}, ${chunks.length} chunks, ticks ${start}..${probe.endTick}`,
    );

    it('opening dispatches only what the player applies, and creates each ghost once', () => {
      assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
      const { player, heard, created } = open(bytes);
      // The player shows the start tick and applies the frames up to 3 ahead of it (their events
      // are dispatched as they apply, as live); checking the file dispatches nothing.
      assert.equal(player.mirror.newestTick, start + 3);
      assert.deepEqual(heard, after(emitted, start).slice(0, 3 * 4));
      assert.equal(created(), UNITS);
      assert.equal(player.mirror.size, UNITS);
    });

    for (const [speed, frame] of [
      [1, 1 / 60],
      [1, 1 / RATE],
      [9.5, 0.1], // several chunks crossed in one frame
      [1000, 1], // the whole recording in one frame
    ]) {
      it(`straight play at ${speed}x (${frame.toFixed(3)} s frames) delivers every event once, in order`, () => {
        const { player, heard } = open(bytes);
        playToEnd(player, speed, frame);
        assert.deepEqual(heard, after(emitted, start));
        assert.equal(player.mirror.stats().eventsDropped, 0);
      });
    }

    it('a seek into a later chunk, then play, delivers exactly the events from there', () => {
      for (const into of [
        chunks[2].firstTick, // a keyframe
        chunks[2].firstTick + 4.5,
        chunks[3].firstTick - 1, // the last frame of chunk 2, one before the next keyframe
        chunks.at(-1)!.firstTick + 1,
      ]) {
        const { player, heard } = open(bytes);
        heard.length = 0;
        player.seek(into);
        playToEnd(player, 1, 1 / RATE);
        assert.deepEqual(heard, after(emitted, Math.floor(into)), `from a seek to ${into}`);
      }
    });

    it('seeking back, then playing, delivers the events from there once more, and no more', () => {
      const { player, heard } = open(bytes);
      playToEnd(player, 1, 1 / RATE);
      const back = chunks[1].firstTick + 7.25;
      heard.length = 0;
      player.seek(back);
      playToEnd(player, 1, 1 / RATE);
      assert.deepEqual(heard, after(emitted, Math.floor(back)));
    });

    it('backward play dispatches nothing; playing forward again delivers the events from there once', () => {
      const random = prng(SEED ^ 0x5eed);
      const { player, heard } = open(bytes);
      playToEnd(player, 1, 1 / RATE);
      heard.length = 0;
      player.play(-1);
      for (let i = 0; i < 3 * RATE; i++) player.advance((0.5 + random()) / RATE);
      player.play(-4); // across keyframes, several ticks a frame
      for (let i = 0; i < RATE; i++) player.advance(random() / RATE);
      assert.deepEqual(heard, [], 'backward play dispatched events');
      const from = Math.floor(player.renderTick);
      assert.ok(from > start && from < player.endTick);
      playToEnd(player, 2, 1 / 60);
      assert.deepEqual(heard, after(emitted, from), `forward again from ${player.renderTick}`);
    });
  });
}

describe('events of a long chunk', () => {
  it('a chunk holding more reliable events than the window plays straight and by seeking', () => {
    // 2 chunks of 5 s (100 ticks, 300 reliable events each), then a shorter last one.
    const { recorder, emitted } = recordWorld(12 * RATE, 5, false);
    const bytes = recorder.save();
    const { player, heard } = open(bytes);
    assert.equal(player.file.chunks.length, 3);
    playToEnd(player, 1, 1 / RATE);
    assert.deepEqual(heard, after(emitted, player.startTick));
    const into = player.file.chunks[1].firstTick + 50;
    const seeking = open(bytes);
    seeking.heard.length = 0;
    seeking.player.seek(into);
    playToEnd(seeking.player, 3, 1 / 30);
    assert.deepEqual(seeking.heard, after(emitted, into));
  });
});
