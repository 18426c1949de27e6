import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomChannel } from '../../src/channels/index.js';
import { ScratchList } from '../../src/channels/scratch-list.js';
import { InputReceiver, InputSender } from '../../src/latency/index.js';
import { t } from '../../src/schema/schema.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { type RoomClient, roomChannel } from '../../src/services/index.js';
import { RoutedChannel } from '../../src/services/room-channels.js';
import { roomScene, TestRoom } from '../support/room-scene.js';

const Step = t.object({ dx: t.int(-1, 1) });

/** A TestRoom that also takes its players' inputs through the process's 'inputs' slot. */
class InputRoom extends TestRoom {
  inputs!: InputReceiver<{ dx: number }>;
  readonly taken = new Map<string, number>();

  override onCreate(options: Record<string, unknown>): void {
    super.onCreate(options);
    this.inputs = new InputReceiver({ schema: Step, tickRate: this.tickRate, maxClients: this.slots });
    this.bindChannel('inputs', this.inputs.channel);
  }

  override onTick(tick: number): void {
    for (const client of this.clients) {
      if (this.inputs.take(client.index, tick) !== null)
        this.taken.set(client.userId, (this.taken.get(client.userId) ?? 0) + 1);
    }
  }

  received(client: RoomClient): number {
    return this.inputs.stats(client.index)?.received ?? 0;
  }
}

describe('room channels', () => {
  it("a room's input channel hears only its own clients", async () => {
    const s = await roomScene({
      channels: [roomChannel('replication'), { kind: 'reliable-ordered' }, roomChannel('inputs')],
    });
    s.server.define('inputs', InputRoom, { tickRate: 20 });
    const make = async (tag: string) => {
      const made = await s.server.createRoom('inputs', { tag });
      assert.ok(made.ok);
      return made.room as InputRoom;
    };
    const a = await make('a');
    const b = await make('b');
    const senderA = new InputSender({ schema: Step });
    const senderB = new InputSender({ schema: Step });
    await s.join(a.roomId, 'ann', undefined, [senderA.channel]);
    await s.join(b.roomId, 'bob', undefined, [senderB.channel]);
    await s.run(200);
    for (let tick = 1; tick <= 20; tick++) {
      senderA.push(tick, { dx: 1 });
      if (tick <= 5) senderB.push(tick, { dx: -1 });
      await s.run(50);
    }
    const [ann] = a.clients;
    const [bob] = b.clients;
    assert.equal(a.received(ann), 20);
    assert.equal(b.received(bob), 5);
    assert.ok((a.taken.get('ann') ?? 0) > 0);
    assert.equal(a.taken.get('bob'), undefined);
    assert.deepEqual(s.errors, []);
  });

  it('a RoutedChannel is inert until attached, refuses what it cannot read, then passes everything on', () => {
    const routed = new RoutedChannel();
    assert.equal(routed.select(0, 1000), 0);
    const rs = new ReadStream();
    rs.reset(new Uint8Array(8));
    assert.equal(routed.read(rs, new ScratchList()), false);
    assert.match(rs.error ?? '', /not in a room/);
    const calls: string[] = [];
    const inner: CustomChannel = {
      select: () => {
        calls.push('select');
        return 8;
      },
      writeSelected: () => calls.push('write'),
      read: () => {
        calls.push('read');
        return true;
      },
      apply: () => calls.push('apply'),
      acked: () => calls.push('acked'),
      close: () => calls.push('close'),
      link: () => calls.push('link'),
    };
    routed.attach(inner, (error) => assert.fail(String(error)));
    assert.equal(routed.select(0, 1000), 8);
    assert.equal(routed.read(rs, new ScratchList()), true);
    routed.apply(new ScratchList());
    routed.acked([], 0, 0);
    routed.link(50, 0, 0);
    routed.close();
    routed.close(); // once only
    assert.deepEqual(calls, ['select', 'read', 'apply', 'acked', 'link', 'close']);
    assert.equal(routed.attached, false);
  });
});
