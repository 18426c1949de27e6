import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROCESS_GONE, type ProcessGone } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { reportToManager } from '../../src/services/managed-process.js';
import { ProcessManager, type ProcessManagerOptions } from '../../src/services/process-manager.js';

const SERVER = fileURLToPath(new URL('../fixtures/managed-server.js', import.meta.url));

function manager(args: string[], options: Partial<ProcessManagerOptions> = {}): ProcessManager {
  return new ProcessManager({
    modulePath: SERVER,
    args,
    maxProcesses: 2,
    heartbeatIntervalMs: 100,
    heartbeatTimeoutMs: 1000,
    startupTimeoutMs: 5000,
    restartDelayMs: 50,
    killGraceMs: 1000,
    ...options,
  });
}

/** The next message on a directory channel that passes `accept`. */
function nextMessage(
  directory: EmbeddedDirectory,
  channel: string,
  accept: (message: string) => boolean = () => true,
): Promise<string> {
  return new Promise((resolve) => {
    void directory.subscribe(channel, (message) => {
      if (accept(message)) resolve(message);
    });
  });
}

describe('ProcessManager', () => {
  it('runs children up to its capacity and reports their load and the machine', async () => {
    const pm = manager(['steady', '2']);
    assert.throws(() => pm.start(3), RangeError);
    const ids = await pm.start();
    try {
      assert.equal(new Set(ids).size, 2);
      assert.throws(() => pm.start(3), RangeError);
      const report = pm.report();
      assert.deepEqual(report.processes.map((p) => p.processId).sort(), [...ids].sort());
      for (const p of report.processes) {
        assert.deepEqual(p.load, { rooms: 2, clients: 4, tickMs: 1.5, tickMaxMs: 3 });
        assert.equal(p.state, 'ready');
        assert.ok(p.healthy);
        assert.doesNotThrow(() => process.kill(p.pid, 0), 'the pid is a live process');
        assert.ok(p.rssBytes > 1e6 && p.rssBytes < 4e9, `rss ${p.rssBytes}`);
        assert.ok(p.cpuPercent >= 0 && p.cpuPercent < 1000, `cpu ${p.cpuPercent}`);
        assert.ok(p.heartbeatAt >= p.startedAt);
      }
      const { machine } = report;
      assert.equal(machine.processes, 2);
      assert.equal(machine.rooms, 4);
      assert.equal(machine.clients, 8);
      assert.equal(machine.tickMaxMs, 3);
      assert.equal(machine.rssBytes, report.processes[0].rssBytes + report.processes[1].rssBytes);
      assert.ok(machine.cpus >= 1);
      assert.equal(machine.loadavg.length, 3);
      assert.ok(machine.freeMemoryBytes > 0 && machine.freeMemoryBytes <= machine.totalMemoryBytes);
      assert.equal(machine.unhealthyKills, 0);
    } finally {
      await pm.stop({ drain: false });
    }
    assert.deepEqual(pm.report().processes, []);
    assert.throws(() => pm.start(1), /stopped/);
  });

  it('drain and stop refuse a timeout that is NaN, negative or infinite, before stopping anything', async () => {
    const pm = manager(['steady', '1']);
    for (const timeoutMs of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      assert.throws(() => pm.drain('no-such-process', timeoutMs), /timeoutMs must be/);
      await assert.rejects(pm.stop({ timeoutMs }), RangeError);
    }
    assert.deepEqual(await pm.start(0), [], 'not stopped by the refused calls');
    await pm.stop();
  });

  it('restarts a crashed child after removing its directory entry, which publishes PROCESS_GONE', async () => {
    const directory = new EmbeddedDirectory();
    const gone: ProcessGone[] = [];
    await directory.subscribe(PROCESS_GONE, (message) => gone.push(JSON.parse(message)));
    const pm = manager(['crash'], { directory, crashLoopLimit: 10 });
    const exits: [string, number | null][] = [];
    pm.on('exited', (id, code) => exits.push([id, code]));
    pm.start(1).catch(() => {});
    const [next, previous, attempt] = await once(pm, 'restarted');
    await pm.stop({ drain: false });
    assert.notEqual(next, previous);
    assert.equal(attempt, 1);
    assert.deepEqual(exits[0], [previous, 3]);
    const first = gone.find((g) => g.processId === previous);
    assert.deepEqual(first, { processId: previous, roomIds: [`room-${previous}`], reason: 'removed' });
    assert.equal(await directory.getProcess(previous), null);
    assert.equal(await directory.getRoom(`room-${previous}`), null);
  });

  it('kills a child that stops heartbeating, counts it unhealthy and restarts it', async () => {
    const pm = manager(['silent'], { heartbeatTimeoutMs: 400 });
    const [id] = await pm.start(1);
    const unhealthy = once(pm, 'unhealthy');
    const exited = once(pm, 'exited');
    const restarted = once(pm, 'restarted');
    try {
      const [silentId, reason] = await unhealthy;
      assert.equal(silentId, id);
      assert.match(reason, /no heartbeat for \d+ ms/);
      assert.deepEqual(await exited, [id, null, 'SIGKILL']);
      const [next, previous] = await restarted;
      assert.equal(previous, id);
      assert.notEqual(next, id);
      assert.equal(pm.report().machine.unhealthyKills, 1);
    } finally {
      await pm.stop({ drain: false });
    }
  });

  it('kills a child never heard from within startupTimeoutMs; stop() rejects a pending start()', async () => {
    const pm = manager(['mute'], { startupTimeoutMs: 300 });
    const starting = pm.start(1);
    const [id, reason] = await once(pm, 'unhealthy');
    assert.equal(reason, 'no first heartbeat in 300 ms');
    const [exitedId, , signal] = await once(pm, 'exited');
    assert.deepEqual([exitedId, signal], [id, 'SIGKILL']);
    await pm.stop({ drain: false });
    await assert.rejects(starting, /stopped/);
  });

  it('drains a child: waits for its rooms to end, then stops it cleanly and does not restart it', async () => {
    const pm = manager(['steady', '3']);
    const [id, other] = await pm.start(2);
    let restarts = 0;
    pm.on('restarted', () => restarts++);
    assert.throws(() => pm.drain('no-such-process'), RangeError);
    try {
      const t0 = performance.now();
      const outcome = await pm.drain(id);
      const elapsed = performance.now() - t0;
      // Three rooms, ending one per 150 ms in the fixture.
      assert.ok(elapsed >= 440, `drained in ${elapsed.toFixed(0)} ms`);
      assert.deepEqual(outcome, { drained: true, code: 0, signal: null });
      assert.deepEqual(
        pm.report().processes.map((p) => p.processId),
        [other],
      );
      assert.equal(restarts, 0);
    } finally {
      await pm.stop({ drain: false });
    }
  });

  it('stops a child whose drain outlasts the timeout', async () => {
    const pm = manager(['steady', '100']);
    const [id] = await pm.start(1);
    const outcome = await pm.drain(id, 300);
    assert.deepEqual(outcome, { drained: false, code: 0, signal: null });
    await pm.stop();
  });

  it('gives up on a crash loop after crashLoopLimit restarts, with doubling delays', async () => {
    const pm = manager(['crash-at-once'], { crashLoopLimit: 2, restartDelayMs: 30 });
    const events: [string, number][] = [];
    pm.on('started', () => events.push(['started', performance.now()]));
    pm.on('exited', () => events.push(['exited', performance.now()]));
    const gaveUp = once(pm, 'gaveUp');
    await assert.rejects(pm.start(1), /gave up/);
    const [, failures] = await gaveUp;
    assert.equal(failures, 3);
    assert.deepEqual(
      events.map(([kind]) => kind),
      ['started', 'exited', 'started', 'exited', 'started', 'exited'],
    );
    // Backoff: 30 ms before the first restart, 60 before the second (timers never fire early by more than a ms).
    assert.ok(events[2][1] - events[1][1] >= 29);
    assert.ok(events[4][1] - events[3][1] >= 59);
    assert.deepEqual(pm.report().processes, []);
    await pm.stop();
  });
});

