import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../../src/channels/index.js';
import { InputReceiver, type InputReceiverOptions, InputSender } from '../../src/latency/index.js';
import { LeadControl } from '../../src/latency/lead-control.js';
import { prng, randomInt } from '../../src/random/prng.js';
import { SchemaValueError, t } from '../../src/schema/index.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('latency inputs');
const Input = t.object({
  x: t.float(-1, 1, 1 / 128),
  y: t.float(-1, 1, 1 / 128),
  fire: t.bool(),
  jump: t.bool(),
});
type In = { x: number; y: number; fire: boolean; jump: boolean };
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);

/** A sender and a receiver joined by two MessageConnections; packets move only when asked. */
function pair(options: Partial<InputReceiverOptions<In>> = {}, maxUnacked?: number) {
  const sender = new InputSender({ schema: Input, maxUnacked });
  const receiver = new InputReceiver({ schema: Input, tickRate: 60, ...options });
  const client = new MessageConnection({ factory, channels: [sender.channel], clientIndex: 0 });
  const server = new MessageConnection({ factory, channels: [receiver.channel], clientIndex: 0 });
  let now = 0;
  return {
    sender,
    receiver,
    client,
    server,
    /** Client → server; returns the packet's record (to ack) or null when refused. */
    up(deliver = true): { record: PacketRecord; bytes: Uint8Array } {
      now += 1 / 60;
      const { data, record } = client.writePacket(now);
      const bytes = data.slice();
      if (deliver) assert.ok(server.readPacket(bytes, 0, bytes.length), server.lastRejection ?? '');
      return { record, bytes };
    },
    /** Server → client, acked at once. */
    down(): void {
      now += 1 / 60;
      const { data, record } = server.writePacket(now);
      const bytes = data.slice();
      assert.ok(client.readPacket(bytes, 0, bytes.length), client.lastRejection ?? '');
      server.acked(record);
    },
  };
}

const input = (i: number): In => ({
  x: ((i * 37) % 200) / 100 - 1,
  y: ((i * 11) % 200) / 100 - 1,
  fire: i % 3 === 0,
  jump: i % 5 === 0,
});

