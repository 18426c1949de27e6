/**
 * A caller's `remoteIp` that throws, on the browser transports' server side (real sockets on
 * loopback): the docs suggest reading a proxy header there, and a naive reader throws on a direct
 * request without the header. That request alone is refused; the server goes on.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { type ServerType, serve } from '@hono/node-server';
import type { Context } from 'hono';
import WebSocket from 'ws';
import { createSignalingApp } from '../../src/transport/webrtc-signaling.js';
import { WebSocketServerTransport } from '../../src/transport/websocket-server.js';

/** The proxy header's first address; throws when the header is missing, as naive code does. */
const forwardedFor = (headers: Record<string, unknown>) =>
  (headers['x-forwarded-for'] as string).split(',')[0].trim();

/** The HTTP status an upgrade request to `url` gets (101 when it becomes a WebSocket). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (request, response) => {
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    ws.once('error', reject);
  });
}

describe('a remoteIp that throws', () => {
  // The timeout only ends a hang: unfixed, the throw left the upgrade unanswered.
  it('refuses that WebSocket upgrade with HTTP 400, counted in peersRefusedRemoteIp, and the server goes on', {
    timeout: 10_000,
  }, async () => {
    const transport = await WebSocketServerTransport.open({
      remoteIp: (request: IncomingMessage) => forwardedFor(request.headers),
    });
    const url = `ws://${transport.localAddress}/`;
    try {
      assert.equal(await upgradeStatus(url), 400, 'a direct request without the header');
      assert.equal(transport.stats.peersRefusedRemoteIp, 1);
      assert.equal(transport.stats.peersRefused, 1);
      assert.equal(await upgradeStatus(url, { 'x-forwarded-for': '198.51.100.7' }), 101);
      assert.equal(transport.stats.peersAccepted, 1);
    } finally {
      transport.close();
    }
  });

  it('answers that signalling request 400 with a reason, not 500, and never reaches the transport', async () => {
    const seen: string[] = [];
    const app = createSignalingApp(
      {
        handleOffer: async (_body, ip) => {
          seen.push(ip);
          return { status: 200, body: { type: 'answer', sdp: 'v=0\r\n' } };
        },
      },
      { remoteIp: (c: Context) => forwardedFor({ 'x-forwarded-for': c.req.header('x-forwarded-for') }) },
    );
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rtc/offer`;
    const post = async (headers: Record<string, string> = {}) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\n' }),
      });
      return { status: response.status, body: await response.text() };
    };
    try {
      assert.deepEqual(await post(), {
        status: 400,
        body: JSON.stringify({ error: 'the requester address could not be read' }),
      });
      assert.deepEqual(seen, []);
      assert.equal((await post({ 'x-forwarded-for': '198.51.100.7, 10.0.0.1' })).status, 200);
      assert.deepEqual(seen, ['198.51.100.7']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
