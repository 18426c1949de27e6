/** Blocks: their resend policy, and blocks from a hostile peer. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageConnection, MessageFactory } from '../src/channels/index.js';
import type { ReliableOrderedChannel } from '../src/channels/reliable-ordered.js';
import { t } from '../src/schema/schema.js';
import { messageSession } from './support/message-session.js';
import { testSeed } from './support/seed.js';

const SEED = testSeed('channel extremes');
const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(40) }));
const factory = new MessageFactory([Chat]);

describe(`blocks: resend policy (seed ${SEED})`, () => {
  it('block fragments follow resendInterval and resendCopies, and messages behind the block ride in between', () => {
    const sender = new MessageConnection({ factory, channels: [{ kind: 'reliable-ordered' }] });
    sender.sendBlock(0, new Uint8Array([7]));
    sender.send(0, Chat, { n: 1, text: 'behind' });
    const blockTicks: number[] = [];
    const messageTicks: number[] = [];
    // Every packet is lost: record what each tick (60 Hz) carried.
    for (let tick = 0; tick < 25; tick++) {
      const { record } = sender.writePacket(tick / 60);
      if (record.length === 0) continue;
      // A record is [channel, count, kind (0 messages, 1 block), ...].
      (record[2] === 1 ? blockTicks : messageTicks).push(tick);
    }
    assert.deepEqual(blockTicks, [0, 6, 7, 12, 18, 24], 'fragment: first resend twice, then every 0.1 s');
    assert.deepEqual(messageTicks, [1, 8, 9, 14, 20], 'the message goes in the packets with no fragment due');
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
  });

  it('an authenticated client alternating the declared size of one block id is refused and stays bounded', () => {
    const session = messageSession({ protocolId: 11n, factory, channels: [{ kind: 'reliable-ordered' }] });
    const { server, clock } = session;
    const client = session.client(session.network.createTransport('10.0.0.1:1'));
    client.connect(session.token(1n), clock.now);
    const tick = () => {
      clock.now += 1 / 60;
      server.update(clock.now);
      client.update(clock.now);
    };
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