describe('input channel wire', () => {
  it('round trips inputs and view ticks in order, quantized as push returned them', () => {
    const p = pair();
    const pushed: In[] = [];
    for (let tick = 100; tick < 110; tick++) pushed.push({ ...p.sender.push(tick, input(tick), tick - 7.3) });
    p.up();
    for (let i = 0; i < 10; i++) {
      assert.deepEqual(p.receiver.take(0, 500 + i), pushed[i]);
      assert.equal(p.receiver.lastInputTick(0), 100 + i);
      assert.ok(Math.abs(p.receiver.viewTick(0) - (100 + i - 7.3)) <= 1 / 512);
    }
    assert.equal(p.receiver.stats(0)?.received, 10);
    assert.equal(p.receiver.stats(0)?.starved, 0);
  });

  it('view ticks round trip through every form: none, unchanged, small and large changes', () => {
    const p = pair();
    // Offsets (tick - view): none, 4, 4 (same), 4.01 (a tiny change), none, none, 46, 2 (full),
    // 2.1 (small), 3.5 (full), none.
    const views = [Number.NaN, 96, 97, 97.99, Number.NaN, Number.NaN, 60, 105, 105.9, 105.5, Number.NaN];
    for (let i = 0; i < views.length; i++) p.sender.push(100 + i, input(1), views[i]);
    p.up();
    for (let i = 0; i < views.length; i++) {
      p.receiver.take(0, i);
      const got = p.receiver.viewTick(0);
      if (Number.isNaN(views[i])) assert.ok(Number.isNaN(got), `tick ${100 + i}: ${got}`);
      else
        assert.ok(Math.abs(got - views[i]) <= 2 / 256 + 1 / 512, `tick ${100 + i}: ${got} for ${views[i]}`);
    }
  });

  it('an unchanged input with an unchanged view offset costs 2 bits (1 for the input)', () => {
    const p = pair();
    const sizes: number[] = [];
    for (let tick = 1; tick <= 6; tick++) {
      p.sender.push(tick, input(1), tick - 3);
      const before = p.sender.stats().inputBits;
      p.up(false); // never acked: each packet carries every input so far
      sizes.push(p.sender.stats().inputBits - before);
    }
    for (let k = 1; k < sizes.length; k++) assert.equal(sizes[k] - sizes[k - 1], 2, `${sizes}`);
    const q = pair();
    q.sender.push(1, input(1), 1);
    q.sender.push(2, input(1), 2);
    q.up(false);
    const same = q.sender.stats().inputBits;
    const r = pair();
    r.sender.push(1, input(1), 1);
    r.sender.push(2, input(2), 2);
    r.up(false);
    assert.equal(r.sender.stats().inputBits - same, 20, 'a changed input costs its 20 bits more');
  });

  it('acked inputs are not sent again; the server reports which input tick it applied at which server tick', () => {
    const p = pair({ bufferTicks: 0 }); // no depth for the first input to wait for
    p.sender.push(10, input(1));
    p.sender.push(11, input(2));
    const { record } = p.up();
    p.client.acked(record);
    assert.equal(p.sender.acknowledgedTick, 11);
    assert.equal(p.sender.unacked, 0);
    const before = p.sender.stats().packets;
    p.up();
    assert.equal(p.sender.stats().packets, before, 'nothing to send');
    p.receiver.take(0, 40);
    p.down();
    p.receiver.take(0, 41);
    p.down();
    assert.equal(p.sender.appliedInputTick(40), 10);
    assert.equal(p.sender.appliedInputTick(41), 11);
    assert.equal(p.sender.appliedInputTick(39), -1);
    assert.equal(p.sender.bufferDepth, 0);
    assert.equal(p.sender.stats().feedbacks, 2);
    // The reports' server ticks, which time the server's packets when no ghost section comes.
    assert.equal(p.sender.firstTick, 10);
    assert.equal(p.sender.reportedTick, 41);
    assert.equal(p.sender.reportsApplied, 2);
    assert.deepEqual([p.sender.reportTick(0), p.sender.reportTick(1)], [40, 41]);
    assert.throws(() => p.sender.reportTick(2), RangeError);
    assert.throws(() => p.sender.reportTick(-1), RangeError);
    p.sender.reset();
    assert.equal(p.sender.reportedTick, -1);
    assert.equal(p.sender.firstTick, -1);
    assert.equal(p.sender.reportsApplied, 2, 'never reset: a count, as ClientMirror.sectionsApplied');
  });

  it('ticks go relative (16 bits) once acked, and survive the 16-bit wrap', () => {
    const p = pair({ windowTicks: 64 });
    p.receiver.take(0, 65520); // the server's tick: input ticks are judged against it
    let tick = 65530;
    p.sender.push(tick, input(0));
    p.client.acked(p.up().record);
    const first = p.sender.stats().inputBits;
    for (let i = 0; i < 12; i++) {
      tick++;
      p.sender.push(tick, input(tick));
      const before = p.sender.stats().inputBits;
      p.client.acked(p.up().record);
      assert.ok(p.sender.stats().inputBits - before < first, 'the relative tick is shorter');
    }
    for (let i = 0; i <= 12; i++) p.receiver.take(0, 65521 + i);
    assert.equal(p.receiver.lastInputTick(0), tick);
    assert.equal(p.receiver.stats(0)?.starved, 0);
  });

  it('a gap of skipped ticks repeats the previous input', () => {
    const p = pair();
    const a = { ...p.sender.push(5, input(1)) };
    const b = { ...p.sender.push(9, input(2)) };
    p.up();
    for (let tick = 5; tick <= 9; tick++) assert.deepEqual(p.receiver.take(0, tick), tick < 9 ? a : b);
    assert.equal(p.receiver.stats(0)?.starved, 0);
  });

  it('refuses hostile bytes with a reason, never throwing and changing nothing', () => {
    const next = prng(SEED);
    const p = pair();
    for (let tick = 1; tick <= 20; tick++) p.sender.push(tick, input(tick), tick - 2);
    const real = p.up(false).bytes;
    let refused = 0;
    for (let k = 0; k < 3000; k++) {
      const bytes =
        k % 2 === 0
          ? Uint8Array.from({ length: randomInt(next, 40) }, () => randomInt(next, 256))
          : real.slice(0, randomInt(next, real.length));
      if (k % 2 === 1 && bytes.length > 0) bytes[randomInt(next, bytes.length)] ^= 1 << randomInt(next, 8);
      const before = JSON.stringify(p.receiver.stats(0));
      const ok = p.server.readPacket(bytes, 0, bytes.length);
      if (!ok) {
        refused++;
        assert.ok((p.server.lastRejection ?? '').length > 0);
        assert.equal(JSON.stringify(p.receiver.stats(0)), before, 'a refused packet changes nothing');
      }
    }
    assert.ok(refused > 2000, `${refused} refused`);
    // Without a full tick first, a relative one cannot be read.
    const q = pair();
    q.sender.push(1, input(1));
    q.client.acked(q.up(false).record);
    q.sender.push(2, input(2));
    const relative = q.up(false).bytes;
    assert.equal(q.server.readPacket(relative, 0, relative.length), false);
    assert.match(q.server.lastRejection ?? '', /relative tick before any full tick|bad channel entry/);
    // The client refuses forged reports the same way.
    const forged = Uint8Array.of(0x81, 0xff);
    assert.equal(p.client.readPacket(forged, 0, forged.length), false);
  });
});