describe('reportToManager', () => {
  it('does nothing outside a process manager', () => {
    const server = {
      load: () => ({ rooms: 0, clients: 0, tickMs: 0, tickMaxMs: 0 }),
      state: () => 'ready' as const,
      drain: async () => {},
    };
    assert.equal(reportToManager(server), null);
  });
});

describe('IpcDirectory in a child process', () => {
  it("lists a process, a room and a taken seat in the parent's directory and hears its messages", async () => {
    const directory = new EmbeddedDirectory();
    const subscribed = nextMessage(directory, 'test:subscribed');
    const echo = nextMessage(directory, 'test:echo');
    const pm = manager(['directory'], { directory });
    const [id] = await pm.start(1);
    try {
      assert.equal(await subscribed, id);
      const record = await directory.getProcess(id);
      assert.equal(record?.machine, 'test');
      assert.equal((await directory.getRoom(`room-${id}`))?.seats, 1);
      await directory.publish('test:hello', 'hi');
      // The seat's Infinity crossed the channel both ways intact.
      assert.equal(await echo, 'hi|taken|Infinity');
    } finally {
      const gone = nextMessage(directory, PROCESS_GONE);
      await pm.stop();
      assert.deepEqual(JSON.parse(await gone), { processId: id, roomIds: [`room-${id}`], reason: 'removed' });
    }
  });
});
