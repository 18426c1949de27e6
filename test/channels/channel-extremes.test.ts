/**
 * Reliable channels at Fiedler's extremes (10 s one way, ±2 s jitter, 25% loss, 50% duplicates)
 * behind MessageServer / MessageClient with default settings, and blocks from a hostile peer.
 *
 * The sessions tick at 20 Hz to keep CPU time down: what these tests pin is the round trip against
 * what the packet layer covers, and the old defaults (256 sent packets, 12.8 s at 20 Hz; a 10 s
 * ack timeout) fall short of a 20-24 s round trip at 20 Hz just as at 60 Hz.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Block,
  defineMessage,
  MessageConnection,
  MessageFactory,
  type ReceivedMessage,
} from '../../src/channels/index.js';
import type { ReliableOrderedChannel } from '../../src/channels/reliable-ordered.js';
import type { ReliableConfig } from '../../src/packet/config.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { type LinkConditions, NetworkSimulator } from '../../src/transport/simulator.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('channel extremes');
const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(40) }));
const factory = new MessageFactory([Chat]);
const EXTREMES: LinkConditions = { latency: 10_000, jitter: 2_000, loss: 25, duplicates: 50 };
const TICK = 1 / 20;

/** A server and one client connected over a clean link, which then turns to `conditions`. */
function extremeSession(seed: number, conditions: LinkConditions, reliable?: Partial<ReliableConfig>) {
  const lateAtServer: number[] = [];
  const lateAtClient: number[] = [];
  const session = messageSession({
    protocolId: 9n,
    factory,
    channels: [{ kind: 'reliable-ordered' }],
    reliable,
    onLateAcks: (_index, n) => lateAtServer.push(n),
  });
  const { server, clock } = session;
  const link = new NetworkSimulator(session.network.createTransport('10.0.0.1:1'), { seed });
  const client = session.client(link, { reliable, onLateAcks: (n) => lateAtClient.push(n) });
  // A connection timeout above the longest silence: the 10-12 s before the first packet comes through.
  client.connect(session.token(1n, 60), clock.now);
  const tick = () => session.tick([client], TICK);
  for (let i = 0; i < 20; i++) tick();
  assert.ok(client.connected, 'connected over the clean link');
  link.setConditions('outgoing', conditions);
  link.setConditions('incoming', conditions);
  const index = client.client.clientIndex;
  return { server, client, clock, tick, index, lateAtServer, lateAtClient };
}

/** Everything received so far on channel 0: chat numbers, and blocks as 'block:<length>'. */
function drainInto(out: unknown[], next: () => ReceivedMessage | null): void {
  for (let m = next(); m !== null; m = next()) {
    out.push(m.type === Block ? `block:${(m.value as Uint8Array).length}` : (m.value as { n: number }).n);
  }
}

