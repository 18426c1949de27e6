import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CustomChannel,
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../../src/channels/index.js';
import type { ScratchList } from '../../src/channels/scratch-list.js';
import { t } from '../../src/schema/schema.js';
import type { ReadStream } from '../../src/serialize/read-stream.js';
import type { WriteStream } from '../../src/serialize/write-stream.js';
import { messageSession } from '../support/message-session.js';

/** A custom channel shares the packet, budget, all-or-nothing read and ack records with messages. */
const Chat = defineMessage('chat', t.object({ text: t.string(50) }));
const factory = new MessageFactory([Chat]);

/** Sends its newest value until a packet carrying it is acked; refuses values above 1000. */
class Counter implements CustomChannel {
  value = 0;
  acked_ = -1;
  applied: number[] = [];
  budgets: number[] = [];
  constructor(readonly clientIndex: number) {}
  select(_now: number, budgetBits: number): number {
    this.budgets.push(budgetBits);
    return this.value !== this.acked_ && budgetBits >= 16 ? 1 : 0;
  }
  writeSelected(ws: WriteStream, _now: number, record: ScratchList<number>): void {
    ws.bits(this.value, 16);
    record.push(this.value);
  }
  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    const v = rs.bits(0, 16);
    if (v > 1000) rs.fail('counter above 1000');
    staged.push(v);
    return rs.ok;
  }
  apply(staged: ScratchList<unknown>): void {
    for (let i = 0; i < staged.length; i++) this.applied.push(staged.items[i] as number);
  }
  acked(record: PacketRecord, start: number, end: number): void {
    assert.equal(end - start, 1);
    this.acked_ = record[start];
  }
}

function pair() {
  const made: Counter[] = [];
  const channels = [
    { kind: 'reliable-ordered' as const },
    {
      kind: 'custom' as const,
      priority: 5,
      budgetBytes: 40,
      create: (clientIndex: number) => {
        const c = new Counter(clientIndex);
        made.push(c);
        return c;
      },
    },
  ];
  const a = new MessageConnection({ factory, channels, clientIndex: 3 });
  const b = new MessageConnection({ factory, channels, clientIndex: 0 });
  return { a, b, ca: made[0], cb: made[1] };
}

describe('custom channels', () => {
  it('write into the same packet within their budget and hear of acks through their record', () => {
    const { a, b, ca, cb } = pair();
    assert.equal(ca.clientIndex, 3);
    assert.equal(cb.clientIndex, 0);
    ca.value = 7;
    a.send(0, Chat, { text: 'hi' });
    const { data, record } = a.writePacket(0);
    assert.ok(ca.budgets[0] <= 40 * 8);
    assert.equal(b.readPacket(data, 0, data.length), true);
    assert.deepEqual(cb.applied, [7]);
    const got = b.receive(0);
    assert.ok(got?.is(Chat) && got.value.text === 'hi');
    a.acked(record);
    assert.equal(ca.acked_, 7);
    // Nothing to say: no entry.
    const idle = a.writePacket(1 / 60);
    assert.equal(idle.data.length, 1);
  });

  it('a bad custom entry refuses the whole packet with its reason', () => {
    const { a, b, ca, cb } = pair();
    ca.value = 2000;
    a.send(0, Chat, { text: 'lost with it' });
    const { data } = a.writePacket(0);
    assert.equal(b.readPacket(data, 0, data.length), false);
    assert.match(b.lastRejection ?? '', /^counter above 1000/);
    assert.deepEqual(cb.applied, []);
    assert.equal(b.receive(0), null);
  });

  it('has no messages: send and receive throw naming the channel', () => {
    const { a } = pair();
    assert.throws(() => a.send(1, Chat, { text: 'x' }), /channel 1 is custom/);
    assert.throws(() => a.receive(1), /channel 1 is custom/);
    assert.throws(() => a.sendBlock(1, new Uint8Array(1)), /channel 1 is custom/);
  });

  it('is checked: create is required, and a check-only connection never calls it', () => {
    assert.throws(
      () => new MessageConnection({ factory, channels: [{ kind: 'custom' } as never] }),
      /needs create/,
    );
    let calls = 0;
    const c = new MessageConnection({
      factory,
      channels: [
        {
          kind: 'custom',
          create: () => {
            calls++;
            return new Counter(0);
          },
        },
      ],
    });
    assert.equal(calls, 0);
    assert.equal(c.writePacket(0).data.length, 1);
  });

  it("on a MessageServer, hear the link's round trip and loss before each packet when they ask", () => {
    const heard: { rtt: number; loss: number; now: number }[] = [];
    class Listening extends Counter {
      link(rtt: number, packetLoss: number, now: number): void {
        heard.push({ rtt, loss: packetLoss, now });
      }
    }
    const channels = [
      { kind: 'reliable-ordered' as const },
      { kind: 'custom' as const, create: (clientIndex: number) => new Listening(clientIndex) },
    ];
    const session = messageSession({ protocolId: 0x11n, factory, channels });
    const client = session.client(session.network.createTransport('10.0.0.7:7'));
    client.connect(session.token(1n), session.clock.now);
    for (let i = 0; i < 60 && !client.connected; i++) session.tick([client]);
    assert.ok(client.connected, 'the client connects');
    heard.length = 0;
    for (let i = 0; i < 30; i++) session.tick([client]);
    assert.equal(heard.length, 30, 'once per packet the server writes');
    assert.ok(heard.every((h, i) => i === 0 || h.now > heard[i - 1].now));
    assert.ok(heard.at(-1)!.rtt > 0, 'the round trip is measured by then');
    assert.equal(heard.at(-1)!.loss, 0);
    // The newest sample, not the packet layer's slowly smoothed figure: on this loopback link each
    // sample is a tick or two of the test's clock.
    assert.ok(heard.at(-1)!.rtt <= 2 * (1000 / 60) + 1e-9, `a sample of ${heard.at(-1)!.rtt} ms`);
  });
});
