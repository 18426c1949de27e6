/**
 * connectTransport in Node: WebRTC (node-datachannel's polyfill, on loopback) when its channel
 * opens, WebSocket (`ws`) when signalling is refused, the channel does not open in time, or there
 * is no RTCPeerConnection; forced choices; a datagram each way over whichever was chosen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { Address } from '../../src/transport/address.js';
import { type ConnectedTransport, connectTransport } from '../../src/transport/fallback-client.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { WebSocketServerTransport } from '../../src/transport/websocket-server.js';
import { LoopbackRTCPeerConnection, retries, rtcServer, sleep, until } from '../support/webrtc-loopback.js';

type RtcServer = Awaited<ReturnType<typeof rtcServer>>;

/** A URL on which nothing listens: a port taken and released a moment ago. */
const REFUSING_URL = 'http://127.0.0.1:1/rtc/offer';

describe('connectTransport: WebRTC first, WebSocket as the fallback', { timeout: 25_000 }, () => {
  let rtc: RtcServer;
  let ws: WebSocketServerTransport;
  before(async () => {
    rtc = await rtcServer({ offersPerSecond: 100 });
    ws = await WebSocketServerTransport.open({ address: '127.0.0.1:0' });
  });
  after(async () => {
    ws.close();
    await rtc.close();
  });

  const options = (overrides: { signalingUrl?: string; fetch?: typeof fetch; rtc?: unknown } = {}) => ({
    webrtc: {
      signalingUrl: overrides.signalingUrl ?? rtc.url,
      serverAddress: rtc.transport.localAddress,
      RTCPeerConnection: (overrides.rtc ?? LoopbackRTCPeerConnection) as typeof LoopbackRTCPeerConnection,
      ...(overrides.fetch === undefined ? {} : { fetch: overrides.fetch }),
    },
    websocket: { url: `ws://${ws.localAddress}/`, serverAddress: ws.localAddress, WebSocket },
  });

  /** One datagram up and one down through `server`, the server answering whoever wrote. */
  async function roundTrip(connected: ConnectedTransport, server: DatagramTransport, serverAddress: Address) {
    const { transport } = connected;
    transport.send(serverAddress, Uint8Array.of(1, 2, 3));
    let peer: Address | null = null;
    assert.ok(
      await until(
        () => peer !== null,
        3,
        () => server.receive((from, data) => (peer = data[0] === 1 ? from : peer)),
      ),
      'the server got the datagram',
    );
    server.send(peer!, Uint8Array.of(9));
    let back: { from: Address; byte: number } | null = null;
    assert.ok(
      await until(
        () => back !== null,
        3,
        () => transport.receive((from, data) => (back = { from, byte: data[0] })),
      ),
      'the client got the answer',
    );
    assert.deepEqual(back, { from: serverAddress, byte: 9 });
    transport.close();
  }

  it('auto uses WebRTC when its channel opens, and datagrams flow over it', async (t) => {
    // The polyfill, offering, sometimes fails under load (see openRtcClient): retried as an application would.
    let connected: ConnectedTransport | null = null;
    for (let attempt = 0; attempt <= 12 && connected?.kind !== 'webrtc'; attempt++) {
      if (connected !== null) {
        retries.push(String(connected.fallbackReason));
        connected.transport.close();
        await sleep(50);
      }
      connected = await connectTransport(options());
    }
    assert.equal(connected!.kind, 'webrtc');
    assert.equal(connected!.fallbackReason, null);
    assert.ok(connected!.connectSeconds > 0 && connected!.connectSeconds < 3);
    t.diagnostic(`WebRTC open in ${(connected!.connectSeconds * 1000).toFixed(0)} ms`);
    await roundTrip(connected!, rtc.transport, rtc.transport.localAddress);
  });

  it('auto falls back to WebSocket when signalling is refused', async () => {
    const connected = await connectTransport(options({ signalingUrl: REFUSING_URL }));
    assert.equal(connected.kind, 'websocket');
    assert.match(connected.fallbackReason!, /signalling failed/);
    await roundTrip(connected, ws, ws.localAddress);
  });

  it('auto falls back when the channel does not open within webrtcTimeout', async () => {
    const hanging = () => new Promise<Response>(() => {}); // the answer never comes
    const started = performance.now();
    const connected = await connectTransport({ ...options({ fetch: hanging }), webrtcTimeout: 0.4 });
    assert.equal(connected.kind, 'websocket');
    assert.match(connected.fallbackReason!, /did not open within 0.4 s/);
    assert.ok(performance.now() - started >= 390, 'it waited for the timeout');
    await roundTrip(connected, ws, ws.localAddress);
  });

  it('auto falls back when there is no RTCPeerConnection (Node has none of its own)', async () => {
    assert.equal(typeof (globalThis as { RTCPeerConnection?: unknown }).RTCPeerConnection, 'undefined');
    const { webrtc, websocket } = options();
    const connected = await connectTransport({
      webrtc: { ...webrtc, RTCPeerConnection: undefined },
      websocket,
    });
    assert.equal(connected.kind, 'websocket');
    assert.match(connected.fallbackReason!, /no RTCPeerConnection/);
    await roundTrip(connected, ws, ws.localAddress);
  });

  it('forced choices: websocket never tries WebRTC; webrtc rejects with the reason instead of falling back', async () => {
    let offers = 0;
    const counting = (input: string, init: RequestInit) => {
      offers++;
      return fetch(input, init);
    };
    const socket = await connectTransport({
      ...options({ fetch: counting as typeof fetch }),
      choice: 'websocket',
    });
    assert.equal(socket.kind, 'websocket');
    assert.equal(socket.fallbackReason, null);
    assert.equal(offers, 0);
    socket.transport.close();
    await assert.rejects(
      connectTransport({ ...options({ signalingUrl: REFUSING_URL }), choice: 'webrtc' }),
      /connectTransport: signalling failed/,
    );
    // Both failing: one rejection naming both reasons.
    const { webrtc } = options({ signalingUrl: REFUSING_URL });
    await assert.rejects(
      connectTransport({
        webrtc,
        websocket: { url: 'ws://127.0.0.1:1/', serverAddress: ws.localAddress, WebSocket },
      }),
      /signalling failed.*then the WebSocket did not open/,
    );
  });

  it('misuse throws at the call', async () => {
    const all = options();
    await assert.rejects(connectTransport({ ...all, choice: 'udp' as 'auto' }), RangeError);
    await assert.rejects(connectTransport({ ...all, webrtcTimeout: 0 }), RangeError);
    await assert.rejects(connectTransport({ websocket: all.websocket, choice: 'webrtc' }), TypeError);
    await assert.rejects(connectTransport({ webrtc: all.webrtc, choice: 'websocket' }), TypeError);
    await assert.rejects(connectTransport({}), TypeError);
  });
});
