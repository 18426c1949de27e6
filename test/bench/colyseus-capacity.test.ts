/**
 * The Colyseus copy of the arena (bench/capacity/colyseus-*.ts): its interest grid keeps exactly
 * the 40 m / 46 m hysteresis set a brute-force scan keeps; and a tiny real run (one server
 * process, SDK bots over WebSockets) delivers to every bot the state the server holds for it (the
 * bots' checksums of their decoded orbs and avatars equal the room's at the same patch) and
 * reports sane figures. No timing is asserted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runColyseusCapacity } from '../../bench/capacity/colyseus.js';
import { ArenaGrid, InterestSet } from '../../bench/capacity/colyseus-interest.js';
import {
  ARENA_UNITS,
  ColyseusArenaState,
  ColyseusOrb,
  ENTER_METRES,
  GRID,
  LEAVE_METRES,
  SEATS,
  stateChecksum,
} from '../../bench/capacity/colyseus-state.js';
import { prng } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('Colyseus capacity tests');

describe('Colyseus arena interest', () => {
  it('keeps the hysteresis set a brute-force scan keeps, as entities walk, appear and vanish', () => {
    const random = prng(SEED);
    const capacity = 300;
    const grid = new ArenaGrid(capacity);
    const set = new InterestSet(capacity);
    const expected = new Uint8Array(capacity);
    for (let id = 0; id < capacity; id++) {
      grid.x[id] = Math.floor(random() * ARENA_UNITS);
      grid.y[id] = Math.floor(random() * ARENA_UNITS);
      grid.alive[id] = random() < 0.9 ? 1 : 0;
    }
    let cx = ARENA_UNITS / 2;
    let cy = ARENA_UNITS / 2;
    let entered = 0;
    let left = 0;
    for (let tick = 0; tick < 400; tick++) {
      for (let id = 0; id < capacity; id++) {
        const step = () => Math.round((random() - 0.5) * 4 * GRID);
        grid.x[id] = Math.min(ARENA_UNITS, Math.max(0, grid.x[id] + step()));
        grid.y[id] = Math.min(ARENA_UNITS, Math.max(0, grid.y[id] + step()));
        if (random() < 0.01) grid.alive[id] ^= 1;
      }
      cx = Math.min(ARENA_UNITS, Math.max(0, cx + Math.round((random() - 0.5) * 2 * GRID)));
      cy = Math.min(ARENA_UNITS, Math.max(0, cy + Math.round((random() - 0.5) * 2 * GRID)));
      grid.rebuild();
      grid.refresh(
        set,
        cx,
        cy,
        (id) => {
          assert.equal(expected[id], 0, `entity ${id} entered twice`);
          expected[id] = 1;
          entered++;
        },
        (id) => {
          assert.equal(expected[id], 1, `entity ${id} left without entering`);
          expected[id] = 0;
          left++;
        },
      );
      for (let id = 0; id < capacity; id++) {
        const d = Math.hypot(grid.x[id] - cx, grid.y[id] - cy) / GRID;
        const alive = grid.alive[id] === 1;
        if (alive && d <= ENTER_METRES)
          assert.equal(set.member[id], 1, `tick ${tick}: ${id} at ${d} m not in`);
        if (!alive || d > LEAVE_METRES)
          assert.equal(set.member[id], 0, `tick ${tick}: ${id} at ${d} m still in`);
        assert.equal(set.member[id], expected[id]);
      }
      const listed = [...set.list.subarray(0, set.count)].sort((a, b) => a - b);
      assert.deepEqual(
        listed,
        [...expected.keys()].filter((id) => expected[id] === 1),
      );
    }
    assert.ok(entered > 50 && left > 50, `the walk should make entities come and go (${entered}, ${left})`);
  });

  it("a checksum tells states apart that differ in one orb's field", () => {
    const a = new ColyseusArenaState();
    const orb = new ColyseusOrb();
    orb.x = 100;
    orb.y = 200;
    orb.glow = 3;
    a.orbs.set('7', orb);
    const before = stateChecksum(a);
    orb.glow = 4;
    assert.notEqual(stateChecksum(a), before);
    orb.glow = 3;
    assert.equal(stateChecksum(a), before);
    a.orbs.delete('7');
    assert.notEqual(stateChecksum(a), before);
  });
});

describe('Colyseus capacity run', () => {
  it('delivers each bot the state the server holds for it, and reports sane figures', async () => {
    const run = await runColyseusCapacity({
      players: 4,
      roomSize: SEATS,
      seconds: 4,
      warmupSeconds: 1,
      botProcesses: 2,
      seed: SEED,
      verify: true,
    });
    // The whole report in every message: a failure on a loaded machine says what the run saw.
    const seen = JSON.stringify(run);
    assert.equal(run.server, 'colyseus');
    assert.equal(run.connected, 4, seen);
    assert.deepEqual(run.clientErrors, {}, seen);
    // Each bot checks every 20th patch: at least one each in the window, even at a few ticks a second.
    assert.ok(run.checksCompared >= 4, seen);
    assert.equal(run.checksMismatched, 0, seen);
    assert.equal(run.tickRate, 20);
    // The window is read between two timer callbacks: it may fall short of the 4 s asked by a timer's slack.
    assert.ok(run.windowSeconds >= 3.9, seen);
    assert.ok(
      run.serverCpuSeconds > 0 && Number.isFinite(run.cpuUsPerPlayerTick) && run.cpuUsPerPlayerTick > 0,
      seen,
    );
    assert.ok(
      run.downBytesPerPlayerSecond > run.upBytesPerPlayerSecond && run.upBytesPerPlayerSecond > 0,
      seen,
    );
    assert.equal(run.bytesCounted, 'WebSocket frames (TCP payload)');
    for (const ratio of [run.ticksOnTimeRatio, run.deliveredRatio, run.eventLoopUtilization])
      assert.ok(ratio > 0 && ratio <= 1.05, seen);
    assert.equal(run.playersPerCore === null, !run.keptUp, seen);
    assert.ok(run.joinP50Ms > 0 && run.joinP99Ms >= run.joinP50Ms, seen);
    assert.ok(run.botCpuSeconds > 0, seen);
    assert.ok(run.zaps > 0 && run.hits <= run.zaps, seen);
    assert.ok(run.inputsTakenRatio > 0 && run.inputsTakenRatio <= 1.05, seen);
  });
});