describe(`reliable channels at 10 s ± 2 s one way, 25% loss, 50% duplicates (seed ${SEED})`, () => {
  it('reliable messages and blocks keep flowing both ways with default settings: once, in order, every ack matched', () => {
    const s = extremeSession(SEED, EXTREMES);
    const next = prng(SEED);
    const expected: unknown[][] = [[], []]; // [to the client, to the server]
    const got: unknown[][] = [[], []];
    const blocks: Uint8Array[][] = [[], []];
    // Two minutes of traffic: a message each way every half second, and a 4 KiB block each way.
    for (let tick = 0; tick * TICK < 120; tick++) {
      if (tick % 10 === 0) {
        const n = tick / 10;
        s.server.send(s.index, 0, Chat, { n, text: 'to the client' });
        s.client.send(0, Chat, { n, text: 'to the server' });
        expected[0].push(n);
        expected[1].push(n);
      }
      if (tick === 600 || tick === 1200) {
        for (const dir of [0, 1]) {
          const data = randomBytes(next, 4096);
          if (dir === 0) s.server.sendBlock(s.index, 0, data);
          else s.client.sendBlock(0, data);
          expected[dir].push('block:4096');
          blocks[dir].push(data);
        }
      }
      s.tick();
      drainInto(got[0], () => s.client.receive(0));
      drainInto(got[1], () => s.server.receive(s.index, 0));
    }
    // Then until everything is in and acked (at most eight more minutes of simulated time).
    const settled = () =>
      got[0].length === expected[0].length &&
      got[1].length === expected[1].length &&
      s.server.stats(s.index).queues[0].send === 0 &&
      s.client.stats().queues[0].send === 0;
    for (let tick = 0; tick * TICK < 480 && !settled(); tick++) {
      s.tick();
      drainInto(got[0], () => s.client.receive(0));
      drainInto(got[1], () => s.server.receive(s.index, 0));
    }
    assert.deepEqual(got[0], expected[0], 'server to client: every message and block once, in order');
    assert.deepEqual(got[1], expected[1], 'client to server: every message and block once, in order');
    assert.equal(s.server.stats(s.index).queues[0].send, 0, 'the server saw every item acked');
    assert.equal(s.client.stats().queues[0].send, 0, 'the client saw every item acked');
    assert.equal(s.server.stats(s.index).lateAcks, 0, 'no ack came too late to be matched');
    assert.equal(s.client.stats().lateAcks, 0);
    assert.deepEqual(s.lateAtServer, []);
    assert.deepEqual(s.lateAtClient, []);
  });

  it('acks that come back too late to be matched are counted and reported loudly on both ends', () => {
    // The old defaults: a 256-packet sent buffer and a 10 s ack timeout, short of a 20 s round trip.
    const s = extremeSession((SEED ^ 3) >>> 0, EXTREMES, { sentPacketsBufferSize: 256, ackTimeout: 10 });
    for (let tick = 0; tick * TICK < 60; tick++) {
      if (tick % 20 === 0) {
        s.server.send(s.index, 0, Chat, { n: tick, text: '' });
        s.client.send(0, Chat, { n: tick, text: '' });
      }
      s.tick();
      while (s.client.receive(0) !== null) {}
      while (s.server.receive(s.index, 0) !== null) {}
    }
    const atServer = s.server.stats(s.index).lateAcks;
    const atClient = s.client.stats().lateAcks;
    assert.ok(atServer > 0 && atClient > 0, `late acks counted: server ${atServer}, client ${atClient}`);
    assert.ok(s.lateAtServer.length > 0 && s.lateAtClient.length > 0, 'onLateAcks called on both ends');
    // At most once a second, each report the count since the last one.
    assert.ok(s.lateAtServer.length <= 60);
    assert.ok(s.lateAtServer.reduce((a, b) => a + b, 0) <= atServer);
    assert.ok(s.server.stats(s.index).queues[0].send > 0, 'and the messages stay unfreed');
  });

  it('a 1-byte block at the head leaves once acked and does not hold the messages behind it', () => {
    const s = extremeSession((SEED ^ 5) >>> 0, EXTREMES);
    s.server.sendBlock(s.index, 0, new Uint8Array([42]));
    for (let n = 0; n < 10; n++) s.server.send(s.index, 0, Chat, { n, text: 'behind the block' });
    const got: unknown[] = [];
    let ackedAt = Number.POSITIVE_INFINITY;
    const start = s.clock.now;
    for (let tick = 0; tick * TICK < 90; tick++) {
      s.tick();
      drainInto(got, () => s.client.receive(0));
      if (ackedAt === Number.POSITIVE_INFINITY && s.server.stats(s.index).queues[0].send === 0)
        ackedAt = s.clock.now - start;
    }
    assert.deepEqual(got, ['block:1', ...Array(10).keys()]);
    // The acks that count travel the fastest paths (8 s each way): measured 17-18.5 s over eight
    // seeds; resent every 1.25 × RTT instead, the block held the channel for over 150 s.
    assert.ok(ackedAt < 30, `block and messages all acked after ${ackedAt.toFixed(1)} s`);
  });
});

