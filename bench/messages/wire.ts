/** The messages bench, parts 4 and 5: bytes on the wire, and allocation per packet. */

import type { ChannelConfig } from '../../src/channels/config.js';
import { defineMessage, MessageFactory } from '../../src/channels/message.js';
import { MessageConnection } from '../../src/channels/message-connection.js';
import { t } from '../../src/schema/schema.js';
import { check, fmt, type SuiteContext } from '../harness.js';
import { allocatedPerIteration } from '../support/allocation.js';
import { expectNext, netcodePair } from './pair.js';
import { Bench32, benchChannels, benchFactory, fillWords, printRows } from './shared.js';

// --- 4. bytes on the wire ---------------------------------------------------------------------------

export function runOverhead(ctx: SuiteContext): void {
  // How many fit in one packet, from a plain MessageConnection.
  const probe = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const probeReceiver = new MessageConnection({ factory: benchFactory, channels: benchChannels });
  const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
  for (let i = 0; i < 300; i++) probe.send(0, Bench32, fillWords(value, i));
  const first = probe.writePacket(0).data;
  check(probeReceiver.readPacket(first, 0, first.length), 'messages: overhead probe packet rejected');
  let perPacket = 0;
  while (probeReceiver.receive(0) !== null) perPacket++;
  const sizes = [1, 10, 100, perPacket];
  const p = netcodePair();
  const index = p.clientIndex;
  let next = 0;
  let expected = 0;
  const settle = () => {
    for (let i = 0; i < 10; i++) {
      p.now += 1 / 60;
      p.client.update(p.now);
      p.server.update(p.now);
    }
  };
  settle();
  const rows: string[][] = [];
  for (const count of sizes) {
    // Channel data alone: the same messages through a fresh MessageConnection.
    const c = new MessageConnection({ factory: benchFactory, channels: benchChannels });
    for (let i = 0; i < count; i++) c.send(0, Bench32, fillWords(value, i));
    let channelBytes = 0;
    for (let i = 0; i < 100 && c.queueDepths()[0].send > 0; i++) {
      const { data, record } = c.writePacket(i * 1000);
      channelBytes += data.length;
      c.acked(record);
    }
    for (let i = 0; i < count; i++) p.client.send(0, Bench32, fillWords(value, next++));
    const target = expected + count;
    let datagrams = 0;
    let bytes = 0;
    let seqBytes = 0;
    for (let i = 0; i < 100 && expected < target; i++) {
      p.now += 1 / 60;
      const before = { sent: p.transport.sent, bytes: p.transport.bytes };
      p.client.update(p.now);
      datagrams += p.transport.sent - before.sent;
      bytes += p.transport.bytes - before.bytes;
      seqBytes = p.transport.lastPrefix >> 4;
      p.server.update(p.now);
      for (let m = p.server.receive(index, 0); m !== null; m = p.server.receive(index, 0))
        expected = expectNext(m, expected, 'overhead');
    }
    check(expected === target, `messages: overhead: ${count} messages not delivered`);
    const netcode = datagrams * (1 + seqBytes + 16);
    const reliable = bytes - netcode - channelBytes;
    rows.push([
      count === perPacket ? `${count} (a full packet)` : String(count),
      String(datagrams),
      String(bytes),
      `${channelBytes - count * 32} / ${reliable} / ${netcode}`,
      (bytes / count).toFixed(1),
      (bytes / count - 32).toFixed(1),
      ((bytes + 28 * datagrams) / count - 32).toFixed(1),
    ]);
    ctx.record(`overhead ${count}`, {
      datagrams,
      bytes,
      channelBytes,
      reliable,
      netcode,
      perMessage: bytes / count,
    });
    settle();
  }
  ctx.note('');
  ctx.note(
    'Bytes on the wire: 32-byte messages sent in one go from a connected MessageClient (default 1150-byte budget), netcode datagrams counted until all arrived:',
  );
  printRows(
    ctx,
    [
      'messages',
      'datagrams',
      'bytes',
      'channel framing / reliable hdr / netcode',
      'bytes/msg',
      'overhead/msg',
      '+IPv4/UDP (28)',
    ],
    rows,
  );
  ctx.note(
    '  bytes = netcode datagram sizes (prefix, sequence, encrypted payload, 16-byte MAC); channel framing = channel-data bytes beyond 32 per message;',
  );
  ctx.note(
    `  netcode = 1 prefix + sequence bytes + 16 MAC per datagram; reliable hdr = the rest. Over ${perPacket} messages a message rides in a later packet.`,
  );
}

// --- 5. allocation per packet --------------------------------------------------------------------

export async function runAllocation(ctx: SuiteContext): Promise<void> {
  const iterations = ctx.options.quick ? 50_000 : 200_000;
  const Position = defineMessage(
    'position',
    t.object({ x: t.float(-512, 512, 0.01), z: t.float(-512, 512, 0.01) }),
  );
  const factory = new MessageFactory([Bench32, Position]);
  const channels: ChannelConfig[] = [{ kind: 'reliable-ordered' }, { kind: 'unreliable-sequenced' }];
  const directPair = (messages: boolean) => {
    const a = new MessageConnection({ factory, channels });
    const b = new MessageConnection({ factory, channels });
    const value = fillWords([0, 0, 0, 0, 0, 0, 0, 0], 0);
    const position = { x: 1.5, z: -2.25 };
    let tick = 0; // an integer: a captured double would be a new heap number per step
    return (n: number) => {
      for (let i = 0; i < n; i++) {
        const now = ++tick / 60;
        if (messages) {
          a.send(0, Bench32, value);
          a.send(1, Position, position);
        }
        const out = a.writePacket(now);
        const record = out.record;
        b.readPacket(out.data, 0, out.data.length);
        a.acked(record);
        while (b.receive(0) !== null);
        while (b.receive(1) !== null);
        const back = b.writePacket(now);
        a.readPacket(back.data, 0, back.data.length);
      }
    };
  };
  const netcode = () => {
    const p = netcodePair({});
    return (n: number) => {
      for (let i = 0; i < n; i++) {
        p.now += 1 / 60;
        p.client.update(p.now);
        p.server.update(p.now);
      }
    };
  };
  const rows = [
    ['two MessageConnections, empty packets', await allocatedPerIteration(directPair(false), iterations)],
    [
      'two MessageConnections, a 32-byte reliable + a sequenced message per packet',
      await allocatedPerIteration(directPair(true), iterations),
    ],
    [
      'MessageClient <-> MessageServer (netcode, node:crypto), empty packets',
      await allocatedPerIteration(netcode(), iterations / 10),
    ],
  ] as const;
  ctx.note('');
  ctx.note(
    'Allocation per step (one packet each way), sampled by V8 with collected objects counted (bench/support/allocation.ts):',
  );
  for (const [name, bytes] of rows) {
    ctx.note(`  ${name}: ${fmt(Math.round(bytes))} bytes`);
    ctx.record(`allocation: ${name}`, bytes);
  }
  ctx.note(
    "  empty packets: the 16 bytes are the step's time, a double passed to a call and so boxed as a heap number (any game loop pays it once per tick);",
  );
  ctx.note(
    '  with messages: each message keeps its serialized bytes until acked and arrives as a new value; the netcode row is node:crypto cipher objects and views.',
  );
}
