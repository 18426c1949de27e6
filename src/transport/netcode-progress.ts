/**
 * What a netcode server's outgoing datagram says about its peer, for the browser server transports,
 * which carry netcode without knowing it: the server sends keep-alives and payloads only to
 * connected clients, so the first one means the peer completed the handshake; a disconnect means
 * its connection is ending. The transport layer sits below connection/, hence the type numbers
 * here (netcode 1.02: the low 4 bits of the first byte).
 */
const KEEP_ALIVE = 4;
const PAYLOAD = 5;
const DISCONNECT = 6;

export type NetcodeProgress = 'connected' | 'disconnecting' | 'other';

/** The netcode state a server's datagram to a peer reveals. */
export function outgoingProgress(data: Uint8Array): NetcodeProgress {
  if (data.length === 0) return 'other';
  const type = data[0] & 0x0f;
  if (type === KEEP_ALIVE || type === PAYLOAD) return 'connected';
  if (type === DISCONNECT) return 'disconnecting';
  return 'other';
}
