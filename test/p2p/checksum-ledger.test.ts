import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChecksumLedger } from '../../src/lockstep/checksum-ledger.js';

/** The rollback session's checksum pairs: each compared once, in any order, or counted as skipped. */
describe('ChecksumLedger', () => {
  const ledger = (horizon: number) => {
    const compared: number[] = [];
    const l = new ChecksumLedger(2, 1, horizon, (_peer, frame, local, remote) => {
      assert.equal(local, remote);
      compared.push(frame);
    });
    return { l, compared };
  };

  it('compares a peer’s checksums arriving a full prediction window late, and out of order', () => {
    const { l, compared } = ledger(2 * 60 + 8);
    for (let f = 0; f < 60; f++) l.recordLocal(f, f * 7);
    for (let f = 59; f >= 0; f--) l.recordRemote(1, f, f * 7);
    for (let f = 0; f < 60; f++) l.recordRemote(1, f, f * 7); // resends: compared once
    assert.equal(compared.length, 60);
    assert.deepEqual(
      [...compared].sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, f) => f),
    );
    assert.equal(l.skipped, 0);
  });

  it('counts the pairs it could not compare when the horizon is exceeded', () => {
    const { l, compared } = ledger(4); // the ring's minimum, 16 frames
    for (let f = 0; f < 40; f++) l.recordLocal(f, f);
    for (let f = 0; f < 40; f++) l.recordRemote(1, f, f);
    for (let f = 0; f < 40; f++) l.recordRemote(1, f, f); // resends count once
    assert.equal(compared.length + l.skipped, 40, `${compared.length} compared, ${l.skipped} skipped`);
    assert.ok(l.skipped > 0);
  });
});