describe('input buffer', () => {
  it('repeats the last input when dry (starved) and returns null before the first', () => {
    const p = pair({ bufferTicks: 0 }); // no depth for the first input to wait for
    assert.equal(p.receiver.take(0, 1), null);
    const a = { ...p.sender.push(1, input(1)) };
    p.up();
    assert.deepEqual(p.receiver.take(0, 2), a);
    assert.deepEqual(p.receiver.take(0, 3), a);
    assert.equal(p.receiver.stats(0)?.starved, 1);
    assert.equal(p.receiver.lastInputTick(0), 2, 'the cursor moves on one per take');
    // Tick 2 arrives too late: counted, ignored.
    p.sender.push(2, input(2));
    p.up();
    assert.equal(p.receiver.stats(0)?.late, 1);
    assert.equal(p.receiver.take(1, 3), null, 'a client not connected');
  });

  it('takes the first input once bufferTicks more arrived, after at most bufferTicks takes (the lead is the buffer)', () => {
    const p = pair({ bufferTicks: 2 });
    const a = { ...p.sender.push(10, input(10)) };
    p.up();
    assert.equal(p.receiver.take(0, 1), null, 'nothing behind it: it waits');
    const b = { ...p.sender.push(11, input(11)) };
    p.up();
    assert.equal(p.receiver.take(0, 2), null, 'one behind it: it waits');
    assert.equal(p.receiver.lastInputTick(0), -1);
    p.sender.push(12, input(12));
    p.up();
    assert.deepEqual(p.receiver.take(0, 3), a, 'two behind it: taken');
    assert.deepEqual(p.receiver.take(0, 4), b);
    assert.equal(p.receiver.lastInputTick(0), 11);
    assert.equal(p.receiver.stats(0)?.starved, 0);
    // A client whose inputs trickle in is waited for no longer than bufferTicks takes, and only
    // its first input waits: a dry tick after it repeats the last one (starved).
    const q = pair({ bufferTicks: 2 });
    const c = { ...q.sender.push(10, input(10)) };
    q.up();
    assert.equal(q.receiver.take(0, 1), null);
    assert.equal(q.receiver.take(0, 2), null);
    assert.deepEqual(q.receiver.take(0, 3), c, 'taken after two waits');
    assert.deepEqual(q.receiver.take(0, 4), c);
    assert.equal(q.receiver.stats(0)?.starved, 1);
  });

  it('holds as many input objects as its depth, not one per slot of the window, and takes every input', () => {
    const p = pair({ bufferTicks: 2 });
    const taken = new Set<In>();
    const sent: In[] = [];
    for (let tick = 1; tick <= 200; tick++) {
      sent[tick] = { ...p.sender.push(tick, input(tick)) };
      p.up();
      p.down();
      const value = p.receiver.take(0, tick);
      if (tick > 2) {
        assert.ok(value !== null);
        assert.deepEqual(value, sent[tick - 2], `tick ${tick}`);
        taken.add(value);
      }
    }
    assert.equal(p.receiver.stats(0)?.starved, 0);
    // Two waiting (the depth), the one taken, the one before it handed back: a window of 32 once
    // kept an object in each of its slots.
    assert.ok(taken.size <= 4, `${taken.size} distinct input objects`);
  });

  it('adapts its target: a starved tick after warm-up raises it, 5 s with a tick to spare lower it', () => {
    const p = pair({ bufferTicks: 2, maxBufferTicks: 4 });
    let pushed = 0;
    let serverTick = 0;
    // The client stays `lead` ticks ahead of the server's cursor; a tick steps both.
    const step = (lead: number) => {
      while (pushed < serverTick + lead) p.sender.push(++pushed, input(pushed));
      const { record } = p.up();
      p.client.acked(record);
      p.receiver.take(0, ++serverTick);
    };
    for (let i = 0; i < 150; i++) step(3); // warm-up (2 s at 60 Hz) and beyond, never dry
    const stats = p.receiver.stats(0)!;
    assert.equal(stats.starved, 0);
    assert.equal(stats.target, 2);
    // The two held inputs, then a run of three ticks whose input has not arrived: one event (a
    // stalled client is not jitter), the target rises by one.
    for (let i = 0; i < 5; i++) p.receiver.take(0, ++serverTick);
    assert.equal(stats.starved, 3);
    assert.equal(stats.target, 3, 'a run of starved ticks raises it once');
    pushed = serverTick; // the late inputs are given up; the client catches up
    for (let i = 0; i < 10; i++) step(3);
    // Another: the target rises again, up to maxBufferTicks at most.
    for (let i = 0; i < 4; i++) p.receiver.take(0, ++serverTick);
    assert.equal(stats.starved, 5);
    assert.equal(stats.target, 4, 'raised again, to maxBufferTicks');
    pushed = serverTick; // the late inputs are given up; the client catches up
    for (let i = 0; i < 299; i++) step(3);
    assert.equal(stats.target, 4, 'not before 5 s');
    step(3);
    assert.equal(stats.target, 3, `lowered after 5 s with a tick to spare ${JSON.stringify(stats)}`);
  });

  it('ignores ticks beyond the window, and resyncs a client hopelessly ahead', () => {
    const p = pair({ windowTicks: 8 });
    p.sender.push(1, input(1));
    p.client.acked(p.up().record);
    p.sender.push(12, input(2)); // 2..12: 2..8 fit the window [1, 9), 9..12 do not
    p.client.acked(p.up().record);
    const stats = p.receiver.stats(0)!;
    assert.equal(stats.received, 8);
    assert.equal(stats.ahead, 4);
    p.sender.push(40, input(3)); // 13..40: wholly beyond [1, 9)
    p.up();
    assert.equal(stats.resyncs, 1);
    assert.equal(stats.received, 16);
    assert.equal(p.receiver.take(0, 0) !== null, true);
    assert.equal(p.receiver.lastInputTick(0), 33, 'the cursor moved to the newest window of inputs');
  });

  it('drops new inputs over maxInputsPerSecond', () => {
    // 30 inputs a second at 60 Hz: half a token per take, a bucket of two windows (128).
    const p = pair({ windowTicks: 64, maxInputsPerSecond: 30 });
    let tick = 0;
    let takes = 0;
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 10; i++) p.sender.push(++tick, input(tick));
      p.client.acked(p.up().record);
      for (let i = 0; i < 10; i++) p.receiver.take(0, takes++);
    }
    const stats = p.receiver.stats(0)!;
    assert.ok(stats.flooded > 0, `${stats.flooded} flooded`);
    assert.equal(stats.received + stats.flooded, tick);
    assert.ok(stats.received <= 128 + takes / 2, `${stats.received} received`);
  });

  it('the validator refuses an input: reported, counted, replaced by the previous input', () => {
    const refusals: [number, string, number][] = [];
    const p = pair({
      validate: (v) => (v.jump && v.fire ? 'jump and fire at once' : true),
      onRefusal: (client, reason, tick) => refusals.push([client, reason, tick]),
      bufferTicks: 0, // no depth for the first input to wait for
    });
    const a = { ...p.sender.push(1, { x: 0.5, y: 0, fire: true, jump: false }) };
    p.sender.push(2, { x: 0, y: 0, fire: true, jump: true });
    p.up();
    assert.deepEqual(p.receiver.take(0, 1), a);
    assert.deepEqual(p.receiver.take(0, 2), a);
    assert.deepEqual(refusals, [[0, 'jump and fire at once', 2]]);
    assert.equal(p.receiver.stats(0)?.refused, 1);
    assert.equal(p.receiver.stats(0)?.starved, 0);
  });

  it('a dead link never throws: the oldest unacked inputs stop being resent and are counted', () => {
    const p = pair({}, 16);
    for (let tick = 0; tick < 300; tick++) {
      p.sender.push(tick, input(tick));
      p.up(false);
    }
    assert.equal(p.sender.stats().droppedUnacked, 300 - 16);
    assert.equal(p.sender.unacked, 16);
    p.up();
    assert.equal(p.receiver.stats(0)?.received, 16);
  });
});

