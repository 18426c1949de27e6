/**
 * The load tester's parent survives what its children may send or fail to take: a malformed stats
 * message is ignored, a stop sent on a channel that just closed does not crash it.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { parseRoomStats, tellStop } from '../../scripts/loadtest-run.js';

describe('the load tester guards', () => {
  it("ignores stats messages that are not JSON or not a room process's counters", () => {
    for (const bad of ['', '{', 'null', '42', '"x"', '{}', '{"processId":1}', '{"processId":"p","udp":{}}'])
      assert.equal(parseRoomStats(bad), null, bad);
    const good = {
      processId: 'p1',
      countedAt: 1.7e12,
      udp: { sent: 1 },
      load: { clients: 0 },
      refused: {},
      eventLoop: { idleMs: 1, activeMs: 1 },
    };
    assert.equal(parseRoomStats(JSON.stringify({ ...good, countedAt: undefined })), null, 'no countedAt');
    assert.equal(parseRoomStats(JSON.stringify({ ...good, eventLoop: undefined })), null, 'no eventLoop');
    assert.deepEqual(parseRoomStats(JSON.stringify(good)), good);
  });

  it('sends stop so that a channel closed meanwhile is not an uncaught error', () => {
    // As Node's ChildProcess does: a failed send goes to its callback, or else is emitted as 'error'.
    const child = new (class extends EventEmitter {
      sent: unknown[] = [];
      send(message: unknown, callback?: (error: Error | null) => void): boolean {
        this.sent.push(message);
        const error = new Error('Channel closed');
        if (callback === undefined) this.emit('error', error);
        else queueMicrotask(() => callback(error));
        return false;
      }
    })();
    assert.doesNotThrow(() => tellStop(child as unknown as ChildProcess));
    assert.deepEqual(child.sent, [{ type: 'stop' }]);
  });
});
