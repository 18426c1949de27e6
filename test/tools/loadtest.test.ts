import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runLoadtest } from '../../scripts/loadtest-run.js';
import { testSeed } from '../support/seed.js';

describe('the load tester (npm run loadtest)', () => {
  it('20 bots join two room processes, play, leave and come back; the servers saw every join, input and leave', async () => {
    const seed = testSeed('loadtest');
    const s = await runLoadtest({
      clients: 20,
      seconds: 6,
      processes: 2,
      botProcesses: 1,
      mode: 'join',
      seed,
      roomSize: 8,
      rampSeconds: 1,
      sessionSeconds: 2,
      gapSeconds: 0.3,
    });
    const context = JSON.stringify(s);
    // Joined: every bot at least once (sessions of 1 to 3 s in 6 s), each join a first snapshot.
    assert.deepEqual(s.failures, {}, context);
    assert.ok(s.joins >= 20, context);
    assert.equal(s.joinMs.count, s.joins);
    assert.equal(s.serverJoins, s.joins, `each join the bots counted was seated by a server: ${context}`);
    assert.deepEqual(s.serverRefused, {});
    // Played: the servers took the bots' inputs (a starved tick repeats the last one, counted
    // too), the bots mirrored the rooms.
    assert.ok(s.inputsTaken > 0.5 * s.inputsSent, context);
    assert.ok(s.snapshots > 5 * s.joins, context);
    assert.ok(s.peakUsers > 10 && s.peakUsers <= 20, context);
    // Left cleanly: every session ended by a netcode disconnect the server heard.
    assert.equal(s.leaves, s.joins, context);
    assert.equal(s.serverLeaves, s.serverJoins, context);
    assert.equal(s.serverErrors, 0);
    assert.equal(s.hookErrors, 0);
    assert.equal(s.directoryErrors, 0);
    // The summary agrees with itself.
    assert.ok(s.httpMs.p50 <= s.joinMs.p50 && s.joinMs.p50 <= s.joinMs.p99 && s.joinMs.p99 <= s.joinMs.max);
    assert.ok(s.tickMs > 0 && s.tickMs <= s.tickMaxMs, context);
    assert.ok(s.serverCpuPercent > 0 && s.lossPercent >= 0 && s.lossPercent < 5, context);
    // A figure only with a verdict behind it (test/tools/loadtest-keep-up.test.ts judges the verdicts).
    assert.ok(s.capacity !== null, context);
    assert.equal(s.clientsPerCore, s.capacity.keptUp ? s.capacity.playersPerCore : null, context);
  });
});
