import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { ClockSync, InputReceiver, InputSender, TickClock } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { ClientMirror, defineEntity, ReplicationServer, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { NetworkSimulator } from '../../src/transport/network-simulator.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

/**
 * The input channel on the real stack: a server world stepped at 60 Hz that takes one input per
 * tick, replicated with the input reports through MessageServer and a simulated link to a
 * client whose prediction clock ClockSync steers to lead by RTT/2 + the buffer + the time
 * dilation's correction, pushing one input per predicted tick.
 */
const SEED = testSeed('latency inputs stack');

const Cube = defineEntity('cube', t.object({ x: t.float(-64, 64, 1 / 64) }));
const types = [Cube];
const Input = t.object({
  x: t.float(-1, 1, 1 / 128),
  y: t.float(-1, 1, 1 / 128),
  fire: t.bool(),
  jump: t.bool(),
});
type In = { x: number; y: number; fire: boolean; jump: boolean };
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(8) }))]);
const TICK_RATE = 60;

/** A player's input: axes moving a few times a second, buttons now and then. */
const inputOf = (tick: number): In => ({
  x: Math.round(Math.sin(tick / 23) * 4) / 4,
  y: Math.round(Math.cos(tick / 31) * 4) / 4,
  fire: tick % 40 < 6,
  jump: tick % 97 < 2,
});

interface Scene {
  latency: number;
  jitter: number;
  loss: number;
  seconds: number;
  bufferTicks: number;
  /**
   * From `at` seconds on, `ticks` added to the client's lead and its clock moved by them at once
   * (negative: the clock is made to lag, as by an RTT estimate that shrank).
   */
  bias?: { at: number; ticks: number };
  /** Keep the server's target at bufferTicks (no adaptation): the dilation alone is under test. */
  fixedTarget?: boolean;
}

function run(seed: number, scene: Scene) {
  const next = prng(seed);
  const world = new ServerWorld({ types, capacity: 4 });
  const replication = new ReplicationServer({ world, maxClients: 1 });
  const inputs = new InputReceiver({
    schema: Input,
    tickRate: TICK_RATE,
    maxClients: 1,
    bufferTicks: scene.bufferTicks,
    ...(scene.fixedTarget === true ? { maxBufferTicks: scene.bufferTicks } : {}),
  });
  const session = messageSession({
    protocolId: 92n,
    factory,
    channels: [replication.channel, inputs.channel],
    maxClients: 1,
  });
  const mirror = new ClientMirror({ types, capacity: 4 });
  const sender = new InputSender({ schema: Input, settleTicks: 15 });
  const link = new NetworkSimulator(session.network.createTransport('10.0.0.1:1'), { seed });
  const client = new MessageClient({
    transport: link,
    aead: nobleAead,
    factory,
    channels: [mirror.channel, sender.channel],
  });
  const { clock } = session;
  const conditions = { latencyMs: scene.latency, jitterMs: scene.jitter, loss: scene.loss };
  link.setConditions('outgoing', conditions);
  link.setConditions('incoming', conditions);
  client.connect(session.token(1n), clock.now);
  for (let i = 0; i < 150 && !client.connected; i++) session.tick([client], 1 / 30);
  assert.ok(client.connected, 'the client connects');

  const cube = world.create(Cube, { x: 0 });
  const serverClock = new TickClock({ tickRate: TICK_RATE, startTick: world.tick() });
  const clientClock = new TickClock({ tickRate: TICK_RATE });
  // A quarter-second correction: with ±10% of rate, a 4-tick lag is steered away within a second.
  const sync = new ClockSync(clientClock, { correctionSeconds: 0.25 });
  const pushed = new Map<number, In>();
  const start = clock.now;
  serverClock.advance(start);
  /** Per server tick after the first input: the time, whether the take repeated, the depth. */
  const takes: { at: number; starved: boolean; depth: number; mismatch: boolean; corrections: number }[] = [];
  let sampled = -1;
  let starvedBefore = 0;
  let biased = false;
  while (clock.now - start < scene.seconds) {
    clock.now += 0.004 + next() * 0.012;
    serverClock.advance(clock.now, (tick) => {
      const input = inputs.take(0, world.serverTick + 1);
      const stats = inputs.stats(0);
      if (input !== null && stats !== null) {
        const expected = pushed.get(inputs.lastInputTick(0));
        const starved = stats.starved > starvedBefore;
        starvedBefore = stats.starved;
        takes.push({
          at: clock.now - start,
          starved,
          depth: stats.depth,
          mismatch: !starved && JSON.stringify(expected) !== JSON.stringify(input),
          corrections: sender.stats().corrections,
        });
      }
      // The cube moves every tick, so every packet carries a state (the clock sync's samples).
      world.set(cube, { x: Math.sin(tick / 30) * 10 + (input?.x ?? 0) });
      assert.equal(world.tick(), tick);
    });
    session.server.update(clock.now);
    client.update(clock.now);
    const endpoint = client.client.endpoint;
    if (mirror.newestTick !== sampled && mirror.newestTick > 0) {
      sampled = mirror.newestTick;
      sync.addSample(clock.now, sampled, endpoint?.rttSampleMs ?? 0);
    }
    if (!sync.synced) continue;
    clientClock.advance(clock.now, (tick) => {
      if (tick <= sender.newestTick) return;
      const view = Math.max(tick - 200, sync.estimate(clock.now) - 6);
      pushed.set(tick, { ...sender.push(tick, inputOf(tick), Math.min(tick, view)) });
    });
    const bias = scene.bias !== undefined && clock.now - start >= scene.bias.at ? scene.bias.ticks : 0;
    if (bias !== 0 && !biased) {
      biased = true;
      clientClock.jump(clientClock.position + bias);
    }
    const halfRtt = ((endpoint?.rttMinMs ?? 0) / 1000) * TICK_RATE * 0.5;
    sync.update(clock.now, halfRtt + scene.bufferTicks + sender.leadAdjustTicks + bias);
  }
  return { takes, sender, stats: inputs.stats(0)! };
}

