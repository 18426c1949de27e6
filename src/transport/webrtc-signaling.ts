/**
 * The WebRTC signalling endpoint on hono: one POST, offer in, answer out. Node-only (the remote IP
 * comes from @hono/node-server); exported from `ghostwire/webrtc`.
 *
 *   const rtc = new WebRtcServerTransport({ port: 40000, publicIp: '203.0.113.7' });
 *   serve({ fetch: createSignalingApp(rtc).fetch, port: 8080 }); // serve from '@hono/node-server'
 */
import type { Context, Hono } from 'hono';
import { importOptional } from './optional-dependency.js';
import type { SignalingResponse } from './webrtc-offer.js';

// hono and @hono/node-server are optional packages: loaded here so that only this entry needs them.
const { getConnInfo } = await importOptional(
  '@hono/node-server',
  'ghostwire/webrtc',
  () => import('@hono/node-server/conninfo'),
);
const { Hono: HonoApp } = await importOptional('hono', 'ghostwire/webrtc', () => import('hono'));
const { bodyLimit } = await importOptional('hono', 'ghostwire/webrtc', () => import('hono/body-limit'));

/** What the route needs of a transport (WebRtcServerTransport, or a stand-in in tests). */
export interface OfferHandler {
  handleOffer(body: unknown, remoteIp: string): Promise<SignalingResponse>;
}

export interface SignalingRouteOptions {
  /** The route's path (default "/rtc/offer"). */
  path?: string;
  /** The largest request body read, in bytes (default 40000: a 16 KB SDP escaped in JSON). */
  maxBodyBytes?: number;
  /**
   * The requester's IP, for the per-address offer limit (default: the socket's remote address).
   * Behind a reverse proxy, read the proxy's header here. A throw answers that request 400.
   */
  remoteIp?: (c: Context) => string;
}

function socketIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // not served by @hono/node-server
  }
}

/** Adds the signalling POST route to `app`; returns `app`. */
export function signalingRoute(
  app: Hono,
  transport: OfferHandler,
  options: SignalingRouteOptions = {},
): Hono {
  const { path = '/rtc/offer', maxBodyBytes = 40000, remoteIp = socketIp } = options;
  app.post(
    path,
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json({ error: `body over ${maxBodyBytes} bytes` }, 413),
    }),
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return c.json({ error: 'body is not JSON' }, 400);
      }
      let ip: string;
      try {
        ip = String(remoteIp(c));
      } catch {
        // Else hono answers 500 and logs a stack per request: a log any requester could flood.
        return c.json({ error: 'the requester address could not be read' }, 400);
      }
      const answer = await transport.handleOffer(body, ip);
      return c.json(answer.body as object, answer.status as 200);
    },
  );
  return app;
}

/** A hono app with only the signalling route: hand its `fetch` to `serve` from @hono/node-server. */
export function createSignalingApp(transport: OfferHandler, options: SignalingRouteOptions = {}): Hono {
  return signalingRoute(new HonoApp(), transport, options);
}
