import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAddress, parseAddress } from '../src/transport/address.js';
import { PeerAddresses } from '../src/transport/peer-addresses.js';

describe('PeerAddresses', () => {
  it('hands out canonical, unique unique-local IPv6 addresses with the transport port', () => {
    const pool = new PeerAddresses(4433);
    const seen = new Set<string>();
    for (let i = 0; i < 70_000; i++) {
      const address = pool.allocate();
      assert.ok(isAddress(address), address);
      assert.equal(parseAddress(address)?.port, 4433);
      assert.ok(address.startsWith('[fd67:7771::'), address);
      seen.add(address);
    }
    assert.equal(seen.size, 70_000, 'never twice');
  });

  it('refuses a port out of range', () => {
    assert.throws(() => new PeerAddresses(65536), RangeError);
    assert.throws(() => new PeerAddresses(-1), RangeError);
  });
});
