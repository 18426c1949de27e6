/**
 * The load tester's loss (scripts/loadtest-loss.ts): counters reported once a second at unaligned
 * phases, as the room and bot processes report them, must not read as loss.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RoomStats } from '../../demo/room-process.js';
import { AlignedDatagramCounts, lossPercent } from '../../scripts/loadtest-loss.js';
import { emptyReport } from '../../scripts/loadtest-protocol.js';
import { summarize } from '../../scripts/loadtest-report.js';

/**
 * Bots sending `up` datagrams a second and servers `down` a second, each direction losing
 * `lost` of them; each side reports its cumulative socket counts once a second at its own phase.
 * Returns each progress line's `loss so far`, and what the old line showed: the latest reports
 * summed, differenced over each second.
 */
function run(seconds: number, up: number, down: number, lost: number, roomPeriod: number, botPeriod: number) {
  const counts = new AlignedDatagramCounts();
  // The room processes report before the bots start; the runner knows the bot processes it forks.
  counts.record('room', -0.5, 0, 0);
  counts.begin(0);
  counts.expect('bots');
  const bots = (t: number) => ({ sent: up * t, received: down * (1 - lost) * t });
  const room = (t: number) => ({ sent: down * t, received: up * (1 - lost) * t });
  const events: { at: number; source: 'room' | 'bots' }[] = [];
  // Each process's once-a-second timer runs a little early or late, so their phases drift apart.
  for (let at = roomPeriod; at < seconds; at += roomPeriod) events.push({ at, source: 'room' });
  for (let at = botPeriod; at < seconds; at += botPeriod) events.push({ at, source: 'bots' });
  events.sort((a, b) => a.at - b.at);
  const soFar: number[] = [];
  const old: number[] = [];
  const latest = { room: { sent: 0, received: 0 }, bots: { sent: 0, received: 0 } };
  let previous = { sent: 0, received: 0 };
  let next = 0;
  for (let second = 1; second < seconds; second++) {
    for (; next < events.length && events[next].at <= second; next++) {
      const { at, source } = events[next];
      const c = source === 'room' ? room(at) : bots(at);
      counts.record(source, at, c.sent, c.received);
      latest[source] = c;
    }
    const counted = counts.countsAt(counts.commonInstant(second));
    // A line before every process has reported counts nothing yet.
    if (counted.sent > 0) soFar.push(lossPercent(counted.sent, counted.received));
    const summed = {
      sent: latest.room.sent + latest.bots.sent,
      received: latest.room.received + latest.bots.received,
    };
    old.push(lossPercent(summed.sent - previous.sent, summed.received - previous.received));
    previous = summed;
  }
  return { soFar, old };
}

describe('load tester loss: one definition, counted at one instant', () => {
  it('no loss reads as 0% on every line, however the reports drift', () => {
    for (const [roomPeriod, botPeriod] of [
      [1.04, 0.98],
      [0.97, 1.03],
      [1.01, 1.01],
    ]) {
      const { soFar, old } = run(30, 400, 4000, 0, roomPeriod, botPeriod);
      // Counts are linear in time here, so interpolation is exact (to rounding).
      for (const loss of soFar) assert.ok(loss < 1e-9, `${roomPeriod}/${botPeriod}: ${soFar.join(' ')}`);
      // The old line read reports taken at different instants as loss (4.7% at these periods).
      if (roomPeriod !== botPeriod) assert.ok(Math.max(...old) > 1, old.join(' '));
    }
  });

  it('a real 5% loss reads as 5% on every line', () => {
    const { soFar } = run(30, 400, 4000, 0.05, 1.04, 0.98);
    for (const loss of soFar) assert.ok(Math.abs(loss - 5) < 1e-6, soFar.join(' '));
  });

  it('a source that stopped reporting holds its last counts and does not hold the instant back', () => {
    const counts = new AlignedDatagramCounts();
    counts.begin(0);
    counts.record('bots 0', 1, 100, 100);
    counts.record('room', 1.5, 100, 100);
    counts.record('room', 10, 100, 100);
    assert.equal(counts.commonInstant(10), 10);
    assert.deepEqual(counts.countsAt(10), { sent: 200, received: 200 });
    // Live sources bound the instant: the oldest last report.
    assert.equal(counts.commonInstant(2), 1);
    // The room's counts at 1 lie between the origin (0) and its report at 1.5 (100).
    const at1 = counts.countsAt(1);
    assert.ok(Math.abs(at1.sent - (100 + 100 / 1.5)) < 1e-9, JSON.stringify(at1));
  });

  it('loss is 0 with nothing sent and never negative', () => {
    assert.equal(lossPercent(0, 0), 0);
    assert.equal(lossPercent(10, 12), 0);
    assert.equal(lossPercent(200, 150), 25);
  });

  it("the summary counts a datagram waiting in a server socket's queue as arrived, not lost", () => {
    const totals = { ...emptyReport(), udpSent: 1000, udpReceived: 900 };
    const room = {
      processId: 'p',
      udp: { sent: 900, received: 950, queued: 50 },
      load: { clients: 0 },
      refused: {},
    } as unknown as RoomStats;
    const s = summarize({
      options: {
        clients: 1,
        seconds: 1,
        processes: 1,
        botProcesses: 1,
        mode: 'join',
        seed: 1,
        rampSeconds: 1,
        roomSize: 8,
      },
      directory: 'embedded',
      samples: [],
      totals,
      rooms: [room],
      cpus: 2,
      capacity: null,
    });
    assert.equal(s.upLossPercent, 0);
    assert.equal(s.lossPercent, 0);
  });
});
