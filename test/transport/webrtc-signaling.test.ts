/**
 * The WebRTC signalling: the pure checks (shape, size, rate, candidate rewrite), the refusals the
 * HTTP route answers, the peer cap, and how the client reports a refused or failed connection.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import nodeDataChannel from 'node-datachannel';
import { toAddress } from '../../src/transport/address.js';
import { WebRtcClientTransport } from '../../src/transport/webrtc-client.js';
import { candidatesOf, OfferRateLimit, readOffer, withCandidate } from '../../src/transport/webrtc-offer.js';
import { LoopbackRTCPeerConnection, rtcServer, until } from '../support/webrtc-loopback.js';

after(() => nodeDataChannel.cleanup());

const SERVER = toAddress('127.0.0.1:40000');

describe('offer checks (pure)', () => {
  it('reads { type: "offer", sdp } and refuses anything else with a reason', () => {
    assert.equal(readOffer({ type: 'offer', sdp: 'v=0\r\n' }, 100), 'v=0\r\n');
    assert.deepEqual(readOffer(null, 100), {
      status: 400,
      body: { error: 'body must be a JSON object { "type": "offer", "sdp": "..." }' },
    });
    assert.deepEqual(readOffer({ type: 'offer', sdp: 'x=1' }, 100), {
      status: 400,
      body: { error: 'sdp must start with "v=0"' },
    });
    assert.equal(readOffer({ type: 'offer', sdp: `v=0${' '.repeat(97)}` }, 100), `v=0${' '.repeat(97)}`);
    assert.equal(
      (readOffer({ type: 'offer', sdp: `v=0${' '.repeat(98)}` }, 100) as { status: number }).status,
      413,
    );
  });

  it('limits offers per address per one-second window, and the addresses tracked per window', () => {
    const limit = new OfferRateLimit(2, 3);
    assert.deepEqual(
      [10.1, 10.2, 10.9].map((t) => limit.allow('a', t)),
      [true, true, false],
    );
    assert.equal(limit.allow('b', 10.95), true, 'another address has its own count');
    assert.equal(limit.allow('a', 11.0), true, 'a new window starts afresh');
    assert.equal(limit.allow('b', 11.1), true);
    assert.equal(limit.allow('c', 11.2), true);
    assert.equal(limit.allow('d', 11.3), false, 'a fourth address in one window is refused');
    assert.equal(limit.allow('a', 11.4), true, 'tracked addresses keep their allowance');
  });

  it('counts offers from ::ffff:a.b.c.d with a.b.c.d, and from a whole IPv6 /64 as one client', () => {
    const limit = new OfferRateLimit(2, 100);
    assert.equal(limit.allow('10.1.1.1', 5.1), true);
    assert.equal(limit.allow('::ffff:10.1.1.1', 5.2), true);
    assert.equal(limit.allow('::ffff:10.1.1.1', 5.3), false, 'the mapped spelling shares the count');
    assert.equal(limit.allow('10.1.1.1', 5.4), false);
    assert.equal(limit.allow('2001:db8:0:1::1', 5.5), true);
    assert.equal(limit.allow('2001:db8:0:1::2', 5.6), true);
    assert.equal(limit.allow('2001:db8:0:1:abcd::3', 5.7), false, 'a new address in the /64 gains nothing');
    assert.equal(limit.allow('2001:db8:0:2::1', 5.8), true, 'another /64 is another client');
  });

  it('rewrites the answer to one host candidate on the public IP', () => {
    const answer =
      'v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=candidate:1 1 UDP 2114977791 10.0.0.5 40000 typ host\r\na=candidate:2 1 UDP 2114977790 172.17.0.1 40000 typ host\r\na=end-of-candidates\r\n';
    const rewritten = withCandidate(answer, '203.0.113.7', 40000);
    assert.deepEqual(candidatesOf(rewritten), [{ ip: '203.0.113.7', port: 40000 }]);
    assert.ok(rewritten.endsWith('a=end-of-candidates\r\n'));
    assert.deepEqual(candidatesOf(withCandidate('v=0\r\n', '::1', 5)), [{ ip: '::1', port: 5 }]);
  });
});

describe('the signalling route and its refusals', () => {
  it('refuses bad signalling with 4xx and a reason', async () => {
    const s = await rtcServer({ offersPerSecond: 2 });
    try {
      const post = async (body: string) => {
        const response = await fetch(s.url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        return { status: response.status, error: ((await response.json()) as { error: string }).error };
      };
      assert.deepEqual(await post('hello'), { status: 400, error: 'body is not JSON' });
      assert.deepEqual(await post('[]'), {
        status: 400,
        error: 'body must be a JSON object { "type": "offer", "sdp": "..." }',
      });
      assert.deepEqual(await post('{}'), { status: 400, error: 'type must be "offer"' });
      assert.deepEqual(await post('{"type":"answer","sdp":"v=0"}'), {
        status: 400,
        error: 'type must be "offer"',
      });
      assert.deepEqual(await post('{"type":"offer","sdp":5}'), {
        status: 400,
        error: 'sdp must be a string',
      });
      assert.deepEqual(await post(JSON.stringify({ type: 'offer', sdp: `v=0${'a'.repeat(20000)}` })), {
        status: 413,
        error: 'sdp of 20003 bytes exceeds the limit of 16384 bytes',
      });
      assert.deepEqual(await post(JSON.stringify({ type: 'offer', sdp: 'x'.repeat(50000) })), {
        status: 413,
        error: 'body over 40000 bytes',
      });
      // Well formed but not an SDP libdatachannel accepts: refused with its reason.
      const bad = await post(JSON.stringify({ type: 'offer', sdp: 'v=0\r\n' }));
      assert.equal(bad.status, 400);
      assert.match(bad.error, /^the offer was not accepted: .*ICE user fragment/);
      // Five more at once: a fixed one-second window takes at most 2 per address, so some are 429.
      const burst = await Promise.all(
        Array.from({ length: 5 }, () => post(JSON.stringify({ type: 'offer', sdp: 'v=0\r\n' }))),
      );
      const limited = burst.filter((r) => r.status === 429);
      assert.ok(limited.length >= 1, JSON.stringify(burst));
      assert.equal(limited[0].error, 'more than 2 offers per second from this address');
      assert.equal(s.transport.peerCount, 0);
      assert.equal(s.transport.stats.offersAccepted, 0);
      // Refused by the transport: 4 shapes, the oversized SDP, libdatachannel's refusal, the burst.
      assert.equal(s.transport.stats.offersRefused, 4 + 1 + 1 + 5);
    } finally {
      await s.close();
    }
  });

  it('caps peers: an offer past maxPeers is refused with 503', async () => {
    const s = await rtcServer({ maxPeers: 1 });
    const offers = [new LoopbackRTCPeerConnection(), new LoopbackRTCPeerConnection()];
    try {
      const sdps: string[] = [];
      for (const pc of offers) {
        pc.createDataChannel('x');
        await pc.setLocalDescription(await pc.createOffer());
        await until(() => pc.iceGatheringState === 'complete', 1);
        sdps.push(pc.localDescription?.sdp ?? '');
      }
      const first = await s.transport.handleOffer({ type: 'offer', sdp: sdps[0] }, '10.1.1.1');
      assert.equal(first.status, 200);
      assert.equal((first.body as { type: string }).type, 'answer');
      const second = await s.transport.handleOffer({ type: 'offer', sdp: sdps[1] }, '10.1.1.2');
      assert.deepEqual(second, { status: 503, body: { error: 'the server has its 1 peers' } });
    } finally {
      for (const pc of offers) pc.close();
      await s.close();
    }
  });
});

describe('the peers one client may hold', () => {
  it('offers from one client are bounded at maxPeersPerAddress (default 4), its ::ffff: and /64 spellings included; its unanswered peers are freed after handshakeTimeout, and then it may offer again', async () => {
    // The offer rate is lifted: only the peer bound refuses here.
    const s = await rtcServer({ handshakeTimeout: 0.5, offersPerSecond: 100 });
    const pc = new LoopbackRTCPeerConnection();
    try {
      pc.createDataChannel('x');
      await pc.setLocalDescription(await pc.createOffer());
      await until(() => pc.iceGatheringState === 'complete', 1);
      // Parseable offers whose answers are never applied: peers that never connect.
      const offer = { type: 'offer', sdp: pc.localDescription?.sdp };
      const statuses = async (ips: string[]) => {
        const out: number[] = [];
        for (const ip of ips) out.push((await s.transport.handleOffer(offer, ip)).status);
        return out;
      };
      const v4 = ['10.1.1.1', '::ffff:10.1.1.1', '10.1.1.1', '::ffff:a01:101', '::ffff:10.1.1.1'];
      assert.deepEqual(await statuses(v4), [200, 200, 200, 200, 429]);
      const v6 = [
        '2001:db8:0:1::1',
        '2001:db8:0:1::2',
        '2001:db8:0:1::3',
        '2001:db8:0:1::4',
        '2001:db8:0:1:f::5',
      ];
      assert.deepEqual(await statuses(v6), [200, 200, 200, 200, 429]);
      const refused = await s.transport.handleOffer(offer, '10.1.1.1');
      assert.deepEqual(refused, { status: 429, body: { error: 'this address holds its 4 peers' } });
      assert.deepEqual(
        await statuses(['10.1.1.2', '2001:db8:0:2::1']),
        [200, 200],
        'other clients are answered',
      );
      assert.equal(s.transport.peerCount, 10);
      assert.equal(s.transport.stats.offersRefusedPerAddress, 3);
      const tick = () => s.transport.update(performance.now() / 1000);
      assert.ok(await until(() => s.transport.peerCount === 0, 3, tick), 'freed');
      assert.equal(s.transport.stats.handshakeTimeouts, 10);
      assert.deepEqual(await statuses(['::ffff:10.1.1.1']), [200], 'room again once freed');
    } finally {
      pc.close();
      await s.close();
    }
  });
});

describe('WebRtcClientTransport refusals', () => {
  const stubFetch = (status: number, body: unknown) => async () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('throws at construction on misuse', () => {
    const base = {
      signalingUrl: 'http://127.0.0.1:1/rtc/offer',
      RTCPeerConnection: LoopbackRTCPeerConnection,
    };
    assert.throws(
      () => new WebRtcClientTransport({ ...base, serverAddress: 'localhost:1' as typeof SERVER }),
      RangeError,
    );
    assert.throws(
      () => new WebRtcClientTransport({ ...base, serverAddress: SERVER, connectTimeout: 0 }),
      RangeError,
    );
    const notAConstructor = 5 as unknown as typeof LoopbackRTCPeerConnection;
    assert.throws(
      () => new WebRtcClientTransport({ ...base, serverAddress: SERVER, RTCPeerConnection: notAConstructor }),
      TypeError,
    );
  });

  it('a refused offer fails the transport with the server reason; sends count undeliverable', async () => {
    const transport = new WebRtcClientTransport({
      signalingUrl: 'http://127.0.0.1:1/rtc/offer',
      serverAddress: SERVER,
      RTCPeerConnection: LoopbackRTCPeerConnection,
      fetch: stubFetch(429, { error: 'more than 5 offers per second from this address' }),
    });
    await assert.rejects(transport.opened, {
      message:
        'WebRtcClientTransport: signalling failed: the server answered 429: more than 5 offers per second from this address',
    });
    assert.equal(transport.state, 'failed');
    transport.send(SERVER, new Uint8Array(1));
    assert.equal(transport.stats.undeliverable, 1);
    assert.throws(() => transport.send(SERVER, new Uint8Array(1401)), RangeError);
    transport.close();
    assert.equal(transport.state, 'closed');
    assert.throws(() => transport.send(SERVER, new Uint8Array(1)), /closed/);
  });

  it('an answer that never opens fails the transport after connectTimeout', async () => {
    const s = await rtcServer();
    try {
      // The answer of a peer for another offer: ICE can never succeed with it.
      const other = new LoopbackRTCPeerConnection();
      other.createDataChannel('x');
      await other.setLocalDescription(await other.createOffer());
      await until(() => other.iceGatheringState === 'complete', 1);
      const stale = await s.transport.handleOffer(
        { type: 'offer', sdp: other.localDescription?.sdp },
        '10.3.3.3',
      );
      other.close();
      const transport = new WebRtcClientTransport({
        signalingUrl: s.url,
        serverAddress: s.transport.localAddress,
        RTCPeerConnection: LoopbackRTCPeerConnection,
        connectTimeout: 0.5,
        fetch: stubFetch(200, stale.body),
      });
      await assert.rejects(transport.opened, /did not open within 0.5 s|peer connection failed/);
      assert.equal(transport.state, 'failed');
    } finally {
      await s.close();
    }
  });
});