describe(`blocks: resend policy (seed ${SEED})`, () => {
  it('block fragments follow resendInterval and resendCopies, and the messages behind the block ride along', () => {
    const sender = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    sender.sendBlock(0, new Uint8Array([7]));
    sender.send(0, Chat, { n: 1, text: 'behind' });
    const blockTicks: number[] = [];
    const messageTicks: number[] = [];
    // Every packet is lost: record what each tick (60 Hz) carried.
    for (let tick = 0; tick < 25; tick++) {
      const { record } = sender.writePacket(tick / 60);
      if (record.length === 0) continue;
      // [channel, length, 1 (block), id, fragment count, fragments..., message ids...] or
      // [channel, length, 0 (messages), message ids...]
      const messagesAt = record[2] === 1 ? 5 + record[4] : 3;
      if (record[2] === 1) blockTicks.push(tick);
      if (record.length > messagesAt) messageTicks.push(tick);
    }
    assert.deepEqual(blockTicks, [0, 6, 7, 12, 18, 24], 'fragment: first resend twice, then every 0.1 s');
    assert.deepEqual(messageTicks, [0, 6, 7, 12, 18, 24], 'the message rides in the same packets');
  });

  it('a large block does not hold back the messages behind it: they fill the room its fragments leave', () => {
    const sender = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    const receiver = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    const block = new Uint8Array(10 * 1024).map((_, i) => i);
    sender.sendBlock(0, block);
    for (let n = 0; n < 3; n++) sender.send(0, Chat, { n, text: 'behind' });
    const got: unknown[] = [];
    let messagesAt = -1;
    for (let tick = 0; tick < 30 && got.length < 4; tick++) {
      const { data, record } = sender.writePacket(tick / 60);
      assert.ok(receiver.readPacket(data, 0, data.length), String(receiver.lastRejection));
      // Nothing acked yet: the messages must have travelled beside the fragments.
      if (messagesAt < 0 && record[2] === 1 && record.length > 5 + record[4]) messagesAt = tick;
      for (let m = receiver.receive(0); m !== null; m = receiver.receive(0)) got.push(m.value);
    }
    assert.equal(messagesAt, 0, 'the first packet carries a fragment and the messages');
    assert.deepEqual(got, [block, ...[0, 1, 2].map((n) => ({ n, text: 'behind' }))]);
  });

  it('unacked fragments go round-robin: every fragment once before any is resent, then each first resend twice', () => {
    const fragmentsSent = (size: number, ticks: number) => {
      const sender = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
      sender.sendBlock(0, new Uint8Array(size));
      const out: number[] = [];
      // Every packet is lost (a round trip longer than the run); one 1024-byte fragment per packet.
      for (let tick = 0; tick < ticks; tick++) {
        const { record } = sender.writePacket(tick / 60);
        out.push(record.length === 0 ? -1 : record[5]); // [channel, length, block, id, count, fragment]
      }
      return out;
    };
    // Lowest-index-first would resend fragment 0 at tick 6, before fragments 6-9 were ever sent.
    assert.deepEqual(fragmentsSent(10 * 1024, 22), [...Array(10).keys(), 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    // Five fragments: nothing due at tick 5; later resends go once per interval.
    assert.deepEqual(
      fragmentsSent(5 * 1024, 20),
      [0, 1, 2, 3, 4, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 1, 2, 3],
    );
  });

  it('a fully acked block leaves at once: the next packet carries what follows it', () => {
    const sender = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    sender.sendBlock(0, new Uint8Array(3000)); // three fragments of 1024 bytes
    sender.sendBlock(0, new Uint8Array(10));
    const records = [0, 1, 2].map((tick) => sender.writePacket(tick / 60).record.slice());
    for (const r of records) assert.equal(r[2], 1, 'a fragment of the first block');
    for (const r of records) sender.acked(r);
    const { record } = sender.writePacket(3 / 60);
    assert.deepEqual(record.slice(2, 4), [1, 1], 'the second block (id 1) goes in the very next packet');
  });
});

describe(`blocks from a hostile peer (seed ${SEED})`, () => {
  /** The packet carrying the first fragment of a block of `size` bytes with id `id`. */
  const firstFragment = (size: number, messagesBefore = 0): Uint8Array => {
    const peer = new MessageConnection({
      factory,
      channels: [{ kind: 'reliable-ordered', maxBlockBytes: 1 << 20 }],
    });
    for (let n = 0; n < messagesBefore; n++) peer.send(0, Chat, { n, text: '' });
    if (messagesBefore > 0) peer.acked(peer.writePacket(0).record.slice());
    peer.sendBlock(0, new Uint8Array(size).fill(size & 0xff));
    return peer.writePacket(1).data.slice();
  };

  it("a block's size is fixed by its first fragment: a conflicting size or a second block refuses the packet, and the buffer is reused", () => {
    const channels = [{ kind: 'reliable-ordered' as const, maxBlockBytes: 1 << 20 }];
    const receiver = new MessageConnection({ factory, channels });
    const big = firstFragment(256 * 1024);
    const other = firstFragment(128 * 1024);
    assert.ok(receiver.readPacket(big, 0, big.length), String(receiver.lastRejection));
    for (let k = 0; k < 200; k++) {
      assert.equal(receiver.readPacket(other, 0, other.length), false);
      assert.match(
        String(receiver.lastRejection),
        /block 0 declared 131072 bytes; its first fragment said 262144/,
      );
      assert.ok(receiver.readPacket(big, 0, big.length), 'the first size still applies');
    }
    const second = firstFragment(10, 1); // block id 1
    assert.equal(receiver.readPacket(second, 0, second.length), false);
    assert.match(String(receiver.lastRejection), /block 1 while block 0 is incomplete/);
    const channel = receiver.channels[0] as ReliableOrderedChannel;
    // One buffer of 256 KiB (and its fragment map), not one per packet.
    assert.ok(channel.blockBytesAllocated < 300 * 1024, `${channel.blockBytesAllocated} bytes allocated`);
    assert.deepEqual(receiver.blockProgress(0).receiving, { receivedBytes: 1024, totalBytes: 256 * 1024 });
    // A message taking the incomplete block's id ends that block: the next block is taken.
    const sender = new MessageConnection({ factory, channels });
    sender.send(0, Chat, { n: 0, text: 'id 0' });
    const message = sender.writePacket(0).data.slice();
    assert.ok(receiver.readPacket(message, 0, message.length), String(receiver.lastRejection));
    assert.deepEqual(receiver.receive(0)?.value, { n: 0, text: 'id 0' });
    assert.ok(receiver.readPacket(second, 0, second.length), String(receiver.lastRejection));
    assert.deepEqual(receiver.blockProgress(0).receiving, null, 'block 1 (10 bytes) complete');
    assert.deepEqual(receiver.receive(0)?.value, new Uint8Array(10).fill(10));
  });

  it('an authenticated client alternating the declared size of one block id is refused and stays bounded', () => {
    const session = messageSession({ protocolId: 11n, factory, channels: [{ kind: 'reliable-ordered' }] });
    const { server, clock } = session;
    const client = session.client(session.network.createTransport('10.0.0.1:1'));
    client.connect(session.token(1n), clock.now);
    const tick = () => session.tick([client]);
    for (let i = 0; i < 20; i++) tick();
    const index = client.client.clientIndex;
    const peer = (size: number) => {
      const c = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
      c.sendBlock(0, new Uint8Array(size));
      return c.writePacket(0).data.slice();
    };
    const sizes = [peer(256 * 1024), peer(255 * 1024)];
    for (let k = 0; k < 100; k++) {
      const data = sizes[k & 1];
      client.client.send(data, data.length, []); // channel data of its own making, under its own keys
      tick();
    }
    const stats = server.stats(index).messages;
    assert.ok(client.connected, 'the connection stays up');
    assert.ok(stats.packetsRejected >= 45, `${stats.packetsRejected} conflicting packets refused`);
    const connection = (server as unknown as { connections: MessageConnection[] }).connections[index];
    const channel = connection.channels[0] as ReliableOrderedChannel;
    assert.ok(channel.blockBytesAllocated < 300 * 1024, `${channel.blockBytesAllocated} bytes allocated`);
  });
});
