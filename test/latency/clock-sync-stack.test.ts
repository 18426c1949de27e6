import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { ClockSync, TickClock } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import { ClientMirror, defineEntity, ReplicationServer, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { NetworkSimulator } from '../../src/transport/network-simulator.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

/**
 * Clock sync on the real stack: a server world stepped by a TickClock at 60 Hz, replicated through
 * MessageServer and a simulated link to a ClientMirror; the client samples mirror.newestTick with
 * the packet layer's newest RTT sample and steers its own TickClock.
 */
const SEED = testSeed('clock-sync stack');

const Cube = defineEntity('cube', t.object({ x: t.float(-64, 64, 1 / 64) }));
const types = [Cube];
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(8) }))]);

function run(seed: number, latency: number, jitter: number, loss: number, seconds: number) {
  const next = prng(seed);
  const world = new ServerWorld({ types, capacity: 4 });
  const replication = new ReplicationServer({ world, maxClients: 1 });
  const session = messageSession({
    protocolId: 91n,
    factory,
    channels: [replication.channel],
    maxClients: 1,
  });
  const mirror = new ClientMirror({ types, capacity: 4 });
  const link = new NetworkSimulator(session.network.createTransport('10.0.0.1:1'), { seed });
  const client = new MessageClient({ transport: link, aead: nobleAead, factory, channels: [mirror.channel] });
  const { clock } = session;
  link.setConditions('outgoing', { latencyMs: latency, jitterMs: jitter, loss });
  link.setConditions('incoming', { latencyMs: latency, jitterMs: jitter, loss });
  client.connect(session.token(1n), clock.now);
  for (let i = 0; i < 150 && !client.connected; i++) session.tick([client], 1 / 30);
  assert.ok(client.connected, 'the client connects');

  const cube = world.create(Cube, { x: 0 });
  const serverClock = new TickClock({ tickRate: 60, startTick: world.tick() });
  const clientClock = new TickClock({ tickRate: 60 });
  const sync = new ClockSync(clientClock);
  const start = clock.now;
  serverClock.advance(start);
  const errors: { at: number; error: number }[] = [];
  let sampled = -1;
  while (clock.now - start < seconds) {
    clock.now += 0.004 + next() * 0.012;
    // The server steps its world on its own clock and sends right after.
    serverClock.advance(clock.now, (tick) => {
      world.set(cube, { x: Math.sin(tick / 30) * 10 });
      assert.equal(world.tick(), tick);
    });
    session.server.update(clock.now);
    client.update(clock.now);
    const rttMs = client.client.endpoint?.rttSampleMs ?? 0;
    if (mirror.newestTick !== sampled && mirror.newestTick > 0) {
      sampled = mirror.newestTick;
      sync.addSample(clock.now, sampled, rttMs);
    }
    clientClock.advance(clock.now);
    sync.update(clock.now);
    if (sync.synced)
      errors.push({ at: clock.now - start, error: sync.estimate(clock.now) - serverClock.position });
  }
  return { errors, sync, clientClock, serverClock };
}

function worstFrom(errors: { at: number; error: number }[], from: number): number {
  return errors.filter((e) => e.at >= from).reduce((most, e) => Math.max(most, Math.abs(e.error)), 0);
}

describe('ClockSync on the real stack (MessageServer + ReplicationServer → simulated link → ClientMirror)', () => {
  // Looser than the packet-level scene (test/latency/clock-sync.test.ts: within one tick): here the RTT also
  // holds both ends' frame waits before acking, so half its minimum overstates the one-way delay by
  // about half a tick (measured mean +0.16..0.77 ticks at 60 Hz, 20 seeds); see docs/latency.md.
  // At 150 ± 30 ms the mean's tail passes a tick: 0.24..0.93 over 150 fresh seeds, but
  // GW_SEED=1244050284 gave 1.11 (its worst error 1.17, within the bound), so it is held to 1.25.
  for (const [latency, jitter, loss, settled, bound, meanBound] of [
    [50, 20, 0, 2, 1.25, 1],
    [150, 30, 5, 3, 1.5, 1.25],
  ])
    it(`${latency} ms ± ${jitter} ms, ${loss}% loss: the estimate is within ${bound} ticks from ${settled} s on`, () => {
      const { errors, sync, clientClock, serverClock } = run(SEED, latency, jitter, loss, 8);
      const profile = [0.5, 1, 1.5, 2, 3, 4, 6].map((t) => `${t}s:${worstFrom(errors, t).toFixed(2)}`);
      console.log(`  ${latency}±${jitter} ms ${loss}%: worst |estimate error| from: ${profile.join(' ')}`);
      const late = errors.filter((e) => e.at >= settled);
      const mean = late.reduce((sum, e) => sum + e.error, 0) / late.length;
      console.log(
        `  ${latency}±${jitter} ms ${loss}%: mean error from ${settled} s: ${mean.toFixed(2)} ticks`,
      );
      assert.ok(sync.stats().samples > 100, `${sync.stats().samples} samples`);
      assert.ok(worstFrom(errors, settled) <= bound, `seed ${SEED}: ${worstFrom(errors, settled)} ticks`);
      assert.ok(Math.abs(mean) < meanBound, `seed ${SEED}: biased by ${mean} ticks`);
      assert.equal(sync.stats().jumps, 1, 'only the first placement');
      assert.ok(Math.abs(clientClock.position - serverClock.position) <= bound);
    });
});
