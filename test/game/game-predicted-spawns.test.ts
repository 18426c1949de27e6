/**
 * Predicted spawns and predicted neighbours (issue 27, item 2) on simulated links at 150 ms RTT:
 * a bolt is shown the tick it is fired, becomes the server's entity with the same states, or
 * disappears at a refusal; claims never create anything; a crate predicted near the player that
 * nobody pushes is never corrected.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimCount } from '../../src/game/game-prediction.js';
import type { InputSender } from '../../src/latency/index.js';
import { testSeed } from '../support/seed.js';
import { IDLE, range, spawnScene } from '../support/spawn-scene.js';

const SEED = testSeed('predicted spawns');
const FIRE = { dx: 0, fire: true };

type Bolt = { x: number; y: number; vx: number; ttl: number };

/** Connects one player and lets the prediction settle. */
function settled(options: Parameters<typeof spawnScene>[0]) {
  const scene = spawnScene(options);
  const player = scene.join(options.seed);
  scene.run(2.5);
  assert.equal(player.client.status, 'connected', `seed ${options.seed}: not connected`);
  assert.ok(player.client.expert.latency.predicting, `seed ${options.seed}: not predicting`);
  return { scene, player };
}

/** Holds fire until a frame predicts a tick (a 60 Hz frame predicts a 30 Hz tick every other frame); returns that tick. */
function fireOnTick(
  scene: ReturnType<typeof spawnScene>,
  player: ReturnType<ReturnType<typeof spawnScene>['join']>,
): number {
  const inputs = player.client.expert.inputs;
  const before = inputs.newestTick;
  player.input = FIRE;
  while (inputs.newestTick === before) scene.frame();
  player.input = IDLE;
  return inputs.newestTick;
}

