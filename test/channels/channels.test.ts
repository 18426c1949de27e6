import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../../src/channels/index.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { NetworkSimulator } from '../../src/transport/simulator.js';
import { messagePair } from '../support/message-pair.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('channel tests');
const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(200) }));
const Position = defineMessage(
  'position',
  t.object({ n: t.uint32(), x: t.float(-512, 512, 0.01), y: t.float(-512, 512, 0.01) }),
);
const Blob = defineMessage('blob', t.object({ n: t.uint32(), data: t.bytes(1000) }));
const factory = new MessageFactory([Chat, Position, Blob]);
const RELIABLE = 0;
const UNRELIABLE = 1;
const SEQUENCED = 2;
const channels = [
  { kind: 'reliable-ordered' as const, priority: 1 },
  { kind: 'unreliable-unordered' as const },
  { kind: 'unreliable-sequenced' as const, priority: 2 },
];

/** Drains a channel's received messages into an array. */
function drain(connection: MessageConnection, channel: number): unknown[] {
  const out: unknown[] = [];
  for (let m = connection.receive(channel); m !== null; m = connection.receive(channel)) out.push(m.value);
  return out;
}

const numbers = (messages: unknown[]) => messages.map((m) => (m as { n: number }).n);

describe(`messages and channels (seed ${SEED})`, () => {
  it('reliable-ordered: everything exactly once, in order, byte-identical, under loss, duplicates and latency', () => {
    const pair = messagePair(SEED, factory, channels, { latency: 100, jitter: 50, loss: 25, duplicates: 25 });
    const next = prng(SEED);
    const sent: unknown[] = [];
    const got: unknown[] = [];
    for (let tick = 0; tick < 600; tick++) {
      const burst = Math.floor(next() * 8);
      for (let k = 0; k < burst; k++) {
        const n = sent.length;
        if (k % 3 === 2) {
          const value = { n, data: randomBytes(next, Math.floor(next() * 300)) };
          pair.a.connection.send(RELIABLE, Blob, value);
          sent.push(value);
        } else {
          const value = { n, text: `message ${n} ${'é'.repeat(Math.floor(next() * 20))}` };
          pair.a.connection.send(RELIABLE, Chat, value);
          sent.push(value);
        }
      }
      pair.step();
      got.push(...drain(pair.b.connection, RELIABLE));
    }
    for (let tick = 0; tick < 600 && got.length < sent.length; tick++) {
      pair.step();
      got.push(...drain(pair.b.connection, RELIABLE));
    }
    assert.equal(got.length, sent.length);
    assert.deepEqual(got, sent);
    for (let tick = 0; tick < 120; tick++) pair.step(); // the last acks travel back
    assert.equal(pair.a.connection.queueDepths()[RELIABLE].send, 0, 'every message acked and freed');
  });

  it('a reliable stream completes under 90% loss', () => {
    const pair = messagePair((SEED ^ 1) >>> 0, factory, channels, { loss: 90 });
    for (let n = 0; n < 50; n++) pair.a.connection.send(RELIABLE, Chat, { n, text: 'x' });
    const got: unknown[] = [];
    for (let tick = 0; tick < 60 * 60 && got.length < 50; tick++) {
      pair.step();
      got.push(...drain(pair.b.connection, RELIABLE));
    }
    assert.deepEqual(numbers(got), [...Array(50).keys()]);
  });

  it('a full receive queue holds the sender back and loses nothing; unreliable ones over it are dropped and counted', () => {
    const small = [
      { kind: 'reliable-ordered' as const, receiveQueueSize: 32, sendQueueSize: 4096 },
      { kind: 'unreliable-unordered' as const, receiveQueueSize: 8 },
    ];
    const pair = messagePair((SEED ^ 7) >>> 0, factory, small, { latency: 30, jitter: 10, loss: 5 });
    for (let n = 0; n < 2000; n++) pair.a.connection.send(RELIABLE, Chat, { n, text: 'x' });
    // The receiving application does not drain for 5 s: the queue fills and stays full.
    for (let tick = 0; tick < 300; tick++) {
      pair.a.connection.send(UNRELIABLE, Position, { n: tick, x: 0, y: 0 });
      pair.step();
    }
    assert.equal(pair.b.connection.queueDepths()[RELIABLE].receive, 32, 'the receive queue is full');
    assert.equal(pair.b.connection.queueDepths()[UNRELIABLE].receive, 8);
    assert.ok(
      pair.b.connection.counters.messagesDropped > 0,
      'unreliable messages over the limit are counted',
    );
    const got: unknown[] = [];
    for (let tick = 0; tick < 60 * 60 && got.length < 2000; tick++) {
      pair.step();
      got.push(...drain(pair.b.connection, RELIABLE));
    }
    assert.deepEqual(numbers(got), [...Array(2000).keys()], 'every reliable message, once, in order');
  });

  it('unreliable-unordered: at most once; unreliable-sequenced: never older than what was delivered', () => {
    const pair = messagePair((SEED ^ 2) >>> 0, factory, channels, {
      latency: 50,
      jitter: 40,
      loss: 10,
      duplicates: 20,
      reorder: 20,
    });
    const unordered: number[] = [];
    const sequenced: number[] = [];
    for (let n = 0; n < 500; n++) {
      pair.a.connection.send(UNRELIABLE, Chat, { n, text: '' });
      pair.a.connection.send(SEQUENCED, Position, { n, x: n / 10, y: -n / 10 });
      pair.step();
      unordered.push(...numbers(drain(pair.b.connection, UNRELIABLE)));
      sequenced.push(...numbers(drain(pair.b.connection, SEQUENCED)));
    }
    assert.equal(new Set(unordered).size, unordered.length, 'no duplicates');
    assert.ok(unordered.length > 300 && unordered.length < 500, `${unordered.length} delivered`);
    for (let i = 1; i < sequenced.length; i++)
      assert.ok(sequenced[i] > sequenced[i - 1], 'sequenced never goes back');
    assert.ok(sequenced.length > 200);
  });

  it('unreliable queues wrap around their capacity many times, keeping order and sequence', () => {
    const small = [
      { kind: 'unreliable-unordered' as const, sendQueueSize: 3, receiveQueueSize: 3 },
      { kind: 'unreliable-sequenced' as const, sendQueueSize: 3, receiveQueueSize: 3 },
    ];
    const sender = new MessageConnection({ factory, channels: small });
    const receiver = new MessageConnection({ factory, channels: small });
    const got: number[][] = [[], []];
    let n = 0;
    for (let tick = 0; tick < 200; tick++) {
      const burst = tick % 4; // 0 to 3: the queues fill to capacity and drain, over and over
      for (let k = 0; k < burst; k++, n++) {
        sender.send(0, Chat, { n, text: '' });
        sender.send(1, Chat, { n, text: '' });
      }
      if (burst === 3)
        assert.throws(() => sender.send(0, Chat, { n, text: '' }), /send queue is full \(3 messages/);
      const { data } = sender.writePacket(tick / 60);
      assert.ok(receiver.readPacket(data, 0, data.length), String(receiver.lastRejection));
      for (const channel of [0, 1]) got[channel].push(...numbers(drain(receiver, channel)));
    }
    const all = [...Array(n).keys()];
    assert.deepEqual(got[0], all);
    assert.deepEqual(got[1], all);
  });

  it('packs channels into one packet within the budget, by priority', () => {
    const connection = new MessageConnection({ factory, channels, packetBudgetBytes: 200 });
    for (let n = 0; n < 40; n++) connection.send(RELIABLE, Chat, { n, text: 'abcdefghij' });
    connection.send(SEQUENCED, Position, { n: 1, x: 1, y: 2 });
    const { data, record } = connection.writePacket(0);
    assert.ok(data.length <= 200, `${data.length} bytes`);
    // Only the reliable channel has ids to free on the ack.
    assert.equal(record[0], RELIABLE);
    const peer = new MessageConnection({ factory, channels });
    assert.ok(peer.readPacket(data, 0, data.length));
    assert.deepEqual(peer.receive(SEQUENCED)?.value, { n: 1, x: 1, y: 2 });
    const reliable = drain(peer, RELIABLE);
    assert.ok(reliable.length >= 5 && reliable.length < 40, `${reliable.length} of 40 fit`);
  });

  it('fails loudly at the call: message too large, full queue, unknown type, bad channel', () => {
    const connection = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered', sendQueueSize: 4, maxMessageBytes: 100 }],
    });
    assert.throws(
      () => connection.send(0, Blob, { n: 0, data: new Uint8Array(200) }),
      /exceeds channel 0's maxMessageBytes \(100\)/,
    );
    for (let n = 0; n < 4; n++) connection.send(0, Chat, { n, text: '' });
    assert.throws(() => connection.send(0, Chat, { n: 5, text: '' }), /send queue is full \(4 messages/);
    const Other = defineMessage('other', t.object({ a: t.bool() }));
    // A type outside the factory is a type error now; untyped callers still get the loud throw.
    // @ts-expect-error Other is not in the factory
    assert.throws(() => connection.send(0, Other, { a: true }), /not registered/);
    assert.throws(
      () => connection.send(3, Chat, { n: 0, text: '' }),
      /send: channel must be an integer in \[0, 0\], got 3/,
    );
    const small = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered' }],
      packetBudgetBytes: 64,
    });
    // The error names the measured size: 2 type bits, 32, a 10-bit length, align (4, at worst 7), 900 bytes.
    assert.throws(
      () => small.send(0, Blob, { n: 0, data: new Uint8Array(900) }),
      /a blob message of about 90[6-7] bytes does not fit in a packet \(64 bytes\)/,
    );
  });

  it('invalid channel data is rejected whole and changes nothing', () => {
    const pair = messagePair((SEED ^ 3) >>> 0, factory, channels);
    const next = prng(SEED ^ 3);
    const got: unknown[] = [];
    let junkAccepted = 0;
    let truncated = 0;
    for (let n = 0; n < 200; n++) {
      pair.a.connection.send(RELIABLE, Chat, { n, text: 'ok' });
      // A real packet cut short is always invalid (its end is missing): it must change nothing.
      const real = pair.a.connection.writePacket(pair.now).data.slice();
      for (let cut = 1; cut < real.length; cut += 3) {
        assert.equal(pair.b.connection.readPacket(real, 0, real.length - cut), false, `cut ${cut}`);
        truncated++;
      }
      // Random junk is bad almost always; whatever parses is counted (integrity is the AEAD's job).
      const junk = randomBytes(next, 1 + Math.floor(next() * 300));
      if (pair.b.connection.readPacket(junk, 0, junk.length)) junkAccepted++;
      pair.step();
      got.push(...drain(pair.b.connection, RELIABLE));
    }
    for (let tick = 0; tick < 120; tick++) {
      pair.step();
      got.push(...drain(pair.b.connection, RELIABLE));
    }
    assert.ok(truncated > 200);
    assert.ok(pair.b.connection.counters.packetsRejected >= truncated);
    if (junkAccepted === 0) assert.deepEqual(numbers(got), [...Array(200).keys()]);
    else assert.ok(junkAccepted < 5, `${junkAccepted} random packets parsed`);
  });

  it('blocks and messages mixed, in one order, byte-identical, under loss, duplicates and latency; progress both ends', () => {
    const pair = messagePair((SEED ^ 5) >>> 0, factory, channels, {
      latency: 80,
      jitter: 20,
      loss: 10,
      duplicates: 10,
    });
    const next = prng(SEED ^ 5);
    const expected: unknown[] = [];
    const sendBlock = (size: number) => {
      const data = randomBytes(next, size);
      pair.a.connection.sendBlock(RELIABLE, data);
      expected.push(data);
    };
    const sendChat = (n: number) => {
      pair.a.connection.send(RELIABLE, Chat, { n, text: 'between blocks' });
      expected.push({ n, text: 'between blocks' });
    };
    sendChat(0);
    sendBlock(64 * 1024);
    sendChat(1);
    sendBlock(1);
    sendBlock(256 * 1024); // the default maximum
    sendChat(2);
    const got: unknown[] = [];
    const sendingProgress: number[] = [];
    const receivingProgress: number[] = [];
    for (let tick = 0; tick < 60 * 60 && got.length < expected.length; tick++) {
      pair.step();
      const progress = pair.a.connection.blockProgress(RELIABLE);
      if (progress.sending) sendingProgress.push(progress.sending.ackedBytes / progress.sending.totalBytes);
      const incoming = pair.b.connection.blockProgress(RELIABLE).receiving;
      if (incoming) receivingProgress.push(incoming.receivedBytes / incoming.totalBytes);
      for (let m = pair.b.connection.receive(RELIABLE); m !== null; m = pair.b.connection.receive(RELIABLE))
        got.push(m.value);
    }
    assert.equal(got.length, expected.length);
    assert.deepEqual(got, expected);
    assert.ok(
      sendingProgress.some((p) => p > 0 && p < 1),
      'sender saw partial progress',
    );
    assert.ok(
      receivingProgress.some((p) => p > 0 && p < 1),
      'receiver saw partial progress',
    );
  });

  it('block limits fail loudly: over maxBlockBytes, empty, or on a channel that is not reliable-ordered', () => {
    const connection = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered', maxBlockBytes: 4096 }, { kind: 'unreliable-unordered' }],
    });
    assert.throws(() => connection.sendBlock(0, new Uint8Array(4097)), /maxBlockBytes/);
    assert.throws(() => connection.sendBlock(0, new Uint8Array(0)), /1 to 4096 bytes/);
    assert.throws(() => connection.sendBlock(1, new Uint8Array(10)), /reliable-ordered/);
    // A fragment that could never fit the channel's budget would stall the channel silently.
    assert.throws(
      () =>
        new MessageConnection({
          factory,
          channels: [{ kind: 'reliable-ordered', budgetBytes: 200, blockFragmentBytes: 1024 }],
        }),
      /channel 0 \(reliable-ordered\): blockFragmentBytes must be an integer in \[1, 136\], got 1024/,
    );
    const narrow = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered', budgetBytes: 200 }],
    });
    const peer = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered', budgetBytes: 200 }],
    });
    narrow.sendBlock(0, new Uint8Array(1000).fill(9));
    let block: unknown = null;
    for (let tick = 0; tick < 20 && block === null; tick++) {
      const { data, record } = narrow.writePacket(tick / 60);
      assert.ok(peer.readPacket(data, 0, data.length), String(peer.lastRejection));
      narrow.acked(record.slice());
      block = peer.receive(0)?.value ?? null;
    }
    assert.deepEqual(block, new Uint8Array(1000).fill(9), 'the default fragment fits a narrow budget');
    const big = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered', maxBlockBytes: 4 * 1024 * 1024 }],
    });
    assert.doesNotThrow(
      () => big.sendBlock(0, new Uint8Array(4 * 1024 * 1024)),
      'several MB when configured',
    );
  });

  it('resend timing: the first resend rides in resendCopies packets in a row, later resends once per interval', () => {
    // Every packet is lost: record the ticks (60 Hz) whose packet carried the message.
    const carried = (resendCopies: number, ticks: number) => {
      const sender = new MessageConnection({
        factory,
        channels: [{ kind: 'reliable-ordered', resendInterval: 0.1, resendCopies }],
      });
      sender.send(0, Chat, { n: 7, text: 'again' });
      const out: number[] = [];
      for (let tick = 0; tick < ticks; tick++) {
        if (sender.writePacket(tick / 60).data.length > 1) out.push(tick);
      }
      return { ticks: out, resent: sender.counters.messagesResent };
    };
    assert.deepEqual(carried(1, 25), { ticks: [0, 6, 12, 18, 24], resent: 4 });
    assert.deepEqual(carried(2, 25), { ticks: [0, 6, 7, 12, 18, 24], resent: 5 });
    assert.deepEqual(carried(3, 25), { ticks: [0, 6, 7, 8, 12, 18, 24], resent: 6 });
    // The copy reaches the receiver when the resend before it is lost too.
    const sender = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    const receiver = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    sender.send(0, Chat, { n: 8, text: 'copy' });
    for (let tick = 0; tick <= 7; tick++) {
      const { data } = sender.writePacket(tick / 60);
      if (tick === 7) assert.ok(receiver.readPacket(data, 0, data.length));
    }
    assert.deepEqual(numbers(drain(receiver, 0)), [8]);
    assert.throws(
      () => new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered', resendCopies: 0 }] }),
      /resendCopies must be an integer in \[1, 8\]/,
    );
  });

  it('message types from unified serialize functions travel with schema ones; one that throws on read refuses the packet', () => {
    const Hit = defineMessage('hit', {
      create: () => ({ target: 0, damage: 0, critical: false }),
      serialize: (s, m) => {
        m.target = s.int(m.target, 0, 4095);
        m.damage = s.int(m.damage, 0, 255);
        m.critical = s.bool(m.critical);
        // Code that trips over a value it did not expect, as user code may.
        if (s.isReading && m.damage === 13) throw new Error('unlucky damage');
      },
    });
    const mixed = new MessageFactory([Chat, Hit]);
    const sender = new MessageConnection({ factory: mixed, channels: [{ kind: 'reliable-ordered' }] });
    const receiver = new MessageConnection({ factory: mixed, channels: [{ kind: 'reliable-ordered' }] });
    const strongest = { target: 4095, damage: 255, critical: true };
    const chat = { n: 1, text: 'between' };
    const weakest = { target: 0, damage: 0, critical: false };
    sender.send(0, Hit, strongest);
    sender.send(0, Chat, chat);
    sender.send(0, Hit, weakest);
    const first = sender.writePacket(0).data;
    assert.ok(receiver.readPacket(first, 0, first.length), String(receiver.lastRejection));
    assert.deepEqual(drain(receiver, 0), [strongest, chat, weakest]);
    // A value out of range fails at the call.
    assert.throws(() => sender.send(0, Hit, { target: 4096, damage: 0, critical: false }), RangeError);
    // The reader's exception is caught: the packet is refused whole, with the reason.
    sender.send(0, Hit, { target: 1, damage: 13, critical: false });
    const second = sender.writePacket(1).data;
    assert.equal(receiver.readPacket(second, 0, second.length), false);
    assert.match(
      String(receiver.lastRejection),
      /message hit: serialize threw while reading \(unlucky damage\)/,
    );
    assert.deepEqual(drain(receiver, 0), []);
    assert.throws(
      () => defineMessage('broken', { serialize: () => {} } as never),
      /a serialize function needs create\(\)/,
    );
  });

  it('sparse reliable traffic keeps working across packet sequence wrap (70,000 packets between messages)', () => {
    const pair = messagePair((SEED ^ 4) >>> 0, factory, channels);
    const got: unknown[] = [];
    for (let round = 0; round < 3; round++) {
      pair.a.connection.send(RELIABLE, Chat, { n: round, text: 'sparse' });
      for (let tick = 0; tick < 35_000; tick++) {
        pair.step();
        got.push(...drain(pair.b.connection, RELIABLE));
      }
    }
    assert.deepEqual(numbers(got), [0, 1, 2]);
    assert.equal(pair.a.connection.queueDepths()[RELIABLE].send, 0);
  });
});

