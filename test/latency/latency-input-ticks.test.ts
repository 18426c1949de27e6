import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { InputReceiver, InputSender } from '../../src/latency/index.js';
import { TICK_REACH } from '../../src/latency/input-wire.js';
import { t } from '../../src/schema/schema.js';
import { messageSession } from '../support/message-session.js';

/**
 * The tick rules of the input path (docs/latency.md, "Tick rules") on the real stack: a
 * MessageServer with an InputReceiver, an honest client leading the server by 3 ticks and a
 * hostile one whose InputSender claims ticks at the ends of the uint32 range.
 */
const Input = t.object({ x: t.int(-100, 100) });
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);
const MAX_TICK = 2 ** 32 - 1;
const HONEST = 0;
const HOSTILE = 1;

function scene(options: { serverStart: number; frozen?: boolean; claim?: number; updates: number }) {
  const inputs = new InputReceiver({ schema: Input, tickRate: 60, maxClients: 2 });
  const session = messageSession({ protocolId: 93n, factory, channels: [inputs.channel], maxClients: 2 });
  const client = (sender: InputSender<{ x: number }>, address: string) =>
    new MessageClient({
      transport: session.network.createTransport(address),
      aead: nobleAead,
      factory,
      channels: [sender.channel],
    });
  const honestSender = new InputSender({ schema: Input });
  const hostileSender = new InputSender({ schema: Input });
  const honest = client(honestSender, '10.0.0.1:1');
  const hostile = client(hostileSender, '10.0.0.2:1');
  honest.connect(session.token(1n), session.clock.now);
  for (let i = 0; i < 100 && !honest.connected; i++) session.tick([honest]);
  hostile.connect(session.token(2n), session.clock.now);
  for (let i = 0; i < 100 && !hostile.connected; i++) session.tick([honest, hostile]);
  assert.ok(honest.connected && hostile.connected, 'both connect');
  assert.equal(session.server.stats(HONEST).state, 'connected');
  assert.equal(session.server.stats(HOSTILE).state, 'connected');

  let serverTick = options.serverStart;
  if (options.claim !== undefined) hostileSender.push(options.claim, { x: 1 });
  const mismatches: string[] = [];
  let taken = 0;
  for (let u = 0; u < options.updates; u++) {
    // The honest client leads by 3 ticks (as far as the tick range lets it).
    const lead = Math.min(MAX_TICK, serverTick + 3);
    if (lead > honestSender.newestTick) honestSender.push(lead, { x: lead % 100 });
    const got = inputs.take(HONEST, serverTick);
    if (got !== null) {
      taken++;
      const tick = inputs.lastInputTick(HONEST);
      const starved = inputs.stats(HONEST)!.starved;
      if (starved === 0 && got.x !== tick % 100) mismatches.push(`tick ${tick}: ${got.x}`);
    }
    inputs.take(HOSTILE, serverTick);
    session.tick([honest, hostile]); // MessageServer.update writes the reports of these takes
    if (options.frozen !== true && serverTick < MAX_TICK) serverTick++;
  }
  return { inputs, session, honestSender, mismatches, taken };
}

describe('input tick rules on the real stack (MessageServer + InputReceiver)', () => {
  it("a seated client's input claiming tick 2^32-1 (and its neighbours) never makes MessageServer.update throw: refused, counted, the honest client unaffected", () => {
    const claims = [MAX_TICK, MAX_TICK - 1, MAX_TICK - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 16 + 1000];
    for (const claim of claims) {
      const { inputs, session, honestSender, mismatches, taken } = scene({
        serverStart: 1000,
        claim,
        updates: 120,
      });
      const rejected = session.server.stats(HOSTILE).messages.packetsRejected;
      assert.ok(rejected > 0, `claim ${claim}: the packet is refused`);
      assert.match(session.server.lastRejection(HOSTILE) ?? '', /far from the server tick/, `claim ${claim}`);
      assert.equal(inputs.stats(HOSTILE)?.received, 0, `claim ${claim}: a refused packet changes nothing`);
      assert.equal(inputs.lastInputTick(HOSTILE), -1);
      assert.equal(
        session.server.stats(HONEST).messages.packetsRejected,
        0,
        'the honest client is never refused',
      );
      assert.ok(taken > 100, `${taken} honest takes`);
      assert.deepEqual(mismatches, [], 'the honest inputs are consumed as pushed');
      assert.ok(honestSender.appliedInputTick(1100) >= 1000, 'the honest client gets its reports');
    }
  });

  it('ticks within the reach of the server tick are accepted, either side; one further is refused', () => {
    const at = 40_000;
    for (const [claim, accepted] of [
      [at + TICK_REACH, true],
      [at + TICK_REACH + 1, false],
      [at - TICK_REACH, true],
      [at - TICK_REACH - 1, false],
    ] as const) {
      const { inputs, session } = scene({ serverStart: at, frozen: true, claim, updates: 5 });
      const rejected = session.server.stats(HOSTILE).messages.packetsRejected;
      assert.equal(rejected === 0, accepted, `claim ${claim}: ${session.server.lastRejection(HOSTILE)}`);
      assert.equal(inputs.stats(HOSTILE)?.received, accepted ? 1 : 0);
    }
  });

  it('a server at the end of the tick range: the cursor stops at 2^32-1, the reports never throw', () => {
    const { inputs, session, mismatches } = scene({ serverStart: MAX_TICK - 40, updates: 80 });
    assert.equal(inputs.lastInputTick(HONEST), MAX_TICK);
    assert.ok(inputs.stats(HONEST)!.starved > 0, 'past the last tick the last input repeats');
    assert.deepEqual(mismatches, []);
    assert.equal(session.server.stats(HONEST).messages.packetsRejected, 0);
  });
});