describe(`predicted spawns at 150 ms RTT (seed ${SEED})`, () => {
  it('shows the bolt the frame its input tick is predicted, then matches it with the server entity, state for state', () => {
    const { scene, player } = settled({ seed: SEED });
    const client = player.client;
    const world = client.expert.predicted!;
    // The server's bolt states by the input tick the player's input had reached when stamped.
    const server = new Map<number, Bolt>();
    scene.afterTick.push(() => {
      const p = scene.simulation.players[0]!;
      const inputTick = scene.simulation.inputs.lastInputTick(p.index);
      for (const e of scene.simulation.entities)
        if (e.type === 'bolt') server.set(inputTick, { ...(e.state as Bolt) });
    });
    const firedTick = fireOnTick(scene, player);
    const shown = client.entities.filter((e) => e.type === 'bolt');
    assert.equal(shown.length, 1, 'the bolt is shown in the frame that predicts its tick');
    assert.ok(shown[0]!.predicted && shown[0]!.id < 0, 'shown as a predicted local spawn');
    // The client's predicted states by input tick, once matched.
    const predicted = new Map<number, Bolt>();
    let matchedId = -1;
    scene.run(1.2, () => {
      const bolt = client.entities.find((e) => e.type === 'bolt');
      if (bolt === undefined || bolt.id < 0) return;
      matchedId = bolt.id;
      const state = world.predictedState(bolt.id, world.tick);
      if (state !== null && state !== undefined) predicted.set(world.tick, { ...(state as Bolt) });
    });
    const stats = world.stats();
    console.log(
      `  seed ${SEED}: fired at ${firedTick}, matched as ${matchedId}, ${predicted.size} predicted ticks, ${JSON.stringify(stats)}`,
    );
    assert.equal(stats.spawnsMatched, 1, 'the server matched the claim');
    assert.ok(matchedId >= 0, 'the bolt became the server entity');
    let compared = 0;
    for (const [tick, state] of predicted) {
      const truth = server.get(tick);
      if (truth === undefined) continue;
      compared++;
      assert.ok(
        Math.abs(truth.x - state.x) <= 1 / 64 && truth.ttl === state.ttl,
        `tick ${tick}: ${JSON.stringify(state)} vs ${JSON.stringify(truth)}`,
      );
    }
    assert.ok(compared >= 10, `compared ${compared} ticks`);
    assert.equal(scene.simulation.stats().claimsMatched, 1);
  });

  it('corrects a matched bolt the server moved, smoothly, and agrees again after', () => {
    const nudge = { on: false };
    const { scene, player } = settled({ seed: (SEED + 5) >>> 0, nudgeBolts: nudge });
    const client = player.client;
    const world = client.expert.predicted!;
    fireOnTick(scene, player);
    scene.run(0.5);
    const bolt = client.entities.find((e) => e.type === 'bolt');
    assert.ok(bolt !== undefined && bolt.id >= 0 && bolt.predicted, 'matched, still predicted');
    const before = { ...world.stats() };
    nudge.on = true;
    let last = Number.NaN;
    let largestStep = 0;
    scene.run(0.6, () => {
      const x = (client.entities.find((e) => e.type === 'bolt')?.state as Bolt | undefined)?.x ?? last;
      if (!Number.isNaN(last)) largestStep = Math.max(largestStep, Math.abs(x - last));
      last = x;
    });
    const stats = world.stats();
    console.log(
      `  seed ${(SEED + 5) >>> 0}: largest step ${largestStep.toFixed(3)} m, ${JSON.stringify(stats)}`,
    );
    assert.equal(stats.rollbacks - before.rollbacks, 1, 'one rollback');
    // It flies 24/64 m a tick (0.19 m a frame): the 0.5 m correction is spread over frames.
    assert.ok(largestStep < 0.3, `a step of ${largestStep} m`);
    assert.equal(stats.mispredictions - before.mispredictions, 1, 'right again after the rollback');
  });

  for (const loss of [0, 10]) {
    it(`removes a refused bolt within one RTT of the server's tick taking its input${loss > 0 ? ` and a resend (${loss}% loss)` : ''}`, () => {
      const { scene, player } = settled({ seed: (SEED + loss) >>> 0, loss, veto: { on: true } });
      const client = player.client;
      const world = client.expert.predicted!;
      let seconds = 0;
      const beyond: number[] = [];
      const shots = 8;
      for (let shot = 0; shot < shots; shot++) {
        fireOnTick(scene, player);
        const shownAt = scene.clock.now;
        // The server takes the input when its tick comes: the prediction's lead, then the verdict comes back.
        const lead = (client.expert.inputs.newestTick - scene.simulation.world.serverTick) / range.tickRate;
        assert.equal(client.entities.filter((e) => e.type === 'bolt').length, 1, 'shown at once');
        let goneAt = Number.NaN;
        scene.run(0.8, () => {
          if (Number.isNaN(goneAt) && client.entities.every((e) => e.type !== 'bolt'))
            goneAt = scene.clock.now;
        });
        seconds = Math.max(seconds, goneAt - shownAt);
        beyond.push(goneAt - shownAt - lead);
      }
      beyond.sort((a, b) => a - b);
      const beyondLead = beyond[shots - 1];
      console.log(
        `  seed ${(SEED + loss) >>> 0}, ${loss}% loss: refused bolts gone after at most ${(seconds * 1000).toFixed(0)} ms (at most ${(beyondLead * 1000).toFixed(0)} ms past the server's tick)`,
      );
      // The server judges the input when its tick comes (the prediction's lead), then within one RTT
      // (the verdict's way back and the packet cadence, measured ~150 ms) it is gone; a lost packet
      // is resent after about an RTT more. Under loss, a verdict lost twice in a row (1% a shot)
      // takes one more resend: all but one shot within one resend, every shot within three.
      const bound = 0.15 + 2 / 60 + (loss > 0 ? 0.2 : 0);
      const inBound = loss > 0 ? beyond[shots - 2] : beyondLead;
      assert.ok(inBound <= bound, `gone ${inBound.toFixed(3)} s after its tick, bound ${bound.toFixed(3)} s`);
      if (loss > 0)
        assert.ok(
          beyondLead <= bound + 0.4,
          `the slowest gone ${beyondLead.toFixed(3)} s after its tick, bound ${(bound + 0.4).toFixed(3)} s`,
        );
      assert.equal(world.stats().spawnsRefused, shots);
      assert.equal(scene.simulation.stats().spawnsCreated, 0, 'the veto created nothing');
      assert.ok(scene.simulation.entities.every((e) => e.type !== 'bolt'));
    });
  }

  it('creates nothing from hostile claims: every key, too many, keys it never spawned', () => {
    const { scene, player } = settled({ seed: (SEED + 1) >>> 0 });
    const count = scene.simulation.entities.length;
    // Replace the player's input sender's inputs with forged claims (idle input, keys claimed).
    const inputs = player.client.expert.inputs as unknown as InputSender<{
      input: typeof IDLE;
      claims: number;
    }>;
    const forged = [0xffff, 0b11, 1, 1 << 15, 0b101];
    let i = 0;
    const spawning = (
      player.client as unknown as { spawning: { produce: (tick: number, input: unknown) => unknown } }
    ).spawning;
    spawning.produce = () => ({ input: IDLE, claims: forged[i++ % forged.length]! });
    scene.run(2);
    const stats = scene.simulation.stats();
    console.log(`  seed ${(SEED + 1) >>> 0}: ${JSON.stringify(stats)}`);
    assert.equal(scene.simulation.entities.length, count, 'no entity was created');
    assert.equal(stats.spawnsCreated, 0);
    assert.ok(stats.claimsDropped > 0 && stats.claimsRefused > 0, 'claims counted, dropped and refused');
    assert.ok(inputs.newestTick > 0);
    assert.equal(claimCount(0xffff), 16);
  });
});

