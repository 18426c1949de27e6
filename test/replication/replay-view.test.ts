/**
 * A recording cut to one entity's view (Recorder.save with viewOf, what a kill-cam sends): with
 * relevancy, every tick of the clip holds exactly what a view following that entity held (the
 * live enter / leave radii at its recorded position), entity events about the others are left
 * out, and an entity never in that view is in no section at all. Without relevancy, or when the
 * followed type has no position, the clip holds the whole public world.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScratchList } from '../../src/channels/scratch-list.js';
import { ReplayPlayer } from '../../src/latency/replay-player.js';
import { prng } from '../../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  defineEvent,
  type Entity,
  owner,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { ReplayFile } from '../../src/replication/recording/replay-file.js';
import { t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { testSeed } from '../support/seed.js';

type P = { x: number; y: number };
const coord = t.float(0, 128, 1 / 64);
const Unit = defineEntity('unit', t.object({ x: coord, y: coord }), { position: (u) => [u.x, u.y] });
/** No position: relevant everywhere, so in every view. */
const Score = defineEntity('score', t.object({ points: t.uint16() }));
/** A type whose position is not known to interest (a followed one of these: the whole world). */
const Camera = defineEntity('camera', t.object({ x: coord, y: coord }));
const Boom = defineEvent('boom', t.object({ size: t.int(0, 9) }));
const CONFIG = { types: [Unit, Score, Camera], capacity: 64, historyLength: 8, events: [Boom] };
const RATE = 30;
const RADIUS = 15;
const LEAVE = RADIUS * 1.15;
const SEED = testSeed('replay view');

function makeServer(relevancy: boolean) {
  const world = new ServerWorld(CONFIG);
  const replication = new ReplicationServer({
    world,
    events: [Boom],
    maxClients: 1,
    ...(relevancy
      ? { interest: { grid: { min: [0, 0], max: [128, 128], cellSize: 16 }, radius: RADIUS } }
      : {}),
  });
  const recorder = replication.record({ tickRate: RATE, keyframeSeconds: 1, keepSeconds: 30 });
  return { world, replication, recorder };
}

/** Per tick of a clip: the ids held once that tick's frame is applied, each chunk decoded alone from its keyframe. */
function heldByTick(clip: Uint8Array): {
  file: ReplayFile;
  held: Map<number, Set<number>>;
  created: Set<number>;
} {
  const file = ReplayFile.open(clip, CONFIG);
  const created = new Set<number>();
  const mirror = new ClientMirror({ ...CONFIG, onCreate: (ghost) => created.add(ghost.id) });
  const held = new Map<number, Set<number>>();
  const rs = new ReadStream(0);
  const staged = new ScratchList<unknown>();
  for (const chunk of file.chunks) {
    mirror.reset();
    for (let f = 0; f < chunk.ticks.length; f++) {
      assert.equal(file.applyFrame(mirror, chunk, f, rs, staged), null);
      const ids = new Set([...mirror.ghosts()].map((g) => g.id));
      const tick = chunk.ticks[f];
      if (held.has(tick))
        assert.deepEqual(ids, held.get(tick), `tick ${tick}: the chunks agree where they overlap`);
      held.set(tick, ids);
    }
  }
  return { file, held, created };
}

