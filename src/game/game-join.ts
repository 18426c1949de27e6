/**
 * What a GameServer's HTTP endpoint answers a client that asks to join, as JSON (written by the
 * server, read by GameClient), and the paths it serves.
 */

/** GET: a connect token and the transports served. */
export const JOIN_PATH = '/ghostwire/join';
/** The WebSocket transport's upgrade path. */
export const WEBSOCKET_PATH = '/ghostwire/ws';
/** POST: a WebRTC offer (the signalling route). */
export const WEBRTC_PATH = '/ghostwire/rtc';

export interface GameJoinAnswer {
  /** The game's name, so a client of another game fails with a clear reason. */
  game: string;
  /** The 2048-byte netcode connect token, base64. */
  token: string;
  /** The address the token lists: every transport of the server answers to it. */
  serverAddress: string;
  /** Whether netcode over UDP is served (on the server's port number, UDP). */
  udp: boolean;
  /** Paths on the server's URL: the WebSocket upgrade and the WebRTC offer; null when not served. */
  websocket: string | null;
  webrtc: string | null;
}

/** Reads a join answer (from the network: checked field by field); null when it is not one. */
export function readJoinAnswer(value: unknown): GameJoinAnswer | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const pathOrNull = (x: unknown) => x === null || (typeof x === 'string' && x.startsWith('/'));
  if (
    typeof v.game !== 'string' ||
    typeof v.token !== 'string' ||
    typeof v.serverAddress !== 'string' ||
    typeof v.udp !== 'boolean' ||
    !pathOrNull(v.websocket) ||
    !pathOrNull(v.webrtc)
  )
    return null;
  return v as unknown as GameJoinAnswer;
}

/** Base64 to bytes without Node's Buffer (browsers). */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
