/**
 * The demo game's server: one HTTP server serves the page, its script, GET /servers, GET /token and
 * the WebRTC signalling route (POST RTC_OFFER_PATH), and carries the game's WebSocket
 * (WEBSOCKET_PATH); WebRTC data channels come in on one UDP port. One MessageServer takes both
 * transports (and the bots' in-memory one); a token lists the address of the transport asked for. The world is the arena `npm start`
 * plays (tools/live-arena.ts: orbs, avatars moved by their clients' inputs at a fixed 60 Hz, zaps
 * judged through lag compensation); a few bots of the server's own (demo/bots.ts) keep it alive
 * with one player. GET /token stands in for a game's web service: the server holds the private key
 * and hands each new page a connect token for a fresh client id, its avatar number in the token's
 * user data.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { MessageServer } from '../src/channels/index.js';
import { generateConnectToken } from '../src/connection/index.js';
import { type Address, formatAddress, toAddress } from '../src/transport/index.js';
import { createSignalingApp, WebRtcServerTransport } from '../src/webrtc.js';
import { WebSocketServerTransport } from '../src/websocket.js';
import { Arena, type AvatarValue } from '../tools/live-arena.js';
import { DemoBots } from './bots.js';
import { buildDemoAssets, type DemoAssets } from './client-bundle.js';
import {
  FIRST_PLAYER_AVATAR,
  factory,
  LAST_AVATAR,
  PROTOCOL_ID,
  RTC_OFFER_PATH,
  type ServersAnswer,
  type TokenAnswer,
  WEBSOCKET_PATH,
} from './protocol.js';
import { DemoStats } from './stats.js';
import { buildDashboardAssets, type DashboardAssets, serveStats } from './stats-routes.js';

export interface DemoServerOptions {
  /** Where to listen (default 127.0.0.1); 0.0.0.0 serves other machines (give publicAddress then). */
  host?: string;
  /** Port (default 8080; 0: any free one). */
  port?: number;
  /** The host:port connect tokens list, when it is not the listening address. */
  publicAddress?: string;
  /** WebRTC's one UDP port (default: the HTTP port's number; null: no WebRTC). */
  rtcPort?: number | null;
  /** The IP browsers reach WebRTC at, when the host's interfaces do not carry it (NAT, cloud). */
  publicIp?: string;
  /** The server's own bots (default 4, at most 16). */
  bots?: number;
  /** The arena's seed (default: random). */
  seed?: number;
}

/** A player (a page, not a bot) as the server sees it. */
export interface PlayerStatus {
  clientIndex: number;
  avatar: number;
  /** Where its avatar is now (null before the first frame after connecting). */
  place: AvatarValue | null;
  /** Its inputs the InputReceiver consumed (one per server tick) and repeated for want of one. */
  inputsTaken: number;
  inputsStarved: number;
  inputsReceived: number;
}

export interface DemoStatus {
  /** Netcode clients connected: bots and players. */
  connected: number;
  bots: number;
  players: PlayerStatus[];
  /** Datagrams the WebSocket transport sent and received. */
  wsSent: number;
  wsReceived: number;
  peersOpen: number;
  /** WebRTC: offers answered, peers open now, datagrams sent and received (zeros without WebRTC). */
  rtcOffers: number;
  rtcPeers: number;
  rtcSent: number;
  rtcReceived: number;
  ticks: number;
}

export interface DemoServer {
  /** The page's URL: http://host:port/ */
  readonly url: string;
  status(): DemoStatus;
  close(): Promise<void>;
}

const FRAME_MS = 1000 / 60;

