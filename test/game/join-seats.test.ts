/**
 * The players each client address holds on a GameServer (tokens not expired plus connections),
 * on the caller's clock: expiry, disconnects, reuse of a token, and how addresses are grouped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JoinRate } from '../../src/game/join-rate.js';
import { JoinSeats } from '../../src/game/join-seats.js';

describe('JoinSeats', () => {
  it('an address holds perAddress tokens at most until they expire', () => {
    const seats = new JoinSeats(2);
    assert.notEqual(seats.issue('10.0.0.1', 0, 30), null);
    assert.notEqual(seats.issue('10.0.0.1', 1, 31), null);
    assert.equal(seats.issue('10.0.0.1', 2, 32), null);
    assert.notEqual(seats.issue('10.0.0.2', 2, 32), null, 'another address has its own places');
    assert.equal(seats.issue('10.0.0.1', 29.9, 59.9), null);
    assert.notEqual(seats.issue('10.0.0.1', 30, 60), null, 'the first token expired');
    assert.equal(seats.holding('10.0.0.1'), 2);
  });

  it('a connected player keeps its place past its token’s life; a disconnect frees it', () => {
    const seats = new JoinSeats(1);
    const id = seats.issue('10.0.0.1', 0, 30)!;
    assert.equal(seats.connected(id, 1), true);
    assert.equal(seats.issue('10.0.0.1', 100, 130), null, 'still playing at 100 s');
    seats.disconnected(id, 101);
    assert.equal(seats.holding('10.0.0.1'), 0);
    assert.equal(seats.size, 0, 'an expired token is forgotten once its player left');
    assert.notEqual(seats.issue('10.0.0.1', 101, 131), null);
  });

  it('a token reused after its player left connects only if its address has a place free', () => {
    const seats = new JoinSeats(1);
    const first = seats.issue('10.0.0.1', 0, 30)!;
    assert.equal(seats.connected(first, 1), true);
    seats.disconnected(first, 2);
    const second = seats.issue('10.0.0.1', 3, 33)!;
    assert.notEqual(second, null);
    assert.equal(seats.connected(first, 4), false, 'the address is full again');
    seats.disconnected(first, 4); // the refused connection's end changes nothing
    assert.equal(seats.holding('10.0.0.1'), 1);
    assert.equal(seats.connected(second, 5), true);
    seats.disconnected(second, 6);
    assert.equal(seats.connected(first, 7), true, 'a place is free: the token may come back');
  });

  it('refuses a client id it never issued, or one whose token expired unused', () => {
    const seats = new JoinSeats(4);
    assert.equal(seats.connected(99n, 0), false);
    const id = seats.issue('10.0.0.1', 0, 30)!;
    assert.equal(seats.connected(id, 31), false);
  });

  it('groups an IPv6 /64 and folds IPv4-mapped addresses', () => {
    const seats = new JoinSeats(1);
    assert.notEqual(seats.issue('2001:db8:1:2::1', 0, 30), null);
    assert.equal(seats.issue('2001:db8:1:2:ffff::9', 0, 30), null, 'same /64');
    assert.notEqual(seats.issue('2001:db8:1:3::1', 0, 30), null, 'another /64');
    assert.notEqual(seats.issue('::ffff:192.0.2.7', 0, 30), null);
    assert.equal(seats.issue('192.0.2.7', 0, 30), null, 'the mapped address is the IPv4 one');
  });
});

describe('JoinRate', () => {
  it('allows a burst, then perSecond, and says how long to wait', () => {
    const rate = new JoinRate(2, 3);
    assert.deepEqual(
      [0, 0, 0, 0].map(() => rate.take('10.0.0.1', 0)),
      [0, 0, 0, 1],
    );
    assert.equal(rate.take('10.0.0.2', 0), 0, 'its own bucket');
    assert.equal(rate.take('10.0.0.1', 0.5), 0, 'one back after half a second');
    assert.equal(rate.take('10.0.0.1', 0.5), 1);
  });

  it('stays within maxAddresses under addresses in rotation', () => {
    const rate = new JoinRate(1, 2, 16);
    for (let i = 0; i < 1000; i++) rate.take(`10.0.${i >> 8}.${i & 255}`, i / 1000);
    assert.ok(rate.size <= 16, `${rate.size} addresses tracked`);
  });
});