describe('input channel misuse throws at the call', () => {
  it('push: ticks, views and values', () => {
    const s = new InputSender({ schema: Input });
    s.push(3, input(3));
    assert.throws(() => s.push(3, input(4)), RangeError);
    assert.throws(() => s.push(2, input(4)), RangeError);
    assert.throws(() => s.push(4.5, input(4)), RangeError);
    assert.throws(() => s.push(4, input(4), 5), RangeError, 'a view tick ahead of the input');
    assert.throws(() => s.push(4, input(4), 4 - 300), RangeError);
    assert.throws(() => s.push(4, { x: 2, y: 0, fire: false, jump: false }), SchemaValueError);
    assert.equal(s.newestTick, 3, 'a refused push changes nothing');
    assert.ok(Math.abs(s.push(4, input(4)).x - input(4).x) <= 1 / 256);
    assert.throws(() => new InputSender({ schema: Input, maxUnacked: 0 }), RangeError);
    assert.throws(() => new InputSender({ schema: t.object({ s: t.string(1000) }) }), RangeError);
  });

  it('receiver: options and client indices', () => {
    assert.throws(() => new InputReceiver({ schema: Input, tickRate: 0 }), RangeError);
    assert.throws(() => new InputReceiver({ schema: Input, tickRate: 60, bufferTicks: 16 }), RangeError);
    assert.throws(() => new InputReceiver({ schema: Input, tickRate: 60, windowTicks: 2 }), RangeError);
    const r = new InputReceiver({ schema: Input, tickRate: 60, maxClients: 2 });
    assert.throws(() => r.take(2, 0), RangeError);
    assert.throws(() => r.take(0, -1), RangeError);
    assert.throws(() => r.take(0, Number.NaN), RangeError);
    assert.equal(r.take(0, 0), null);
    assert.equal(r.stats(1), null);
    assert.ok(Number.isNaN(r.viewTick(0)));
  });
});

