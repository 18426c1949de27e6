/**
 * Where a GameClient's connection comes from: a GameServer's URL (its join endpoint mints the
 * token), a services backend (auth as a guest, then join-or-create a room or matchmake), or a
 * token the caller got itself. The transport is the best the platform has: UDP where an opener is
 * registered (Node with `ghostwire/node`), else WebRTC, then WebSocket.
 */

import { CONNECT_TOKEN_BYTES } from '../connection/constants.js';
import { BackendClient, type FetchLike, type Seated } from '../join/backend-client.js';
import type { TransportKind } from '../join/join-answer.js';
import { parseAddress, toAddress } from '../transport/address.js';
import { connectTransport } from '../transport/fallback-client.js';
import type { DatagramTransport } from '../transport/transport.js';
import type { RtcPeerConnectionConstructor } from '../transport/webrtc-client-transport.js';
import {
  WebSocketClientTransport,
  type WebSocketConstructor,
} from '../transport/websocket-client-transport.js';
import type { GameDefinition } from './define-game.js';
import { fromBase64, JOIN_PATH, readJoinAnswer } from './game-join.js';
import { registeredUdpOpener } from './transport-openers.js';

/** How GameClient.connect reaches the game. Every field is optional. */
export interface GameClientOptions {
  /**
   * Join (or create) a room of this type through the services backend at the URL. With
   * `spectate`: the id of the room to watch.
   */
  room?: string;
  /**
   * Matchmake in this pool through the services backend at the URL (a room of the pool's type).
   * With `spectate`: watch the pool's running room with the most players.
   */
  pool?: string;
  /** The guest name the backend is told (default 'guest'). */
  name?: string;
  /** The room's join options (the backend passes them to the room). */
  roomOptions?: Record<string, unknown>;
  /** 'auto' (default): UDP where the platform opens it, else WebRTC, then WebSocket. */
  transport?: 'auto' | TransportKind;
  /** Seconds for the whole connect (the join request, the transport, the handshake) before it rejects (default 10). */
  timeout?: number;
  /** The WebSocket class where the platform has none (Node 20: `ws`'s). */
  WebSocket?: WebSocketConstructor;
  /** The RTCPeerConnection class where the platform has none (Node: node-datachannel's polyfill). */
  RTCPeerConnection?: RtcPeerConnectionConstructor;
  /** Default globalThis.fetch. */
  fetch?: FetchLike;
  /**
   * Join as a spectator (a GameServer, or a game room, with `spectators`): no player, no entity,
   * no inputs; choose what to watch with `follow(id)` or `camera(x, y)`, and call `update()` with
   * no input. Through a backend, give `room` (a room's id) or `pool`.
   */
  spectate?: boolean;
}

/** What a token-and-transport connection is (an expert's own backend, a test's in-memory network). */
export interface GameClientToken {
  token: Uint8Array;
  transport: DatagramTransport;
}

/** A connection ready for the netcode handshake, and how to get a fresh token for the same seat. */
export interface Opened extends GameClientToken {
  kind: TransportKind | 'given';
  /** Set when seated through a backend: a fresh token for the seat (reconnection). */
  reseat: (() => Promise<Uint8Array>) | null;
}

const where = 'GameClient.connect';

/** The longest join answer read, in bytes (a real one is about 3 KB: a 2048-byte token in base64). */
export const MAX_JOIN_ANSWER_BYTES = 16384;

/**
 * Opens the connection, within `timeout` seconds for the whole of it (the join request, the
 * backend's, the transport's): a server that never answers rejects, and a connection that opens
 * after that is closed.
 */
