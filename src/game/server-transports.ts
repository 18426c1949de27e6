/**
 * The transports a GameServer serves on one port set, all answering to one address (so one connect
 * token serves them all): HTTP (the join endpoint, the WebSocket upgrade, the WebRTC offer route)
 * on TCP `port`, netcode over UDP on UDP `port`, WebRTC data channels on UDP `port + 1`. WebSocket
 * and WebRTC load their packages (`ws`; `node-datachannel`, `hono`, `@hono/node-server`) only when
 * served.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatAddress, toAddress } from '../transport/address.js';
import { importOptional, MissingDependencyError } from '../transport/optional-dependency.js';
import type { DatagramTransport } from '../transport/transport.js';
import { UdpTransport } from '../transport/udp-transport.js';
import { WEBRTC_PATH, WEBSOCKET_PATH } from './game-join.js';

export type GameTransportKind = 'udp' | 'websocket' | 'webrtc';

export interface ServedTransports {
  http: Server;
  port: number;
  /** The address tokens list: every transport answers to it. */
  publicAddress: string;
  transports: DatagramTransport[];
  kinds: GameTransportKind[];
  close(): Promise<void>;
}

export interface OpenOptions {
  host: string;
  port: number;
  publicAddress: string | undefined;
  /** null: UDP, then WebSocket and WebRTC when their packages are installed. */
  kinds: GameTransportKind[] | null;
  /** Peers one client address may hold on each browser transport. */
  maxPeersPerAddress: number;
  /** The client's IP from its request (behind a proxy); default the socket's. */
  clientAddress: ((request: IncomingMessage) => string) | undefined;
  /** Requests other than the server's own (the game's page...). */
  handle: (request: IncomingMessage, response: ServerResponse) => void;
}

/** Whether a browser transport's packages are missing (then a default server, or fleet, goes without it). */
export function missing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof MissingDependencyError || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_DLOPEN_FAILED'
  );
}

/** Opens everything on `port` (0: a free port number for TCP and UDP both, retried when taken). */
export async function openServedTransports(options: OpenOptions): Promise<ServedTransports> {
  const tries = options.port === 0 ? 8 : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(options);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      const taken = code === 'EADDRINUSE' || /bind|in use/i.test(String((error as Error)?.message));
      if (!taken || attempt >= tries) throw error;
    }
  }
}

async function openOnce(options: OpenOptions): Promise<ServedTransports> {
  const { host } = options;
  const closers: (() => void | Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  let offers: ((request: IncomingMessage, response: ServerResponse) => void) | null = null;
  const http = createServer((request, response) => {
    if (offers !== null && request.url === WEBRTC_PATH) offers(request, response);
    else options.handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, () => resolve());
  });
  closers.push(() => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  try {
    const port = (http.address() as AddressInfo).port;
    const publicAddress = options.publicAddress ?? formatAddress(host, port);
    const transports: DatagramTransport[] = [];
    const kinds: GameTransportKind[] = [];
    const wanted = options.kinds ?? ['udp', 'websocket', 'webrtc'];
    const optional = options.kinds === null;
    for (const kind of wanted) {
      if (kind === 'udp') {
        const udp = await UdpTransport.open({ address: formatAddress(host, port) });
        closers.push(() => udp.close());
        transports.push(udp);
      } else if (kind === 'websocket') {
        // The module loads `ws` itself, failing with a MissingDependencyError naming it.
        const loaded = await import('../transport/websocket-server-transport.js').catch((error) => {
          if (optional && missing(error)) return null;
          throw error;
        });
        if (loaded === null) continue;
        const ws = await loaded.WebSocketServerTransport.open({
          server: http,
          path: WEBSOCKET_PATH,
          publicAddress,
          maxPeersPerAddress: options.maxPeersPerAddress,
          ...(options.clientAddress === undefined ? {} : { remoteIp: options.clientAddress }),
        });
        closers.push(() => ws.close());
        transports.push(ws);
      } else {
        const loaded = await (async () => ({
          // These load node-datachannel and hono themselves, failing with a MissingDependencyError.
          server: await import('../transport/webrtc-server-transport.js'),
          signaling: await import('../transport/webrtc-signaling.js'),
          node: await importOptional(
            '@hono/node-server',
            'ghostwire/webrtc',
            () => import('@hono/node-server'),
          ),
        }))().catch((error) => {
          if (optional && missing(error)) return null;
          throw error;
        });
        if (loaded === null) continue;
        const rtc = new loaded.server.WebRtcServerTransport({
          port: port + 1,
          bindAddress: host === '::' ? '0.0.0.0' : host,
          localAddress: toAddress(publicAddress),
          maxPeersPerAddress: options.maxPeersPerAddress,
        });
        closers.push(() => rtc.close());
        const clientAddress = options.clientAddress;
        const app = loaded.signaling.createSignalingApp(rtc, {
          path: WEBRTC_PATH,
          // @hono/node-server hands the Node request as env.incoming.
          ...(clientAddress === undefined
            ? {}
            : { remoteIp: (c) => clientAddress((c.env as { incoming: IncomingMessage }).incoming) }),
        });
        offers = loaded.node.getRequestListener(app.fetch);
        transports.push(rtc);
      }
      kinds.push(kind);
    }
    if (transports.length === 0) throw new RangeError('GameServer: no transport could be opened');
    return { http, port, publicAddress, transports, kinds, close };
  } catch (error) {
    await close();
    throw error;
  }
}
