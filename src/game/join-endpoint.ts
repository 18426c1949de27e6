/**
 * A GameServer's GET /ghostwire/join: mints a connect token for a client, within bounds per
 * client address (an IPv4 address or an IPv6 /64): requests per second (else 429 with
 * Retry-After) and players held at once (else 429: the address's tokens not yet expired plus its
 * connected players). A browser page of another origin gets nothing (403) unless listed in
 * `allowOrigins`, so no site a player visits can take tokens with the player's address.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generateConnectToken } from '../connection/connect-token.js';
import { toAddress } from '../transport/address.js';
import type { GameDefinition } from './define-game.js';
import { type GameJoinAnswer, WEBRTC_PATH, WEBSOCKET_PATH } from './game-join.js';
import { JoinRate } from './join-rate.js';
import { JoinSeats } from './join-seats.js';
import type { GameTransportKind } from './server-transports.js';
import { SPECTATOR_CLIENT_ID_BASE } from './spectator-seats.js';

/** Seconds a minted token can open a connection (netcode's own default). */
export const TOKEN_EXPIRE_SECONDS = 30;

/** What a GameServer's `auth` answers: let in (true, or as `{ userId }`), or refuse (false, or the reason). */
export type JoinVerdict = boolean | string | { userId: string };

/** The longest user id a join may carry. */
const MAX_USER_ID_LENGTH = 128;

export interface JoinEndpointOptions {
  game: GameDefinition;
  privateKey: Uint8Array;
  publicAddress: string;
  kinds: readonly GameTransportKind[];
  maxPlayersPerAddress: number;
  /** Tokens tracked at most (unexpired or connected), whatever their addresses: memory stays bounded. */
  maxTokens: number;
  joinRate: { perSecond: number; burst: number };
  /** Origins whose pages may read the answer (besides the server's own), or '*' for any. */
  allowOrigins: readonly string[] | '*';
  auth: ((request: IncomingMessage) => JoinVerdict | Promise<JoinVerdict>) | undefined;
  clientAddress: (request: IncomingMessage) => string;
  /** The server's clock, in seconds. */
  now: () => number;
  /** Spectator seats per address (GET ?spectate asks for one); 0: the server takes no spectators. */
  maxSpectatorsPerAddress: number;
}

export interface JoinCounts {
  tokensIssued: number;
  /** Requests refused: over the address's rate, its players, another origin's page, auth. */
  joinsRateLimited: number;
  joinsOverAddressCap: number;
  joinsWrongOrigin: number;
  joinsDenied: number;
  /** Refused with 503: maxTokens tokens were live (many addresses joining at once). */
  joinsServerBusy: number;
}

export class JoinEndpoint {
  readonly seats: JoinSeats;
  /** The spectators' tokens: their own places per address, their own client ids. */
  readonly spectatorSeats: JoinSeats;
  readonly counts: JoinCounts = {
    tokensIssued: 0,
    joinsRateLimited: 0,
    joinsOverAddressCap: 0,
    joinsWrongOrigin: 0,
    joinsDenied: 0,
    joinsServerBusy: 0,
  };
  private readonly rate: JoinRate;

  constructor(private readonly options: JoinEndpointOptions) {
    this.seats = new JoinSeats(options.maxPlayersPerAddress);
    this.spectatorSeats = new JoinSeats(
      Math.max(1, options.maxSpectatorsPerAddress),
      SPECTATOR_CLIENT_ID_BASE,
    );
    this.rate = new JoinRate(options.joinRate.perSecond, options.joinRate.burst);
  }

  async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { options } = this;
    const now = options.now();
    const origin = request.headers.origin;
    const cors: Record<string, string> = {};
    if (origin !== undefined) {
      if (options.allowOrigins === '*') cors['access-control-allow-origin'] = '*';
      else if (!sameOrigin(request, origin) && !options.allowOrigins.includes(origin)) {
        this.counts.joinsWrongOrigin++;
        refuse(response, 403, `pages of ${origin} may not join`);
        return;
      } else cors['access-control-allow-origin'] = origin;
      cors.vary = 'origin';
    }
    const spectate = new URL(request.url ?? '/', 'http://x').searchParams.has('spectate');
    if (spectate && options.maxSpectatorsPerAddress === 0) {
      refuse(response, 403, 'this server takes no spectators', cors);
      return;
    }
    const seats = spectate ? this.spectatorSeats : this.seats;
    const address = options.clientAddress(request);
    const wait = this.rate.take(address, now);
    if (wait > 0) {
      this.counts.joinsRateLimited++;
      refuse(response, 429, 'too many join requests', { 'retry-after': String(wait), ...cors });
      return;
    }
    const allowed = options.auth === undefined ? true : await options.auth(request);
    const userId = userIdOf(allowed);
    if (allowed !== true && userId === null) {
      this.counts.joinsDenied++;
      refuse(response, 403, typeof allowed === 'string' ? allowed : 'not allowed', cors);
      return;
    }
    // The server's clock may have moved during auth.
    const issuedAt = options.now();
    seats.expire(issuedAt);
    if (seats.size >= options.maxTokens) {
      this.counts.joinsServerBusy++;
      refuse(response, 503, 'too many players joining; try again', { 'retry-after': '5', ...cors });
      return;
    }
    // A second's margin: netcode checks the token's expiry in whole unix seconds.
    const clientId = seats.issue(address, issuedAt, issuedAt + TOKEN_EXPIRE_SECONDS + 1, userId);
    if (clientId === null) {
      this.counts.joinsOverAddressCap++;
      refuse(
        response,
        429,
        `this address already holds ${seats.perAddress} ${spectate ? 'spectators' : 'players'}`,
        {
          'retry-after': String(TOKEN_EXPIRE_SECONDS),
          ...cors,
        },
      );
      return;
    }
    const token = generateConnectToken({
      protocolId: options.game.protocolId,
      privateKey: options.privateKey,
      clientId,
      serverAddresses: [toAddress(options.publicAddress)],
      now: Math.floor(Date.now() / 1000),
      expireSeconds: TOKEN_EXPIRE_SECONDS,
    });
    this.counts.tokensIssued++;
    const answer: GameJoinAnswer = {
      game: options.game.name,
      token: Buffer.from(token).toString('base64'),
      serverAddress: options.publicAddress,
      udp: options.kinds.includes('udp'),
      websocket: options.kinds.includes('websocket') ? WEBSOCKET_PATH : null,
      webrtc: options.kinds.includes('webrtc') ? WEBRTC_PATH : null,
    };
    response
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors })
      .end(JSON.stringify(answer));
  }
}

/**
 * The user id of an auth verdict `{ userId }`, or null. A verdict object whose userId is not a
 * string of 1 to 128 characters is the game's mistake: thrown, so the host reports it and the
 * join gets no token.
 */
function userIdOf(verdict: JoinVerdict): string | null {
  if (typeof verdict !== 'object' || verdict === null) return null;
  const { userId } = verdict;
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_USER_ID_LENGTH)
    throw new TypeError(
      `GameServer auth: { userId } must be a string of 1 to ${MAX_USER_ID_LENGTH} characters, got ${typeof userId === 'string' ? `${userId.length} characters` : typeof userId}`,
    );
  return userId;
}

/** Whether a page's Origin is the server's own (its Host header, http or https). */
function sameOrigin(request: IncomingMessage, origin: string): boolean {
  const host = request.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

function refuse(
  response: ServerResponse,
  status: number,
  reason: string,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify({ error: reason }));
}