const meanDepth = (takes: { depth: number }[]) => takes.reduce((s, x) => s + x.depth, 0) / takes.length;

describe('input channel on the real stack (MessageServer + simulated link + ClockSync)', () => {
  it('at 20% loss every input reaches the server: at most a rare repeat after the start-up, inputs as pushed', () => {
    const { takes, sender, stats } = run(SEED, {
      latency: 50,
      jitter: 0,
      loss: 20,
      seconds: 8,
      bufferTicks: 4,
    });
    const settled = takes.filter((x) => x.at >= 2);
    console.log(
      `  20% loss: ${stats.received} inputs, ${stats.duplicates} redundant copies, starved ${stats.starved} (${settled.filter((x) => x.starved).length} after 2 s), mean depth ${meanDepth(settled).toFixed(2)}, ${sender.stats().corrections} corrections`,
    );
    assert.ok(settled.length > 300, `${settled.length} takes`);
    // Every packet resends the unacked inputs, but five lost in a row (at 20%, 1 in 3000) outlast
    // the 4-tick buffer: GW_SEED=1049198025 repeated one tick at 3.4 s (2 of 100 fresh seeds did,
    // none more). Without the resending about a fifth of the takes would repeat.
    const repeats = settled.filter((x) => x.starved).length;
    assert.ok(repeats <= 2, `seed ${SEED}: ${repeats} repeats after the start-up`);
    assert.equal(takes.filter((x) => x.mismatch).length, 0, 'every input consumed equals the one pushed');
  });

  it('a client whose clock is made to lag is brought back to the target depth within a second', () => {
    const bufferTicks = 2;
    const { takes, sender } = run(SEED, {
      latency: 30,
      jitter: 0,
      loss: 0,
      seconds: 7,
      bufferTicks,
      fixedTarget: true,
      bias: { at: 3, ticks: -3 },
    });
    const firstStarved = takes.find((x) => x.at >= 3 && x.depth <= 0);
    assert.ok(firstStarved !== undefined, 'the lag starves the buffer');
    const back = takes.find((x) => x.at > firstStarved.at && x.depth >= bufferTicks - 0.5);
    const after = takes.filter((x) => x.at >= firstStarved.at + 1);
    console.log(
      `  lag: starved at ${firstStarved.at.toFixed(2)} s, back to depth ${bufferTicks} after ${back === undefined ? 'never' : (back.at - firstStarved.at).toFixed(2)} s; mean depth from 1 s later ${meanDepth(after).toFixed(2)}; lead correction ${sender.leadAdjustTicks.toFixed(2)} ticks`,
    );
    assert.ok(back !== undefined && back.at - firstStarved.at <= 1, `seed ${SEED}: not back within 1 s`);
    assert.equal(after.filter((x) => x.starved).length, 0, 'no starvation once recovered');
    assert.ok(
      Math.abs(meanDepth(after) - bufferTicks) <= 0.75,
      `seed ${SEED}: mean depth ${meanDepth(after)}`,
    );
  });

  it('at 50 ms ± 20 ms the depth stays near the target without oscillating', () => {
    const bufferTicks = 2;
    const { takes, sender } = run(SEED, {
      latency: 50,
      jitter: 20,
      loss: 0,
      seconds: 8,
      bufferTicks,
      fixedTarget: true,
    });
    const settled = takes.filter((x) => x.at >= 3);
    const starved = settled.filter((x) => x.starved).length;
    const corrections = settled[settled.length - 1].corrections - settled[0].corrections;
    console.log(
      `  50±20 ms: mean depth from 3 s ${meanDepth(settled).toFixed(2)}, starved ${starved} of ${settled.length}, ${corrections} corrections from 3 s (${sender.stats().corrections} in all), lead correction ${sender.leadAdjustTicks.toFixed(2)}`,
    );
    assert.ok(
      Math.abs(meanDepth(settled) - bufferTicks) <= 0.75,
      `seed ${SEED}: mean depth ${meanDepth(settled)}`,
    );
    assert.ok(starved <= settled.length * 0.02, `seed ${SEED}: ${starved} starved`);
    assert.ok(corrections <= 2, `seed ${SEED}: ${corrections} corrections in 5 s (oscillating?)`);
  });
});
