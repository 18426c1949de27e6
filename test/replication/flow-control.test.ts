import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FlowControl } from '../../src/replication/flow-control.js';

/** Feeds `seconds` of the same conditions at 10 updates a second from `start`; returns the end time. */
function run(flow: FlowControl, start: number, seconds: number, rtt: number, loss = 0): number {
  let now = start;
  for (let i = 1; i <= seconds * 10; i++) {
    now = start + i / 10;
    flow.update(now, rtt, loss);
  }
  return now;
}

describe('FlowControl (good / bad modes)', () => {
  it('starts good, drops at once on a long round trip or heavy loss, and gives the bad rate', () => {
    const flow = new FlowControl({ goodKbps: 200, badKbps: 50, rttSmoothing: 1 });
    assert.equal(flow.update(0, 80, 0), 'good');
    assert.equal(flow.kbps, 200);
    assert.equal(flow.update(0.1, 300, 0), 'bad');
    assert.equal(flow.kbps, 50);
    assert.equal(flow.drops, 1);
    assert.equal(flow.penalty, 4, 'a first fall after a long good spell does not double the penalty');
    const lossy = new FlowControl({ lossThreshold: 5, rttSmoothing: 1 });
    lossy.update(0, 50, 5);
    assert.equal(lossy.mode, 'good', 'at the threshold is still good');
    assert.equal(lossy.update(0.1, 50, 6), 'bad');
    assert.equal(lossy.kbps, 64, 'bad defaults to a quarter of good');
  });

  it('returns to good only after the penalty time of good conditions in a row', () => {
    const flow = new FlowControl({ rttSmoothing: 1 });
    flow.update(0, 400, 0);
    let now = run(flow, 0, 3, 100);
    now = run(flow, now, 0.5, 400); // a bad moment restarts the count
    now = run(flow, now, 3.9, 100);
    assert.equal(flow.mode, 'bad', '3.9 s of good conditions is under the 4 s penalty');
    run(flow, now, 0.3, 100);
    assert.equal(flow.mode, 'good');
  });

  it('doubles the penalty for a fall soon after returning (to 60 s at most) and halves it per 10 s of good', () => {
    const flow = new FlowControl({ rttSmoothing: 1 });
    flow.update(0, 400, 0);
    let now = run(flow, 0, 4.2, 100); // back to good
    assert.equal(flow.mode, 'good');
    now = run(flow, now, 2, 100);
    now += 0.1;
    flow.update(now, 400, 0); // falls within 10 s
    assert.equal(flow.penalty, 8);
    for (let i = 0; i < 6; i++) {
      now = run(flow, now, flow.penalty + 0.2, 100);
      assert.equal(flow.mode, 'good');
      now += 0.1;
      flow.update(now, 400, 0);
    }
    assert.equal(flow.penalty, 60, 'capped at 60 s');
    now = run(flow, now, 60.2, 100);
    assert.equal(flow.mode, 'good');
    now = run(flow, now, 10.1, 100);
    assert.equal(flow.penalty, 30, 'halved after 10 s of good');
    run(flow, now, 100, 100);
    assert.equal(flow.penalty, 1, 'never below 1 s');
  });

  it('smooths the round trip: one late sample does not flip the mode, a slow link does within a few dozen', () => {
    const flow = new FlowControl();
    flow.update(0, 50, 0);
    assert.equal(flow.update(0.1, 900, 0), 'good', 'one sample of 900 ms moves the estimate to 135');
    assert.ok(Math.abs(flow.rtt - 135) < 1e-9);
    let now = 0.1;
    let samples = 0;
    while (flow.mode === 'good') {
      now += 1 / 60;
      flow.update(now, 400, 0);
      samples++;
    }
    assert.ok(samples > 3 && samples < 30, `bad after ${samples} samples of 400 ms`);
    flow.update(now + 0.1, 0, 0);
    assert.ok(flow.rtt > 250, 'a 0 (no sample yet) is ignored');
  });

  it('fails at the call on misuse', () => {
    assert.throws(() => new FlowControl({ goodKbps: 0 }), RangeError);
    assert.throws(() => new FlowControl({ goodKbps: 100, badKbps: 200 }), /badKbps/);
    assert.throws(() => new FlowControl({ rttThreshold: Number.NaN }), RangeError);
    assert.throws(() => new FlowControl({ rttSmoothing: 1.5 }), /rttSmoothing/);
    const flow = new FlowControl();
    flow.update(5, 10, 0);
    assert.throws(() => flow.update(4, 10, 0), RangeError, 'time going backwards');
    assert.throws(() => flow.update(6, Number.NaN, 0), RangeError);
    assert.throws(() => flow.update(6, 10, -1), RangeError);
  });
});
