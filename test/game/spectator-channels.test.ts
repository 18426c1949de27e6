/**
 * The spectator's request channel, both ends: a request is written until acked and read back
 * whole; the server takes `perSecond` requests a second at most and refuses ids beyond the world
 * and cameras that are not finite, each counted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScratchList } from '../../src/channels/scratch-list.js';
import {
  type ReadRequest,
  SpectatorRequestReceiver,
  SpectatorRequestSender,
} from '../../src/game/spectator-channels.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import { WriteStream } from '../../src/serialize/write-stream.js';

function wire(sender: SpectatorRequestSender, record: ScratchList<number>): Uint8Array | null {
  if (sender.select(0, 1000) === 0) return null;
  const ws = new WriteStream(64);
  sender.writeSelected(ws, 0, record);
  return ws.finish();
}

function receiver(clock: { now: number }, taken: ReadRequest[], refused: string[]) {
  return new SpectatorRequestReceiver(
    1024,
    10,
    () => clock.now,
    (request) => {
      taken.push(request);
      return true;
    },
    (reason) => refused.push(reason),
  );
}

function deliver(server: SpectatorRequestReceiver, bytes: Uint8Array): boolean {
  const rs = new ReadStream();
  rs.reset(bytes);
  const staged = new ScratchList<unknown>();
  if (!server.read(rs, staged)) return false;
  server.apply(staged);
  return true;
}

describe('spectator request channel', () => {
  it('sends the newest request until a packet carrying it is acked, and the server reads it whole', () => {
    const sender = new SpectatorRequestSender();
    const record = new ScratchList<number>();
    assert.equal(wire(sender, record), null, 'nothing to send before a request');
    const clock = { now: 0 };
    const taken: ReadRequest[] = [];
    const server = receiver(clock, taken, []);
    sender.set({ camera: { x: 12.5, y: -3 } });
    const first = wire(sender, record)!;
    assert.ok(deliver(server, first));
    assert.ok(deliver(server, wire(sender, record)!), 'repeated until acked');
    assert.equal(taken.length, 1, 'a repeat is taken once');
    assert.deepEqual({ ...taken[0], version: 0 }, { version: 0, follow: -1, x: 12.5, y: -3 });
    sender.acked(record.toArray(), 0, record.length);
    assert.equal(wire(sender, record), null, 'acked: no more sends');
    sender.set({ follow: 7 });
    assert.ok(deliver(server, wire(sender, record)!));
    assert.equal(taken[1].follow, 7);
  });

  it('takes 10 requests a second at most; refuses bad ids and cameras, counted', () => {
    const clock = { now: 0 };
    const taken: ReadRequest[] = [];
    const refused: string[] = [];
    const server = receiver(clock, taken, refused);
    const sender = new SpectatorRequestSender();
    const record = new ScratchList<number>();
    for (let i = 0; i < 50; i++) {
      sender.set({ camera: { x: i, y: 0 } });
      deliver(server, wire(sender, record)!);
    }
    assert.equal(taken.length, 10);
    assert.equal(refused.filter((r) => r === 'over the request rate').length, 40);
    clock.now = 1;
    sender.set({ follow: 3 });
    deliver(server, wire(sender, record)!);
    assert.equal(taken.length, 11, 'a second later the bucket refilled');
    sender.set({ follow: 1024 });
    assert.equal(deliver(server, wire(sender, record)!), false, 'an id beyond the world fails the packet');
    sender.set({ camera: { x: Number.NaN, y: 0 } });
    assert.equal(deliver(server, wire(sender, record)!), false);
    sender.set({ camera: { x: 0, y: Number.POSITIVE_INFINITY } });
    assert.equal(deliver(server, wire(sender, record)!), false);
    assert.equal(taken.length, 11);
    assert.deepEqual(refused.slice(40), [
      'follow id beyond the world',
      'camera outside the world',
      'camera outside the world',
    ]);
  });
});
