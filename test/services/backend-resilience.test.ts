/**
 * The backend against a directory that is not ready yet (its PROCESS_GONE subscription is retried
 * until it holds), and its options refused at construction when they make no sense.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBackend } from '../../src/services/backend.js';
import { ROOM_GONE } from '../../src/services/backend-refusal.js';
import type { JoinAnswer } from '../../src/services/backend-seats.js';
import type { Unsubscribe } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { createMatchRoom } from '../../src/services/room-placement.js';
import { backendPerTest, call, FakeRoomProcess, guest } from '../support/backend-fixture.js';
import { until } from '../support/directory-contract.js';

/** A directory whose first `failures` subscribe calls reject, as Redis does before it is ready. */
class LateDirectory extends EmbeddedDirectory {
  subscribeCalls = 0;
  constructor(private failures: number) {
    super();
  }
  override async subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe> {
    this.subscribeCalls++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('directory not ready');
    }
    return super.subscribe(channel, handler);
  }
}

const start = backendPerTest();
const KEY = new Uint8Array(32).fill(1);

describe('the PROCESS_GONE subscription', () => {
  it('is retried until the directory takes it, then rooms of a removed process answer 410', async () => {
    const directory = new LateDirectory(2);
    const errors: unknown[] = [];
    const f = await start({ directory, onError: (e) => errors.push(e) });
    await until(() => directory.subscribeCalls >= 3, 'the third subscribe');
    assert.equal(errors.length, 2, 'each refusal is told');
    await FakeRoomProcess.start(f.directory, { processId: 'doomed' });
    const { session } = await guest(f.url);
    const joined = (await call(f.url, 'POST', '/rooms/create', { name: 'arena', transport: 'udp' }, session))
      .body as unknown as JoinAnswer;
    await f.directory.removeProcess('doomed');
    let join = await call(f.url, 'POST', `/rooms/${joined.roomId}/join`, { transport: 'udp' }, session);
    for (let i = 0; i < 100 && join.status !== 410; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      join = await call(f.url, 'POST', `/rooms/${joined.roomId}/join`, { transport: 'udp' }, session);
    }
    assert.deepEqual([join.status, join.body.error], [410, ROOM_GONE]);
  });

  it('stops retrying once closed', async () => {
    const directory = new LateDirectory(Number.POSITIVE_INFINITY);
    const backend = createBackend({ directory, privateKey: KEY, protocolId: 1n, onError: () => {} });
    await until(() => directory.subscribeCalls >= 2, 'a retry');
    await backend.close();
    const calls = directory.subscribeCalls;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(directory.subscribeCalls, calls);
  });
});

describe('options refused at construction', () => {
  const base = { directory: new EmbeddedDirectory(), privateKey: KEY, protocolId: 1n, onError: () => {} };
  for (const [name, value] of [
    ['sweepIntervalMs', Number.NaN],
    ['sweepIntervalMs', -1],
    ['sweepIntervalMs', Number.POSITIVE_INFINITY],
    ['createTimeoutMs', Number.NaN],
    ['createTimeoutMs', -5],
    ['createTimeoutMs', Number.POSITIVE_INFINITY],
    ['sessionSeconds', Number.NaN],
    ['sessionSeconds', Number.POSITIVE_INFINITY],
    ['sessionSeconds', 0.0001],
  ] as const) {
    it(`createBackend: ${name} ${value}`, () => {
      assert.throws(() => createBackend({ ...base, [name]: value }), { name: 'RangeError' });
    });
  }

  it('createMatchRoom: a createTimeoutMs that is not a finite positive number', async () => {
    for (const timeoutMs of [Number.NaN, -1, Number.POSITIVE_INFINITY])
      await assert.rejects(createMatchRoom({ directory: base.directory, name: 'duel', timeoutMs }), {
        name: 'RangeError',
      });
  });

  it('takes sessionSeconds with a fraction of a second in whole milliseconds', async () => {
    const f = await start({ sessionSeconds: 1.5 });
    const auth = await call(f.url, 'POST', '/auth', { name: 'ada' });
    assert.equal(auth.status, 200);
    assert.ok(Number.isInteger(auth.body.expiresAt));
  });
});