describe(`predicted neighbours at 150 ms RTT (seed ${SEED})`, () => {
  it('predicts a sliding crate near the player, state for state with the server, and never corrects it', () => {
    const { scene, player } = settled({ seed: (SEED + 2) >>> 0 });
    const client = player.client;
    const world = client.expert.predicted!;
    const crate = scene.simulation.entities.find((e) => e.type === 'crate')!;
    const server = new Map<number, number>();
    scene.afterTick.push(() => {
      const p = scene.simulation.players[0]!;
      server.set(scene.simulation.inputs.lastInputTick(p.index), (crate.state as { x: number }).x);
    });
    scene.run(1);
    const shown = client.entities.find((e) => e.id === crate.id);
    assert.ok(shown?.predicted, 'the crate is predicted');
    const start = world.stats().mispredictions;
    const predicted = new Map<number, number>();
    scene.run(3, () => {
      const state = world.predictedState(crate.id, world.tick) as { x: number } | undefined;
      if (state) predicted.set(world.tick, state.x);
    });
    const stats = world.stats();
    console.log(`  seed ${(SEED + 2) >>> 0}: ${JSON.stringify(stats)}`);
    assert.equal(stats.mispredictions - start, 0, 'no correction once settled');
    let compared = 0;
    for (const [tick, x] of predicted) {
      const truth = server.get(tick);
      if (truth === undefined) continue;
      compared++;
      assert.equal(x, truth, `tick ${tick}`);
    }
    assert.ok(compared > 60, `compared ${compared} ticks`);
  });

  it('corrects a crate the server pushed with one rollback, and smooths the difference out', () => {
    const push = { on: false };
    const { scene, player } = settled({ seed: (SEED + 4) >>> 0, push });
    const client = player.client;
    const world = client.expert.predicted!;
    const crate = scene.simulation.entities.find((e) => e.type === 'crate')!;
    scene.run(1);
    assert.ok(client.entities.find((e) => e.id === crate.id)?.predicted);
    const before = { ...world.stats() };
    push.on = true;
    let last = Number.NaN;
    let largestStep = 0;
    scene.run(1.5, () => {
      const x =
        (client.entities.find((e) => e.id === crate.id)?.state as { x: number } | undefined)?.x ?? last;
      if (!Number.isNaN(last)) largestStep = Math.max(largestStep, Math.abs(x - last));
      last = x;
    });
    const stats = world.stats();
    console.log(
      `  seed ${(SEED + 4) >>> 0}: largest step ${largestStep.toFixed(3)} m, ${JSON.stringify(stats)}`,
    );
    assert.equal(stats.rollbacks - before.rollbacks, 1, 'one rollback');
    assert.ok(stats.resimulatedTicks > before.resimulatedTicks && stats.lastDepth >= 2, 'ticks replayed');
    // The crate slides 4/64 m a tick (about 1/30 m a frame); the 1 m push is blended over ~0.1 s.
    assert.ok(largestStep < 0.4, `a step of ${largestStep} m`);
    scene.run(1);
    assert.equal(world.stats().mispredictions, stats.mispredictions, 'right again after the rollback');
  });

  it('goes back to interpolation when the player walks away, without a jump', () => {
    const { scene, player } = settled({ seed: (SEED + 3) >>> 0 });
    const client = player.client;
    const crate = scene.simulation.entities.find((e) => e.type === 'crate')!;
    scene.run(0.5);
    assert.ok(client.entities.find((e) => e.id === crate.id)?.predicted);
    player.input = { dx: -1, fire: false };
    let leftAt = Number.NaN;
    let last = Number.NaN;
    let largestStep = 0;
    scene.run(2, () => {
      const e = client.entities.find((x) => x.id === crate.id);
      if (e === undefined) return;
      if (!e.predicted && Number.isNaN(leftAt)) leftAt = scene.clock.now;
      const x = (e.state as { x: number }).x;
      if (!Number.isNaN(last)) largestStep = Math.max(largestStep, Math.abs(x - last));
      last = x;
    });
    console.log(
      `  seed ${(SEED + 3) >>> 0}: left range at ${leftAt.toFixed(2)} s, largest step ${largestStep.toFixed(3)} m`,
    );
    assert.ok(Number.isFinite(leftAt), 'interpolated again out of range');
    // Predicted, it was ~0.5 m ahead of the interpolated crate (it slides 1/32 m a frame): blended, not jumped.
    assert.ok(largestStep < 0.15, `a step of ${largestStep} m`);
  });
});
