import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAddress, parseAddress } from '../../src/transport/address.js';
import { PEER_SPACE, PeerAddresses } from '../../src/transport/peer-addresses.js';

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

  it('refuses a port or a space out of range', () => {
    assert.throws(() => new PeerAddresses(65536), RangeError);
    assert.throws(() => new PeerAddresses(-1), RangeError);
    assert.throws(() => new PeerAddresses(80, 65536), RangeError);
    assert.throws(() => new PeerAddresses(80, 1.5), RangeError);
  });

  it('WebSocket and WebRTC on the same port number: their peers never share an address', () => {
    const ws = new PeerAddresses(8080, PEER_SPACE.websocket);
    const rtc = new PeerAddresses(8080, PEER_SPACE.webrtc);
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      seen.add(ws.allocate());
      seen.add(rtc.allocate());
    }
    assert.equal(seen.size, 2000);
    assert.equal(ws.allocate(), '[fd67:7771:1::3e9]:8080');
    assert.equal(rtc.allocate(), '[fd67:7771:2::3e9]:8080');
  });
});
