/** The rate limiter's address keys: IPv6 by its /64, IPv4-mapped IPv6 as IPv4. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey } from '../src/services/address-key.js';
import { RateLimiter } from '../src/services/backend-rate-limit.js';

describe('addressKey', () => {
  it('keys IPv6 by its /64 prefix, whatever its spelling', () => {
    const key = '2001:db8:0:1::/64';
    for (const address of [
      '2001:db8:0:1::1',
      '2001:0DB8:0000:0001:ffff:ffff:ffff:ffff',
      '2001:db8::1:abcd:0:0:7',
      '[2001:db8:0:1::9]',
      '2001:db8:0:1::1%eth0',
    ])
      assert.equal(addressKey(address), key, address);
    assert.equal(addressKey('2001:db8:0:2::1'), '2001:db8:0:2::/64', 'the next /64 is another client');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('::'), '0:0:0:0::/64');
  });

  it('keys IPv4 and IPv4-mapped IPv6 as the IPv4 address', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::FFFF:cb00:7107'), '203.0.113.7');
    assert.equal(addressKey('0:0:0:0:0:ffff:203.0.113.7'), '203.0.113.7');
  });

  it('keeps anything unparsable as given (its own bucket)', () => {
    for (const odd of [
      'unknown',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '::ffff:1.2.3.999',
      'g::1',
      '1:2:3:4:5:6:7',
    ])
      assert.equal(addressKey(odd), odd);
  });
});

describe('RateLimiter by address key', () => {
  it('shares one bucket across a /64, so rotating addresses in it gains nothing', () => {
    const limiter = new RateLimiter({ burst: 3, perSecond: 1 });
    for (let i = 1; i <= 3; i++) assert.equal(limiter.take(`2001:db8:0:1::${i}`, 0), 0);
    assert.ok(limiter.take('2001:db8:0:1:aaaa::4', 0) > 0, 'the fourth address of the /64 waits');
    assert.equal(limiter.take('2001:db8:0:2::1', 0), 0, 'another /64 has its own bucket');
    assert.equal(limiter.size, 2);
  });

  it('counts an IPv4 client the same over IPv4 and as IPv4-mapped IPv6', () => {
    const limiter = new RateLimiter({ burst: 1, perSecond: 1 });
    assert.equal(limiter.take('198.51.100.2', 0), 0);
    assert.ok(limiter.take('::ffff:198.51.100.2', 0) > 0);
  });
});
