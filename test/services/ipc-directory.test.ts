import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Unsubscribe } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { IpcDirectory, serveDirectory } from '../../src/services/ipc-directory.js';
import { until } from '../support/directory-contract.js';
import { ipcLink } from '../support/ipc-link.js';

/** Counts the subscriptions live in it. */
class CountingDirectory extends EmbeddedDirectory {
  live = 0;
  override async subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe> {
    const unsubscribe = await super.subscribe(channel, handler);
    this.live++;
    return async () => {
      this.live--;
      await unsubscribe();
    };
  }
}

const RECORD = {
  processId: 'p1',
  machine: 'm',
  addresses: {},
  state: 'ready' as const,
  maxRooms: 1,
  load: { rooms: 0, clients: 0, tickMs: 0, tickMaxMs: 0 },
  heartbeatAt: 0,
};

describe('IpcDirectory and serveDirectory', () => {
  it('answers calls, keeps misuse errors as RangeError, and forwards subscribed messages', async () => {
    const { parent, child } = ipcLink();
    const directory = new EmbeddedDirectory();
    serveDirectory(parent, directory);
    const remote = new IpcDirectory({ endpoint: child });
    await remote.registerProcess(RECORD, 1000);
    assert.equal((await directory.getProcess('p1'))?.machine, 'm');
    await assert.rejects(remote.registerProcess(RECORD, -1), RangeError);
    const heard: string[] = [];
    const unsubscribe = await remote.subscribe('c', (message) => heard.push(message));
    const marks: string[] = [];
    await remote.subscribe('z', (message) => marks.push(message));
    await directory.publish('c', 'one');
    await until(() => heard.length === 1, "'one'");
    await unsubscribe();
    await directory.publish('c', 'two');
    // Messages arrive in order: once the later mark is in, 'two' would have been too.
    await directory.publish('z', 'mark');
    await until(() => marks.length === 1, 'the mark');
    assert.deepEqual(heard, ['one']);
  });

  it('rejects at once when the channel is closed, and pending calls when it closes', async () => {
    const { child, disconnect } = ipcLink();
    const remote = new IpcDirectory({ endpoint: child, timeoutMs: 60_000 });
    const pending = remote.listProcesses(); // Nobody serves: it would wait for the timeout.
    disconnect();
    await assert.rejects(pending, /closed/);
    await assert.rejects(remote.getSeat('s'), /closed/);
  });

  it('rejects a call nobody answers after its timeout', async () => {
    const { child } = ipcLink();
    const remote = new IpcDirectory({ endpoint: child, timeoutMs: 50 });
    await assert.rejects(remote.getRoom('r'), /timed out after 50 ms/);
    assert.throws(() => new IpcDirectory({ endpoint: child, timeoutMs: 0 }), RangeError);
  });

  it("refuses a channel that loses Infinity (JSON instead of 'advanced' serialization)", async () => {
    const { parent, child } = ipcLink((message) => JSON.parse(JSON.stringify(message)));
    serveDirectory(parent, new EmbeddedDirectory());
    const remote = new IpcDirectory({ endpoint: child });
    await assert.rejects(remote.listProcesses(), /advanced/);
  });

  it('answers unknown methods with an error, ignores malformed calls, and drops subscriptions on close', async () => {
    const { parent, child, disconnect } = ipcLink();
    const directory = new CountingDirectory();
    serveDirectory(parent, directory);
    const replies: unknown[] = [];
    child.onMessage((message) => replies.push(message));
    for (const bad of [null, 7, { gw: 'dir' }, { gw: 'dir', id: 1.5, method: 'sweep', args: [] }])
      child.send(bad, () => {});
    child.send({ gw: 'dir', id: 9, method: 'close', args: [] }, () => {});
    child.send({ gw: 'dir', id: 10, method: 'sweep', args: [1, 2, 3, 4, 5, 6] }, () => {});
    // A last well-formed call: its answer comes after any the malformed ones could have had.
    child.send({ gw: 'dir', id: 11, method: 'listProcesses', args: [] }, () => {});
    await until(() => replies.some((r) => (r as { id?: number }).id === 11), 'the last answer');
    assert.equal(replies.length, 2);
    assert.deepEqual(replies[0], {
      gw: 'dir-result',
      id: 9,
      inf: Number.POSITIVE_INFINITY,
      ok: false,
      error: { name: 'Error', message: 'no directory method "close"' },
    });
    // The parent's directory was not closed by the child's request.
    assert.deepEqual(await directory.listProcesses(), []);
    const remote = new IpcDirectory({ endpoint: child });
    await remote.subscribe('c', () => {});
    await remote.subscribe('d', () => {});
    assert.equal(directory.live, 2);
    disconnect();
    await until(() => directory.live === 0, "the child's subscriptions dropped when its channel closes");
  });
});

describe('several IpcDirectory on one channel', () => {
  it('each gets its own answers and messages, and closing one keeps the others’ subscriptions', async () => {
    const { parent, child } = ipcLink();
    const directory = new CountingDirectory();
    serveDirectory(parent, directory);
    const [a, b] = [new IpcDirectory({ endpoint: child }), new IpcDirectory({ endpoint: child })];
    await directory.registerProcess(RECORD, 60_000);
    // In flight together: a reply meant for one must not settle the other's call.
    const [process, none, gone] = await Promise.all([a.getProcess('p1'), b.getProcess('p2'), a.sweep()]);
    assert.equal(process?.processId, 'p1');
    assert.equal(none, null);
    assert.deepEqual(gone, []);
    const heardA: string[] = [];
    const heardB: string[] = [];
    await Promise.all([a.subscribe('c', (m) => heardA.push(m)), b.subscribe('c', (m) => heardB.push(m))]);
    assert.equal(directory.live, 2);
    await directory.publish('c', 'one');
    await until(() => heardA.length + heardB.length === 2, "'one' to both");
    assert.deepEqual([heardA, heardB], [['one'], ['one']]);
    await a.close();
    assert.equal(directory.live, 1, "b's subscription stays");
    await directory.publish('c', 'two');
    await until(() => heardB.length === 2, "'two' to b");
    assert.deepEqual([heardA, heardB], [['one'], ['one', 'two']]);
    assert.equal((await b.getProcess('p1'))?.processId, 'p1');
  });
});

describe('a subscribe that times out', () => {
  it('is dropped in the parent once it lands there', async () => {
    /** Subscribes only after the child gave up waiting. */
    class SlowDirectory extends CountingDirectory {
      override async subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe> {
        await new Promise((resolve) => setTimeout(resolve, 80));
        return super.subscribe(channel, handler);
      }
    }
    const { parent, child } = ipcLink();
    const directory = new SlowDirectory();
    serveDirectory(parent, directory);
    const remote = new IpcDirectory({ endpoint: child, timeoutMs: 20 });
    await assert.rejects(
      remote.subscribe('c', () => {}),
      /timed out/,
    );
    // Past the parent's late subscribe (80 ms): it was made, then dropped again.
    await new Promise((resolve) => setTimeout(resolve, 120));
    await until(() => directory.live === 0, 'the late subscription to be dropped');
  });
});
