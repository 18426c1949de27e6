/**
 * What the demo's server, its bots and the page share: the protocol id, the message factory and
 * the channel list (replication, then inputs), the WebSocket path and what GET /token answers.
 * Browser-safe: the page's bundle imports it.
 */
import { defineMessage, MessageFactory } from '../src/channels/index.js';
import { t } from '../src/index.js';

export const PROTOCOL_ID = 0x6768_6f73_7464_656dn;

/** Where the page's WebSocket upgrades, on the same port as the page. */
export const WEBSOCKET_PATH = '/ghostwire';
/** Where the page POSTs its WebRTC offer (one round trip; the answer carries the server's candidate). */
export const RTC_OFFER_PATH = '/rtc/offer';

/**
 * The game's messages: the factory both ends need. The channels are the arena's replication
 * channel (0) and its input channel (1); a note type is registered for the messages to come.
 */
export const Note = defineMessage('note', t.object({ text: t.string(64) }));
export const factory = new MessageFactory([Note]);

/** GET /servers' JSON answer: the address each transport's tokens list (webrtc null: none served). */
export interface ServersAnswer {
  websocket: string;
  webrtc: string | null;
}

/**
 * GET /token?transport=webrtc|websocket's JSON answer (default websocket; 404 with
 * `{ error }` when that transport is not served).
 */
export interface TokenAnswer {
  /** The connect token, base64. */
  token: string;
  /** The server address the token lists (the public address of the transport asked for). */
  serverAddress: string;
  /** The `bot` number of this client's avatar: how the page finds its own among the ghosts. */
  avatar: number;
}

/**
 * Avatars of players are numbered from here; the server's bots take the numbers below. A bot's
 * circle depends on its number mod 8: 20 keeps a page in bot mode off the circles of the first 4 bots.
 */
export const FIRST_PLAYER_AVATAR = 20;
/** Avatar numbers are 6 bits (Avatar.bot); players cycle through FIRST_PLAYER_AVATAR..63. */
export const LAST_AVATAR = 63;
