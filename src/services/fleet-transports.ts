/**
 * The transports one room server of a local fleet serves, each on a port of its own: UDP, WebSocket
 * (its own HTTP server: browsers connect to ws://<address>/) and WebRTC (data channels on one UDP
 * port, offers POSTed to a signalling route on an HTTP server of its own). The room server lists
 * each address under its kind in its process record, so the backend hands out the one asked for.
 */
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { missing } from '../game/server-transports.js';
import type { TransportKind } from '../join/join-answer.js';
import { formatAddress } from '../transport/address.js';
import { importOptional } from '../transport/optional-dependency.js';
import { UdpTransport } from '../transport/udp-transport.js';
import type { WebRtcServerTransportOptions } from '../transport/webrtc-server-options.js';
import type { SignalingRouteOptions } from '../transport/webrtc-signaling.js';
import type { WebSocketServerTransportOptions } from '../transport/websocket-server-options.js';
import type { RoomServerTransport } from './room-server-options.js';

// @hono/node-server is an optional package, which only ghostwire/services needs.
const { serve } = await importOptional(
  '@hono/node-server',
  'ghostwire/services',
  () => import('@hono/node-server'),
);

/** Where a WebRTC peer posts its offer on the fleet's signalling servers. */
export const FLEET_SIGNALING_PATH = '/rtc/offer';

export interface FleetTransports {
  served: RoomServerTransport[];
  /** The signalling route's URL when WebRTC is served. */
  signalingUrl?: string;
  /** Closes every transport and server opened (idempotent). */
  close(): Promise<void>;
}

/**
 * The browser transports' own options, passed through to each server's transports: their limits
 * (maxPeersPerAddress, handshakeTimeout...) and remoteIp. Where they listen and the address they
 * list are the fleet's (its host, a free port each, the signalling path), so those are left out.
 */
export interface FleetTransportOptions {
  /** WebSocketServerTransport's options (websocket-server-options.ts), for 'websocket'. */
  webSocket?: Omit<WebSocketServerTransportOptions, 'address' | 'server' | 'path' | 'publicAddress'>;
  /** WebRtcServerTransport's options (webrtc-server-options.ts), for 'webrtc'. */
  webRtc?: Omit<WebRtcServerTransportOptions, 'port' | 'bindAddress' | 'publicIp' | 'localAddress'>;
  /** The signalling route's options (webrtc-signaling.ts: remoteIp, maxBodyBytes), for 'webrtc'. */
  webRtcSignaling?: Omit<SignalingRouteOptions, 'path'>;
}

/**
 * Throws RangeError for an empty list, a kind not served here, a kind listed twice, or options for a
 * kind not listed.
 */
export function checkFleetTransports(
  kinds: readonly TransportKind[],
  options: FleetTransportOptions = {},
): void {
  if (!Array.isArray(kinds) || kinds.length === 0)
    throw new RangeError('transports: give at least one of udp, websocket, webrtc');
  for (const kind of kinds)
    if (kind !== 'udp' && kind !== 'websocket' && kind !== 'webrtc')
      throw new RangeError(`transports: ${JSON.stringify(kind)} is not udp, websocket or webrtc`);
  if (new Set(kinds).size !== kinds.length) throw new RangeError('transports: a kind is listed twice');
  // Options for a transport not served would be ignored without a word: say so instead.
  if (options.webSocket !== undefined && !kinds.includes('websocket'))
    throw new RangeError("webSocket: options given, but transports does not list 'websocket'");
  for (const name of ['webRtc', 'webRtcSignaling'] as const)
    if (options[name] !== undefined && !kinds.includes('webrtc'))
      throw new RangeError(`${name}: options given, but transports does not list 'webrtc'`);
}

/**
 * What a fleet of games serves by default, as GameServer does: UDP, then WebSocket when `ws` loads
 * and WebRTC when `node-datachannel` and `hono` do (the modules that load them, imported here,
 * are imported again when served at no cost).
 */
export async function installedTransports(): Promise<TransportKind[]> {
  const kinds: TransportKind[] = ['udp'];
  const loads = (load: () => Promise<unknown>) =>
    load().then(
      () => true,
      (error) => {
        if (missing(error)) return false;
        throw error;
      },
    );
  if (await loads(() => import('../transport/websocket-server-transport.js'))) kinds.push('websocket');
  const rtc = await loads(async () => {
    await import('../transport/webrtc-server-transport.js');
    await import('../transport/webrtc-signaling.js');
  });
  if (rtc) kinds.push('webrtc');
  return kinds;
}

/** Opens `kinds` on `host`, each on a free port; on a failure closes what it opened and rethrows. */
export async function openFleetTransports(
  kinds: readonly TransportKind[],
  host: string,
  options: FleetTransportOptions = {},
): Promise<FleetTransports> {
  const closers: (() => void | Promise<void>)[] = [];
  const served: RoomServerTransport[] = [];
  let signalingUrl: string | undefined;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const closer of closers.reverse()) await closer();
  };
  const any = formatAddress(host, 0);
  try {
    for (const kind of kinds) {
      if (kind === 'udp') {
        const socket = await UdpTransport.open({ address: any });
        closers.push(() => socket.close());
        served.push({ kind, transport: socket });
      } else if (kind === 'websocket') {
        // Imported when served, so that a fleet without browsers needs neither ws nor node-datachannel.
        const { WebSocketServerTransport } = await import('../transport/websocket-server-transport.js');
        const ws = await WebSocketServerTransport.open({ ...options.webSocket, address: any });
        closers.push(() => ws.close());
        served.push({ kind, transport: ws });
      } else {
        const { WebRtcServerTransport } = await import('../transport/webrtc-server-transport.js');
        const { createSignalingApp } = await import('../transport/webrtc-signaling.js');
        const rtc = new WebRtcServerTransport({
          ...options.webRtc,
          port: await freeUdpPort(host),
          bindAddress: host,
        });
        closers.push(() => rtc.close());
        const http = await listen(
          createSignalingApp(rtc, { ...options.webRtcSignaling, path: FLEET_SIGNALING_PATH }).fetch,
          host,
        );
        closers.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
        const { port } = http.address() as AddressInfo;
        signalingUrl = `http://${formatAddress(host, port)}${FLEET_SIGNALING_PATH}`;
        served.push({ kind, transport: rtc });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { served, ...(signalingUrl === undefined ? {} : { signalingUrl }), close };
}

function listen(fetch: Parameters<typeof serve>[0]['fetch'], hostname: string): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: 0, hostname }, () => resolve(server));
    server.once('error', reject);
  });
}

/**
 * A UDP port free on `host` a moment ago: WebRtcServerTransport needs a port number (libdatachannel
 * binds it itself). Another process could take it in between; then opening the fleet fails.
 */
function freeUdpPort(host: string): Promise<number> {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, host, () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}