describe(`a recording cut to one entity's view (seed ${SEED})`, () => {
  it('holds at every tick exactly what the view following the entity held, and only their entity events', () => {
    const random = prng(SEED);
    const { world, replication, recorder } = makeServer(true);
    const q = (v: number) => Math.round(Math.min(127, Math.max(1, v)) * 64) / 64;
    const units: Entity<P>[] = [];
    const at: P[] = [];
    for (let i = 0; i < 30; i++) {
      at.push({ x: q(random() * 128), y: q(random() * 128) });
      units.push(world.create(Unit, at[i]));
    }
    const killer = units[0];
    const score = world.create(Score, { points: 0 });
    const truth = new Map<number, Map<number, P>>();
    const booms = new Map<number, number[]>(); // tick -> entity ids of its entity events (-1: global)
    for (let tick = 1; tick <= 240; tick++) {
      for (let i = 0; i < units.length; i++) {
        // The killer and a few others walk far; the rest wander near where they are.
        const step = i < 6 ? 2 : 0.5;
        at[i] = { x: q(at[i].x + (random() - 0.5) * 2 * step), y: q(at[i].y + (random() - 0.5) * 2 * step) };
        world.set(units[i], at[i]);
      }
      if (tick % 10 === 0) world.set(score, { points: tick });
      const about = Math.floor(random() * units.length);
      // Reliable or not: the clip numbers them again, and every one kept is delivered.
      replication.emit(Boom, { size: 1 }, { entity: units[about], reliable: tick % 3 === 0 });
      if (tick % 5 === 0) replication.emit(Boom, { size: 2 });
      world.tick();
      recorder.capture();
      truth.set(world.serverTick, new Map(units.map((u, i) => [u.id, at[i]])));
      booms.set(world.serverTick, [units[about].id, ...(tick % 5 === 0 ? [-1] : [])]);
    }
    const clip = recorder.save({ seconds: 3, viewOf: killer.id });
    const { file, held } = heldByTick(clip);
    assert.equal(file.header.startTick, world.serverTick - 3 * RATE + 1);
    assert.equal(
      file.chunks[0].firstTick,
      file.header.startTick,
      'the clip opens with a keyframe at its start',
    );
    assert.equal(file.lastTick, world.serverTick);

    // The view, tick by tick, by the live rule: enter within the radius, leave beyond 1.15 × it.
    const expected = new Map<number, Set<number>>();
    let members = new Set<number>();
    for (let tick = file.header.startTick; tick <= file.lastTick; tick++) {
      const positions = truth.get(tick)!;
      const center = positions.get(killer.id)!;
      const next = new Set<number>([killer.id, score.id]);
      for (const [id, p] of positions) {
        const d = Math.hypot(p.x - center.x, p.y - center.y);
        if (d <= RADIUS || (members.has(id) && d <= LEAVE)) next.add(id);
      }
      members = next;
      expected.set(tick, next);
    }
    let entered = 0;
    let left = 0;
    let previous: Set<number> | null = null;
    for (let tick = file.header.startTick; tick <= file.lastTick; tick++) {
      const want = expected.get(tick)!;
      // A tick without a frame holds what the frame before it left.
      let got = held.get(tick);
      for (let back = tick; got === undefined; back--) got = held.get(back - 1);
      assert.deepEqual([...got].sort(), [...want].sort(), `tick ${tick}: the clip holds the view's entities`);
      if (previous !== null) {
        entered += [...want].filter((id) => !previous!.has(id)).length;
        left += [...previous].filter((id) => !want.has(id)).length;
      }
      previous = want;
    }
    assert.ok(expected.get(file.lastTick)!.size < units.length, 'the view never held every unit');
    console.log(`replay view: ${entered} entered and ${left} left the view during the clip`);

    // Played as a kill-cam is: the entity events of entities in view, and the global ones.
    const heard: { tick: number; id: number }[] = [];
    const player = ReplayPlayer.open(clip, {
      ...CONFIG,
      onEvent: (event) => heard.push({ tick: event.tick, id: event.ghost?.id ?? -1 }),
    });
    // Opening dispatches only the events of the frames the player applies (checking the file on
    // a scratch mirror dispatches none): every event is heard once.
    player.seek(file.header.startTick);
    player.play(1);
    for (let i = 0; i < 4 * RATE; i++) player.advance(1 / RATE);
    const want: { tick: number; id: number }[] = [];
    for (let tick = file.header.startTick + 1; tick <= file.lastTick; tick++)
      for (const id of booms.get(tick)!) if (id < 0 || expected.get(tick)!.has(id)) want.push({ tick, id });
    const sort = (list: { tick: number; id: number }[]) =>
      list.sort((a, b) => a.tick - b.tick || a.id - b.id).map((e) => `${e.tick}:${e.id}`);
    assert.deepEqual(sort(heard), sort(want));

    // Seeking back, then into the last chunk (from its keyframe, on a reset mirror): the events
    // after the target are delivered all the same.
    const from = file.chunks.at(-1)!.firstTick + 2;
    player.seek(file.header.startTick);
    heard.length = 0;
    player.seek(from);
    player.play(1);
    for (let i = 0; i < 2 * RATE; i++) player.advance(1 / RATE);
    assert.deepEqual(
      sort(heard.filter((e) => e.tick > from)),
      sort(want.filter((e) => e.tick > from)),
      `played on from a seek to ${from}`,
    );
  });

  it('leaves out an entity that is never in the view, and shows one that enters and one that leaves', () => {
    const { world, recorder } = makeServer(true);
    const killer = world.create(Unit, { x: 20, y: 20 });
    const far = world.create(Unit, { x: 100, y: 100 });
    const entering = world.create(Unit, { x: 60, y: 20 });
    const leaving = world.create(Unit, { x: 22, y: 20 });
    const ticks: Record<string, number> = {};
    for (let tick = 1; tick <= 90; tick++) {
      world.set(far, { x: 100 + (tick % 10), y: 100 }); // moves every tick, far away
      world.set(entering, { x: 60 - tick * 0.5, y: 20 }); // at 35 + 15 = 50 at tick 20
      world.set(leaving, { x: 22 + tick * 0.25, y: 20 });
      world.tick();
      recorder.capture();
      const e = 60 - tick * 0.5 - 20;
      const l = 22 + tick * 0.25 - 20;
      if (e <= RADIUS) ticks.entered ??= world.serverTick;
      if (l > LEAVE) ticks.left ??= world.serverTick;
    }
    const clip = recorder.save({ seconds: 2, viewOf: killer.id });
    const { file, held, created } = heldByTick(clip);
    assert.ok(!created.has(far.id), 'the far entity is in no section of the clip');
    assert.ok(created.has(entering.id) && created.has(leaving.id));
    for (const [tick, ids] of held) {
      assert.ok(ids.has(killer.id), `tick ${tick}: the followed entity is always in`);
      assert.equal(
        ids.has(entering.id),
        tick >= ticks.entered,
        `tick ${tick}: entering (from ${ticks.entered})`,
      );
      assert.equal(ids.has(leaving.id), tick < ticks.left, `tick ${tick}: leaving (until ${ticks.left})`);
    }
    assert.ok(ticks.entered > file.header.startTick && ticks.left < file.lastTick, 'both within the clip');
    const whole = recorder.save({ seconds: 2 });
    assert.ok(heldByTick(whole).created.has(far.id), 'the whole recording has it');
    assert.ok(
      clip.length < whole.length,
      `the clip (${clip.length} B) is smaller than the whole (${whole.length} B)`,
    );
  });

  it('holds the whole public world without relevancy, or when the followed type has no position', () => {
    for (const relevancy of [false, true]) {
      const { world, recorder } = makeServer(relevancy);
      const killer = world.create(Unit, { x: 10, y: 10 });
      const camera = world.create(Camera, { x: 10, y: 10 });
      const far = world.create(Unit, { x: 100, y: 100 });
      for (let tick = 1; tick <= 40; tick++) {
        world.set(far, { x: 100 + (tick % 5), y: 100 });
        world.tick();
        recorder.capture();
      }
      const follows = relevancy ? [camera.id] : [killer.id, camera.id];
      for (const follow of follows) {
        const { held } = heldByTick(recorder.save({ seconds: 1, viewOf: follow }));
        for (const [tick, ids] of held)
          assert.ok(
            ids.has(far.id) && ids.has(killer.id),
            `tick ${tick}: everything (relevancy ${relevancy})`,
          );
      }
      if (relevancy) {
        const { held } = heldByTick(recorder.save({ seconds: 1, viewOf: killer.id }));
        for (const [tick, ids] of held) assert.ok(!ids.has(far.id), `tick ${tick}: the unit's view`);
      }
    }
  });

  it('has no center before the followed entity is first seen, and keeps its last one while it is gone', () => {
    const { world, recorder } = makeServer(true);
    const score = world.create(Score, { points: 0 });
    const near = world.create(Unit, { x: 52, y: 50 });
    let killer: Entity<P> | null = null;
    let spawned = -1;
    let died = -1;
    for (let tick = 1; tick <= 60; tick++) {
      world.set(near, { x: 52 + (tick % 2), y: 50 });
      if (tick === 20) killer = world.create(Unit, { x: 50, y: 50 });
      if (tick === 40) world.destroy(killer!);
      world.tick();
      recorder.capture();
      if (tick === 20) spawned = world.serverTick;
      if (tick === 40) died = world.serverTick;
    }
    const id = killer!.id;
    const { held, file } = heldByTick(recorder.save({ seconds: 1.9, viewOf: id }));
    assert.ok(file.header.startTick < spawned && died < file.lastTick);
    for (const [tick, ids] of held) {
      assert.ok(ids.has(score.id), `tick ${tick}: the score (no position) always`);
      assert.equal(
        ids.has(id),
        tick >= spawned && tick < died,
        `tick ${tick}: the followed entity while it lives`,
      );
      assert.equal(ids.has(near.id), tick >= spawned, `tick ${tick}: near it once it was seen, and after`);
    }
  });

  it('holds no private field: it is cut from the public recording', () => {
    const Agent = defineEntity('agent', t.object({ x: coord, y: coord, ammo: t.uint16() }), {
      position: (a) => [a.x, a.y],
      visibility: { ammo: owner() },
    });
    const config = { types: [Agent], capacity: 16, historyLength: 8 };
    const world = new ServerWorld(config);
    const replication = new ReplicationServer({
      world,
      maxClients: 2,
      interest: { grid: { min: [0, 0], max: [128, 128], cellSize: 16 }, radius: RADIUS },
    });
    const recorder = replication.record({ tickRate: RATE, keyframeSeconds: 1 });
    const killer = world.create(Agent, { x: 10, y: 10, ammo: 7 });
    const near = world.create(Agent, { x: 12, y: 10, ammo: 9 });
    world.setOwner(killer, 0);
    world.setOwner(near, 1);
    for (let tick = 1; tick <= 40; tick++) {
      world.set(killer, { x: 10 + (tick % 3), y: 10, ammo: 7 + tick });
      world.set(near, { x: 12, y: 10 + (tick % 2), ammo: 9 + tick });
      world.tick();
      recorder.capture();
    }
    const clip = recorder.save({ seconds: 1, viewOf: killer.id });
    const player = ReplayPlayer.open(clip, config);
    player.seek(player.endTick);
    const shown = [...player.mirror.ghosts()];
    assert.deepEqual(shown.map((g) => g.id).sort(), [killer.id, near.id].sort());
    for (const ghost of shown) {
      assert.equal((ghost.value as { ammo?: number }).ammo, undefined, 'no private field');
      assert.equal(player.mirror.holds(ghost.id, 'ammo'), false);
    }
  });

  it('refuses a viewOf that is not an entity id', () => {
    const { world, recorder } = makeServer(true);
    world.create(Unit, { x: 1, y: 1 });
    world.tick();
    recorder.capture();
    for (const bad of [-1, 64, 1.5, Number.NaN])
      assert.throws(() => recorder.save({ viewOf: bad }), /viewOf must be an entity id/);
  });
});
