/**
 * Kill-cams cut in slices (Recorder.cut, KillcamQueue, GameServer.killcam): a big cut is spread
 * over ticks with no tick's cut work over the budget (a counting clock: each reading is a fixed
 * step later, so the figures are exact, not wall-clock), the clip is byte-equal to the one-shot
 * cut, its span is fixed at the call (captures after it change nothing), a viewer who leaves
 * cancels its cut, kill-cams go out oldest first, and past 8 pending the newest is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { KillcamQueue, type KillcamResult } from '../../src/game/killcam-queue.js';
import { KILLCAM_HEAD_BYTES } from '../../src/game/killcam-wire.js';
import { prng } from '../../src/random/prng.js';
import { defineEntity, type Entity, ReplicationServer, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';

type P = { x: number; y: number };
const coord = t.float(0, 512, 1 / 64);
const Unit = defineEntity('unit', t.object({ x: coord, y: coord }), { position: (u) => [u.x, u.y] });
const CAPACITY = 3000;
const RATE = 20;
const SEED = testSeed('killcam slices');

/** A world of CAPACITY units walking at random, recorded for `ticks` ticks. */
function recordedWorld(ticks: number) {
  const world = new ServerWorld({ types: [Unit], capacity: CAPACITY, historyLength: 8 });
  const replication = new ReplicationServer({
    world,
    maxClients: 1,
    interest: { grid: { min: [0, 0], max: [512, 512], cellSize: 32 }, radius: 40 },
  });
  const random = prng(SEED);
  const units: Entity<P>[] = [];
  const at: P[] = [];
  for (let i = 0; i < CAPACITY; i++) {
    at.push({ x: random() * 512, y: random() * 512 });
    units.push(world.create(Unit, at[i]));
  }
  world.tick();
  const recorder = replication.record({ tickRate: RATE, keyframeSeconds: 1, keepSeconds: 4 });
  const step = () => {
    for (let i = 0; i < CAPACITY; i++) {
      const p = at[i];
      p.x = Math.min(512, Math.max(0, p.x + (random() - 0.5) * 4));
      p.y = Math.min(512, Math.max(0, p.y + (random() - 0.5) * 4));
      world.set(units[i], p);
    }
    world.tick();
    recorder.capture();
  };
  for (let i = 0; i < ticks; i++) step();
  return { recorder, step, follow: units[0].id };
}

/** A clock that reads `stepMs` later at each reading. */
function countingClock(stepMs: number): () => number {
  let now = 0;
  return () => {
    now += stepMs;
    return now;
  };
}