export async function openConnection(
  game: GameDefinition,
  target: string | GameClientToken,
  options: GameClientOptions,
  timeout: number,
): Promise<Opened> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`${where}: no connection within the timeout (${timeout} s)`);
      abort.abort(error);
      reject(error);
    }, timeout * 1000);
  });
  const opening = open(game, target, options, abort.signal, timeout);
  try {
    return await Promise.race([opening, expired]);
  } catch (error) {
    // Opened too late: nobody will use it.
    opening.then((late) => late.transport.close()).catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function open(
  game: GameDefinition,
  target: string | GameClientToken,
  options: GameClientOptions,
  signal: AbortSignal,
  timeout: number,
): Promise<Opened> {
  if (typeof target === 'object' && target !== null) {
    if (!(target.token instanceof Uint8Array)) throw new TypeError(`${where}: token must be a Uint8Array`);
    if (typeof target.transport?.send !== 'function')
      throw new TypeError(`${where}: transport must be a DatagramTransport`);
    return { ...target, kind: 'given', reseat: null };
  }
  if (typeof target !== 'string' || !URL.canParse(target))
    throw new TypeError(`${where}: give the server's URL (http://host:port) or { token, transport }`);
  const choice = options.transport ?? 'auto';
  if (!['auto', 'udp', 'websocket', 'webrtc'].includes(choice))
    throw new RangeError(`${where}: transport must be 'auto', 'udp', 'websocket' or 'webrtc', got ${choice}`);
  if (options.room !== undefined && options.pool !== undefined)
    throw new TypeError(`${where}: give room or pool, not both`);
  const fetch = options.fetch ?? globalThis.fetch;
  if (typeof fetch !== 'function') throw new TypeError(`${where}: no fetch here; pass options.fetch`);
  const udp = registeredUdpOpener();
  if (choice === 'udp' && udp === null)
    throw new RangeError(`${where}: no UDP here (in Node, import 'ghostwire/node' to register it)`);
  if (options.room !== undefined || options.pool !== undefined)
    return viaBackend(target, options, fetch, timeout);

  const base = target.endsWith('/') ? target.slice(0, -1) : target;
  const query = options.spectate === true ? '?spectate' : '';
  const response = await fetch(`${base}${JOIN_PATH}${query}`, { method: 'GET', signal }).catch((error) => {
    throw new Error(`${where}: ${base} could not be asked to join: ${signal.aborted ? 'timed out' : error}`);
  });
  const text = await readBounded(response, MAX_JOIN_ANSWER_BYTES);
  if (!response.ok)
    throw new Error(`${where}: ${base} refused to join: ${response.status} ${(text ?? '').slice(0, 200)}`);
  if (text === null)
    throw new Error(
      `${where}: ${base} is not a ghostwire game server (join answer over ${MAX_JOIN_ANSWER_BYTES} bytes)`,
    );
  const answer = readJoinAnswer(parseJson(text));
  if (answer === null) throw new Error(`${where}: ${base} is not a ghostwire game server (bad join answer)`);
  if (answer.game !== game.name)
    throw new Error(
      `${where}: ${base} serves the game ${JSON.stringify(answer.game)}, not ${JSON.stringify(game.name)}`,
    );
  const token = tokenOf(answer.token);
  if (token === null)
    throw new Error(
      `${where}: ${base} sent a bad connect token (not ${CONNECT_TOKEN_BYTES} bytes of base64)`,
    );
  if (parseAddress(answer.serverAddress) === null)
    throw new Error(
      `${where}: ${base} sent a bad server address ${JSON.stringify(answer.serverAddress.slice(0, 64))}`,
    );
  if (udp !== null && answer.udp && (choice === 'auto' || choice === 'udp'))
    return { token, transport: await udp(answer.serverAddress), kind: 'udp', reseat: null };
  if (choice === 'udp') throw new Error(`${where}: ${base} serves no UDP`);
  if (answer.websocket === null && answer.webrtc === null)
    throw new Error(
      udp === null
        ? `${where}: ${base} serves only UDP, which this client has not got: in Node, import GameClient from 'ghostwire/node' (it registers UDP); for pages, serve WebSocket (install ws beside the server)`
        : `${where}: ${base} serves only UDP, not ${choice}`,
    );
  const wsUrl = new URL(answer.websocket ?? '/', base);
  wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
  const opened = await connectTransport({
    choice: choice === 'auto' ? 'auto' : choice,
    webrtc:
      answer.webrtc === null
        ? undefined
        : {
            signalingUrl: new URL(answer.webrtc, base).href,
            serverAddress: toAddress(answer.serverAddress),
            ...(options.RTCPeerConnection === undefined
              ? {}
              : { RTCPeerConnection: options.RTCPeerConnection }),
          },
    websocket:
      answer.websocket === null
        ? undefined
        : {
            url: wsUrl.href,
            serverAddress: answer.serverAddress,
            ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
          },
  });
  return { token, transport: opened.transport, kind: opened.kind, reseat: null };
}

/** Seated through the services backend: a guest session, then a room (or a match), then its transport. */
async function viaBackend(
  url: string,
  options: GameClientOptions,
  fetch: FetchLike,
  timeout: number,
): Promise<Opened> {
  const backend = new BackendClient({ url, fetch, timeoutMs: timeout * 1000 });
  await backend.auth({ name: options.name ?? 'guest' });
  const udp = registeredUdpOpener();
  const choice = options.transport ?? 'auto';
  const kind: TransportKind = choice !== 'auto' ? choice : udp !== null ? 'udp' : 'websocket';
  const spectate = options.spectate === true;
  const seat: Seated = spectate
    ? await backend
        .spectate({
          ...(options.pool !== undefined ? { pool: options.pool } : { roomId: options.room }),
          transport: kind,
        })
        .catch((error: unknown) => {
          // `room` names a type to a player, a room's id to a spectator: say so when it is unknown.
          if (
            options.room !== undefined &&
            error instanceof Error &&
            /no such room|roomId/.test(error.message)
          )
            error.message += ` (with spectate, room is the id of a running room, not a room type)`;
          throw error;
        })
    : options.pool !== undefined
      ? await backend.matchmake({ pool: options.pool, transport: kind })
      : await backend.joinOrCreate(options.room!, { transport: kind, options: options.roomOptions ?? {} });
  // A spectator holds no seat: coming back is watching the same room again.
  const reseat = spectate
    ? async () => (await backend.spectate({ roomId: seat.roomId, transport: kind })).connectToken
    : async () =>
        (await backend.reconnect(seat.seatId, { transport: kind, roomId: seat.roomId })).connectToken;
  if (kind === 'udp')
    return { token: seat.connectToken, transport: await udp!(seat.serverAddress), kind, reseat };
  if (kind === 'websocket') {
    const transport = new WebSocketClientTransport({
      url: `ws://${seat.serverAddress}/`,
      serverAddress: seat.serverAddress,
      ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
    });
    if (!(await transport.opened)) throw new Error(`${where}: the room's WebSocket did not open`);
    return { token: seat.connectToken, transport, kind, reseat };
  }
  const opened = await connectTransport({
    choice: 'webrtc',
    webrtc: {
      signalingUrl: seat.signalingUrl ?? '',
      serverAddress: toAddress(seat.serverAddress),
      ...(options.RTCPeerConnection === undefined ? {} : { RTCPeerConnection: options.RTCPeerConnection }),
    },
  });
  return { token: seat.connectToken, transport: opened.transport, kind, reseat };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The token's bytes, or null when it is not base64 of a whole connect token. */
function tokenOf(text: string): Uint8Array | null {
  if (text.length !== Math.ceil(CONNECT_TOKEN_BYTES / 3) * 4) return null;
  try {
    const bytes = fromBase64(text);
    return bytes.length === CONNECT_TOKEN_BYTES ? bytes : null;
  } catch {
    return null; // atob: not base64
  }
}

/** The body as text, or null when it is over `max` bytes (read no further). */
async function readBounded(response: Response, max: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > max) {
    await response.body?.cancel().catch(() => {});
    return null;
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}
