/**
 * What the HTTP backend answers a join with, as it travels (JSON): shared by the backend that
 * writes it (services/) and the browser-safe client that reads it (backend-client.ts).
 */

/** The transports a client asks a seat for; a room server lists one address per kind it serves. */
export type TransportKind = 'udp' | 'websocket' | 'webrtc';
export const TRANSPORT_KINDS: readonly TransportKind[] = ['udp', 'websocket', 'webrtc'];

/** What a join, create, reconnect or a match answers: where to connect and the token to do it. */
export interface JoinAnswer {
  roomId: string;
  seatId: string;
  processId: string;
  transport: TransportKind;
  /** The address the token lists (the process's address for this transport). */
  serverAddress: string;
  /** The 2048-byte netcode connect token, base64. */
  connectToken: string;
  /** Where a WebRTC client posts its offer (webrtc only). */
  signalingUrl?: string;
  /** When the seat lapses unless the client connects, unix ms. */
  expiresAt: number;
}