/** Starts the demo (builds the page's script first); resolves once listening. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const host = options.host ?? '127.0.0.1';
  const [assets, dashboard] = await Promise.all([buildDemoAssets(), buildDashboardAssets()]);
  const hooks: StatsHooks = { stats: null, dashboard };
  const privateKey = new Uint8Array(32);
  globalThis.crypto.getRandomValues(privateKey);
  const tokens = new TokenIssuer(privateKey);
  let rtc: WebRtcServerTransport | null = null;
  let signaling: ReturnType<typeof getRequestListener> | null = null;
  const http = createServer((request, response) => {
    if (request.url === RTC_OFFER_PATH && signaling !== null) void signaling(request, response);
    else serve(request, response, assets, tokens, hooks);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 8080, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const ws = await WebSocketServerTransport.open({
    server: http,
    path: WEBSOCKET_PATH,
    publicAddress: options.publicAddress ?? formatAddress(host, port),
  });
  tokens.servers.websocket = ws.localAddress;
  const rtcPort = options.rtcPort === undefined ? port : options.rtcPort;
  if (rtcPort !== null) {
    try {
      rtc = new WebRtcServerTransport({
        port: rtcPort,
        bindAddress: host === '0.0.0.0' || host === '::' ? '0.0.0.0' : host,
        publicIp: options.publicIp,
      });
    } catch (error) {
      ws.close();
      http.close();
      throw error;
    }
    signaling = getRequestListener(createSignalingApp(rtc, { path: RTC_OFFER_PATH }).fetch);
    tokens.servers.webrtc = rtc.localAddress;
  }

  const arena = new Arena(options.seed ?? (Math.random() * 2 ** 32) >>> 0);
  const bots = new DemoBots(Math.min(16, Math.max(0, options.bots ?? 4)));
  /** Avatar number of each connected client index (from its token's user data). */
  const avatars = new Map<number, number>();
  const server = new MessageServer({
    protocolId: PROTOCOL_ID,
    privateKey,
    publicAddresses: [ws.localAddress, bots.serverTransport.localAddress, ...(rtc ? [rtc.localAddress] : [])],
    transports: [ws, bots.serverTransport, ...(rtc ? [rtc] : [])],
    maxClients: 64,
    factory,
    channels: [arena.replication.channel, arena.inputs.channel],
    onConnect: (index, _clientId, userData) => avatars.set(index, userData[0] & 63),
    onDisconnect: (index) => {
      avatars.delete(index);
      arena.leave(index);
    },
  });

  const stats = new DemoStats({ server, arena, avatars });
  hooks.stats = stats;
  const start = performance.now();
  const now = () => (performance.now() - start) / 1000;
  const sendAll = () => server.update(now());
  let ticks = 0;
  bots.connect(privateKey, Math.floor(Date.now() / 1000), now());
  // Every frame: the server ticks due on its 60 Hz clock (a packet to every client after each),
  // then the bots, then each connected client's avatar is made (on its first frame) and followed.
  const timer = setInterval(() => {
    const time = now();
    const before = performance.now();
    const ran = arena.advance(time, sendAll);
    stats.timed(performance.now() - before, ran);
    ticks += ran;
    bots.frame(time, arena.clock.position);
    for (const [index, avatar] of avatars) arena.avatarOf(index, avatar);
  }, FRAME_MS);

  let closed = false;
  const isBot = (index: number) => avatars.get(index)! < FIRST_PLAYER_AVATAR;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    status: () => ({
      connected: server.server.connectedClients,
      bots: bots.connected,
      players: [...avatars.keys()]
        .filter((index) => !isBot(index))
        .map((index) => {
          const inputs = arena.inputs.stats(index);
          return {
            clientIndex: index,
            avatar: avatars.get(index)!,
            place: arena.avatar(index),
            inputsTaken: inputs?.taken ?? 0,
            inputsStarved: inputs?.starved ?? 0,
            inputsReceived: inputs?.received ?? 0,
          };
        }),
      wsSent: ws.stats().sent,
      wsReceived: ws.stats().received,
      peersOpen: ws.stats().peersOpen,
      rtcOffers: rtc?.stats().offersAccepted ?? 0,
      rtcPeers: rtc?.stats().peers ?? 0,
      rtcSent: rtc?.stats().sent ?? 0,
      rtcReceived: rtc?.stats().received ?? 0,
      ticks,
    }),
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      stats.close();
      try {
        // Every client told (netcode disconnect packets) while its transport is still open.
        server.server.stop();
        bots.close();
      } finally {
        ws.close();
        rtc?.close();
        http.closeAllConnections();
        await new Promise((resolve) => http.close(resolve));
      }
    },
  };
}

/** The dashboard's routes (demo/stats-routes.ts); stats once the game is made. */
interface StatsHooks {
  stats: DemoStats | null;
  dashboard: DashboardAssets;
}

/**
 * Connect tokens for new pages: a fresh client id each, avatar numbers cycling through the players'
 * range, listing the address of the transport the page connected over (?transport=, default WebSocket).
 */
class TokenIssuer {
  readonly servers: { websocket: Address; webrtc: Address | null } = {
    websocket: toAddress('127.0.0.1:0'),
    webrtc: null,
  };
  private nextClientId = 1000n;
  private nextAvatar = FIRST_PLAYER_AVATAR;

  constructor(private readonly privateKey: Uint8Array) {}

  /** A token listing `transport`'s address; null when this server does not serve it. */
  issue(transport: string | null): TokenAnswer | null {
    const serverAddress = transport === 'webrtc' ? this.servers.webrtc : this.servers.websocket;
    if (serverAddress === null) return null;
    const avatar = this.nextAvatar;
    this.nextAvatar = avatar === LAST_AVATAR ? FIRST_PLAYER_AVATAR : avatar + 1;
    const userData = new Uint8Array(256);
    userData[0] = avatar;
    const token = generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey: this.privateKey,
      clientId: this.nextClientId++,
      serverAddresses: [serverAddress],
      now: Math.floor(Date.now() / 1000),
      userData,
    });
    return { token: Buffer.from(token).toString('base64'), serverAddress, avatar };
  }
}

function serve(
  request: IncomingMessage,
  response: ServerResponse,
  assets: DemoAssets,
  tokens: TokenIssuer,
  hooks: StatsHooks,
): void {
  // A request target no URL parser takes ("//[") is the client's error, not the server's end.
  const url = URL.canParse(request.url ?? '/', 'http://demo')
    ? new URL(request.url ?? '/', 'http://demo')
    : null;
  if (url === null) {
    response.writeHead(400).end();
    return;
  }
  const path = url.pathname;
  if (request.method !== 'GET') {
    response.writeHead(405).end();
    return;
  }
  const send = (type: string, body: string) =>
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  if (path === '/' || path === '/index.html') send('text/html; charset=utf-8', assets.html);
  else if (path === '/client.js') send('text/javascript; charset=utf-8', assets.code);
  else if (path === '/client.js.map') send('application/json', assets.map);
  else if (hooks.stats !== null && serveStats(path, response, hooks.stats, hooks.dashboard)) return;
  else if (path === '/servers')
    send('application/json', JSON.stringify(tokens.servers satisfies ServersAnswer));
  else if (path === '/token') {
    const transport = url.searchParams.get('transport');
    const answer = tokens.issue(transport);
    if (answer !== null) send('application/json', JSON.stringify(answer));
    else
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: `no ${transport} here` }));
  } else response.writeHead(404).end();
}
