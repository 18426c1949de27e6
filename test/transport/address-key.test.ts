/** The rate limiter's address keys: IPv6 by its /64, IPv4-mapped IPv6 as IPv4. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../src/services/backend-rate-limit.js';
import { addressKey, hostKey } from '../../src/transport/address-key.js';
import { PeersPerAddress } from '../../src/transport/peers-per-address.js';

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

describe('PeersPerAddress (the browser transports) by address key', () => {
  it('counts ::ffff:a.b.c.d with a.b.c.d and a whole IPv6 /64 as one client, up to maxPerAddress', () => {
    const peers = new PeersPerAddress(2);
    const v4 = peers.take('127.0.0.1');
    assert.equal(v4, '127.0.0.1');
    assert.equal(peers.take('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(peers.take('::ffff:7f00:1'), null, 'the mapped spelling is the same client, at its 2');
    assert.equal(peers.take('2001:db8:0:1::1'), '2001:db8:0:1::/64');
    assert.equal(peers.take('[2001:db8:0:1:ffff::2]'), '2001:db8:0:1::/64');
    assert.equal(peers.take('2001:db8:0:1::3'), null, 'a third address in the /64 is refused');
    assert.equal(peers.take('2001:db8:0:2::1'), '2001:db8:0:2::/64', 'the next /64 is another client');
    assert.equal(peers.count('::ffff:127.0.0.1'), 2);
    peers.release('127.0.0.1');
    assert.equal(peers.take('127.0.0.1'), '127.0.0.1', 'a freed peer makes room');
    peers.release('127.0.0.1');
    peers.release('127.0.0.1');
    assert.equal(peers.count('127.0.0.1'), 0);
    assert.equal(peers.addresses, 2, 'a client with no peers is forgotten');
    assert.throws(() => new PeersPerAddress(0), RangeError);
  });
});

describe('hostKey', () => {
  it('drops the port of a datagram source and keys its host like addressKey', () => {
    assert.equal(hostKey('10.0.0.1:9'), '10.0.0.1');
    assert.equal(hostKey('10.0.0.1:65535'), '10.0.0.1');
    assert.equal(hostKey('[::ffff:10.0.0.1]:9'), '10.0.0.1');
    assert.equal(hostKey('[2001:db8::1]:9'), '2001:db8:0:0::/64');
    assert.equal(hostKey('[2001:db8::ffff:1]:10'), '2001:db8:0:0::/64');
    assert.equal(hostKey('not an address'), 'not an address');
  });
});