describe(`MessageServer and MessageClient over netcode (seed ${SEED})`, () => {
  it('chat and positions between a server and three clients over a lossy link, reliable ones in order', () => {
    const session = messageSession({ protocolId: 1n, factory, channels });
    const { network, server, clock } = session;
    const clients = [0, 1, 2].map((i) => {
      const transport = new NetworkSimulator(network.createTransport(`10.0.0.${i + 1}:1`), {
        seed: (SEED + i) >>> 0,
        outgoing: { latency: 60, jitter: 30, loss: 5, duplicates: 5 },
        incoming: { latency: 60, jitter: 30, loss: 5, duplicates: 5 },
      });
      const client = session.client(transport);
      client.connect(session.token(BigInt(i + 1)), clock.now);
      return client;
    });
    const tick = () => session.tick(clients);
    for (let i = 0; i < 120; i++) tick();
    assert.ok(clients.every((c) => c.connected));
    const received = clients.map(() => [] as number[]);
    const atServer = clients.map(() => [] as number[]);
    for (let n = 0; n < 200; n++) {
      clients.forEach((c, i) => {
        c.send(RELIABLE, Chat, { n, text: `from ${i}` });
        c.send(SEQUENCED, Position, { n, x: i, y: n / 100 });
        server.send(c.client.clientIndex, RELIABLE, Chat, { n, text: 'to you' });
      });
      tick();
      clients.forEach((c, i) => {
        received[i].push(...numbers(drain2(() => c.receive(RELIABLE))));
        atServer[i].push(...numbers(drain2(() => server.receive(c.client.clientIndex, RELIABLE))));
      });
    }
    for (let i = 0; i < 180; i++) {
      tick();
      clients.forEach((c, k) => {
        received[k].push(...numbers(drain2(() => c.receive(RELIABLE))));
        atServer[k].push(...numbers(drain2(() => server.receive(c.client.clientIndex, RELIABLE))));
      });
    }
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(
        received[i],
        [...Array(200).keys()],
        `client ${i} got every reliable message in order`,
      );
      assert.deepEqual(atServer[i], [...Array(200).keys()], `server got client ${i}'s in order`);
    }
    const s = server.stats(clients[0].client.clientIndex);
    assert.ok(s.rtt > 100 && s.messages.messagesReceived >= 200);
  });
});