describe('time dilation (LeadControl)', () => {
  it('leaves a steady buffer alone, and corrects a steady error once by its mean', () => {
    const c = new LeadControl(15, 64);
    for (let i = 0; i < 300; i++) c.report(i, i % 2 === 0 ? 2 : 1, 2, i + 5); // mean 1.5: within the deadband
    assert.equal(c.corrections, 0);
    for (let i = 300; i < 330; i++) c.report(i, 4, 2, i + 5); // 30 reports of depth 4
    assert.equal(c.corrections, 1);
    assert.equal(c.lead, -2);
    // Reports of inputs pushed before the correction took effect (tick 334 + 20 + 15) are ignored.
    for (let i = 330; i < 369; i++) c.report(i, 4, 2, i + 5);
    assert.equal(c.corrections, 1);
  });

  it('corrects starvation at its second report by the newest depth, even while a slowing correction settles', () => {
    const c = new LeadControl(15, 64);
    for (let i = 0; i < 30; i++) c.report(i, 4, 2, i + 5);
    assert.equal(c.lead, -2, 'slowed');
    c.report(31, -1, 2, 36); // one late packet: not yet
    assert.equal(c.corrections, 1);
    c.report(32, -2, 2, 37);
    assert.equal(c.corrections, 2);
    assert.equal(c.lead, 2, 'the whole deficit (2 - -2) at once');
    // Now speeding up: further starvation waits for that correction's effect.
    c.report(33, -2, 2, 38);
    c.report(34, -2, 2, 39);
    assert.equal(c.corrections, 2);
    assert.equal(new LeadControl(15, 3).lead, 0);
  });
});