describe('kill-cams cut in slices', () => {
  const { recorder, step, follow } = recordedWorld(50);

  it('a sliced cut is byte-equal to the one-shot cut, its span fixed at the call', () => {
    const oneShot = recorder.save({ seconds: 2, viewOf: follow });
    const cut = recorder.cut({ seconds: 2, viewOf: follow });
    let steps = 0;
    while (!cut.step()) {
      steps++;
      if (steps % 7 === 0) step(); // the world goes on, the ring moves: the cut keeps its span
    }
    assert.ok(steps > 40, `a 2 s cut of ${CAPACITY} entities takes many slices (${steps})`);
    assert.deepEqual(cut.bytes, oneShot);
    assert.equal(cut.step(), true, 'a done cut stays done');
    // Interleaved cuts do not share state.
    const a = recorder.cut({ seconds: 1, viewOf: follow });
    const b = recorder.cut({ seconds: 1, viewOf: follow + 1 });
    let doneA = false;
    let doneB = false;
    while (!(doneA && doneB)) {
      doneA = a.step();
      doneB = b.step();
    }
    assert.deepEqual(a.bytes, recorder.save({ seconds: 1, viewOf: follow }));
    assert.deepEqual(b.bytes, recorder.save({ seconds: 1, viewOf: follow + 1 }));
  });

  it('spreads a big cut over ticks, no tick over the budget, oldest first', async () => {
    const sent: { viewer: number; bytes: number }[] = [];
    const queue = new KillcamQueue({
      budgetMs: 1,
      maxPending: 8,
      maxBlockBytes: 1 << 20,
      now: countingClock(0.125), // each slice reads as 0.125 ms
      send: (viewer, block) => sent.push({ viewer, bytes: block.length }),
    });
    const first = queue.add(3, recorder.cut({ seconds: 2, viewOf: follow }), (c) => c, 100);
    const second = queue.add(5, recorder.cut({ seconds: 1, viewOf: follow }), (c) => c, 100);
    let tick = 100;
    while (queue.stats().killcamsPending > 0) queue.run(tick++);
    const stats = queue.stats();
    assert.ok(stats.killcamTicks >= 10, `spread over ${stats.killcamTicks} ticks`);
    assert.ok(stats.killcamWorstTickMs <= 1, `worst tick ${stats.killcamWorstTickMs} ms, budget 1`);
    assert.ok(stats.killcamSlices > stats.killcamTicks, 'several slices a tick within the budget');
    const [a, b] = [await first, await second];
    assert.ok(a.sent && b.sent);
    assert.deepEqual(
      sent.map((s) => s.viewer),
      [3, 5],
      'the oldest first',
    );
    assert.ok(a.ticks < b.ticks && b.ticks === tick - 1 - 100, `sent at ${a.ticks}, ${b.ticks}`);
  });

  it('a budget of 0 runs one slice a tick; a small cut goes out on the tick', async () => {
    const queue = new KillcamQueue({
      budgetMs: 0,
      maxPending: 8,
      maxBlockBytes: 1 << 20,
      now: countingClock(0.01),
      send: () => {},
    });
    const done = queue.add(0, recorder.cut({ seconds: 0.5, viewOf: follow }), (c) => c, 7);
    let ticks = 0;
    while (queue.stats().killcamsPending > 0) queue.run(7 + ticks++);
    assert.equal(queue.stats().killcamSlices, ticks);
    assert.ok((await done).sent);
    const roomy = new KillcamQueue({
      budgetMs: 1000,
      maxPending: 8,
      maxBlockBytes: 1 << 20,
      now: countingClock(0.01),
      send: () => {},
    });
    const small = roomy.add(0, recorder.cut({ seconds: 0.2, viewOf: follow }), (c) => c, 9);
    roomy.run(9);
    const result = await small;
    assert.ok(result.sent && result.ticks === 0, `sent on the tick of the call: ${JSON.stringify(result)}`);
  });

  it('a viewer who leaves cancels its cut; past the bound the newest is refused', async () => {
    const sent: number[] = [];
    const queue = new KillcamQueue({
      budgetMs: 0,
      maxPending: 8,
      maxBlockBytes: 1 << 20,
      now: countingClock(0.01),
      send: (viewer) => sent.push(viewer),
    });
    const results: Promise<KillcamResult>[] = [];
    for (let v = 0; v < 8; v++)
      results.push(queue.add(v, recorder.cut({ seconds: 1, viewOf: follow }), (c) => c, 0));
    assert.deepEqual(
      await queue.add(9, recorder.cut({ seconds: 1, viewOf: follow }), (c) => c, 0),
      { sent: false, reason: 'busy' },
      'the ninth is refused at once',
    );
    queue.run(1);
    queue.run(2); // viewer 0's cut is under way
    queue.leave(0);
    queue.leave(4);
    assert.deepEqual(await results[0], { sent: false, reason: 'viewer-left' });
    assert.deepEqual(await results[4], { sent: false, reason: 'viewer-left' });
    assert.equal(queue.stats().killcamsPending, 6);
    let tick = 3;
    while (queue.stats().killcamsPending > 1) queue.run(tick++);
    queue.close();
    assert.deepEqual(await results[7], { sent: false, reason: 'closed' });
    assert.deepEqual(sent, [1, 2, 3, 5, 6]);
    const tooLarge = new KillcamQueue({
      budgetMs: 1000,
      maxPending: 8,
      maxBlockBytes: 100,
      now: countingClock(0.01),
      send: () => assert.fail('nothing over a block is sent'),
    });
    const big = tooLarge.add(0, recorder.cut({ seconds: 1, viewOf: follow }), (c) => c, 0);
    tooLarge.run(1);
    assert.deepEqual(await big, { sent: false, reason: 'too-large' });
    assert.deepEqual(await queue.add(0, recorder.cut({ seconds: 1 }), (c) => c, 0), {
      sent: false,
      reason: 'closed',
    });
  });

  it('GameServer: one slice a tick with a budget of 0, the clip the one-shot cut, a leaving viewer cancels', async () => {
    await assert.rejects(
      GameServer.start(arenaRules(emptyLog()), { port: 0, transports: ['udp'], killcamBudgetMs: -1 }),
      /killcamBudgetMs must be a number of milliseconds >= 0/,
    );
    const server = await GameServer.start(arenaRules(emptyLog()), {
      port: 0,
      transports: ['udp'],
      killcamBudgetMs: 0,
      relevancy: { radius: 50, bounds: [-256, -256, 256, 256] }, // a view to cut: slices
    });
    const recording = server.record({ keepSeconds: 4, keyframeSeconds: 1 });
    const client = await GameClient.connect(arena, server.url);
    const blocks: Uint8Array[] = [];
    const sendBlock = server.messages.sendBlock.bind(server.messages);
    server.messages.sendBlock = (index, channel, block) => {
      blocks.push(block);
      return sendBlock(index, channel, block);
    };
    try {
      await play(
        [client],
        () => STILL,
        'a second recorded',
        10000,
        () => recording.lastTick > 40,
      );
      const player = server.simulation.players[0];
      const oneShot = recording.save({ seconds: 1, viewOf: player.entity!.id });
      const before = server.stats();
      const pending = server.killcam(player, { seconds: 1, follow: player.entity });
      assert.equal(server.stats().killcamsPending, 1);
      let result: KillcamResult | null = null;
      void pending.then((r) => {
        result = r;
      });
      await play(
        [client],
        () => STILL,
        'the kill-cam sent',
        10000,
        () => result !== null,
      );
      const sent = result as KillcamResult | null;
      assert.ok(sent?.sent === true, `sent: ${JSON.stringify(sent)}`);
      const after = server.stats();
      const slices = after.killcamSlices - before.killcamSlices;
      assert.equal(after.killcamTicks - before.killcamTicks, slices, 'one slice a tick');
      assert.ok(slices > 30 && sent.ticks >= slices, `${slices} slices over ${sent.ticks} ticks`);
      assert.deepEqual(blocks.at(-1)!.subarray(KILLCAM_HEAD_BYTES), oneShot, 'the one-shot clip');
      assert.equal(sent.bytes, blocks.at(-1)!.length);

      const cancelled = server.killcam(player, { seconds: 1, follow: player.entity });
      const sentBefore = server.stats().killcamsSent;
      client.close();
      assert.deepEqual(await cancelled, { sent: false, reason: 'viewer-left' });
      assert.equal(server.stats().killcamsSent, sentBefore, 'nothing sent to the viewer who left');
      assert.equal(server.stats().killcamsPending, 0);
    } finally {
      client.close();
      await server.close();
    }
  });
});