describe(`disconnect with queued messages (seed ${SEED})`, () => {
  it('a disconnect drops the queues on both ends; a reconnect starts fresh channels', () => {
    const disconnects: string[] = [];
    const session = messageSession({
      protocolId: 2n,
      factory,
      channels,
      onDisconnect: (_index, _id, reason) => disconnects.push(reason),
    });
    const { server, clock } = session;
    const client = session.client(session.network.createTransport('10.0.0.1:1'));
    const token = () => session.token(7n);
    const tick = () => session.tick([client]);
    assert.throws(() => client.send(RELIABLE, Chat, { n: 0, text: 'too early' }), /not connected/);
    client.connect(token(), clock.now);
    for (let i = 0; i < 30; i++) tick();
    assert.ok(client.connected);
    const index = client.client.clientIndex;
    // Queued both ways, never sent: the client and the server disconnect before the next update.
    for (let n = 0; n < 50; n++) {
      client.send(RELIABLE, Chat, { n, text: 'queued' });
      server.send(index, RELIABLE, Chat, { n, text: 'queued' });
    }
    client.disconnect();
    for (let i = 0; i < 10; i++) tick();
    assert.deepEqual(disconnects, ['client disconnected']);
    assert.equal(client.connected, false);
    assert.equal(client.receive(RELIABLE), null);
    assert.throws(() => client.send(RELIABLE, Chat, { n: 0, text: 'after' }), /not connected/);
    assert.throws(() => server.send(index, RELIABLE, Chat, { n: 0, text: 'after' }), /not connected/);
    client.connect(token(), clock.now);
    for (let i = 0; i < 30; i++) tick();
    assert.ok(client.connected);
    const again = client.client.clientIndex;
    client.send(RELIABLE, Chat, { n: 1000, text: 'fresh' });
    server.send(again, RELIABLE, Chat, { n: 2000, text: 'fresh' });
    for (let i = 0; i < 30; i++) tick();
    assert.deepEqual(numbers(drain2(() => server.receive(again, RELIABLE))), [1000], 'none of the old queue');
    assert.deepEqual(numbers(drain2(() => client.receive(RELIABLE))), [2000]);
    assert.deepEqual(server.stats(again).queues[RELIABLE], { send: 0, receive: 0 });
  });
});

function drain2(next: () => { value: unknown } | null): unknown[] {
  const out: unknown[] = [];
  for (let m = next(); m !== null; m = next()) out.push(m.value);
  return out;
}
