/** netcode 1.02 constants (STANDARD.md; the vectors' `protocol` section). */
export const VERSION_INFO: Uint8Array = new Uint8Array(
  [...'NETCODE 1.02'].map((c) => c.charCodeAt(0)).concat(0),
);
export const VERSION_INFO_BYTES = 13;
export const CONNECT_TOKEN_BYTES = 2048;
export const CONNECT_TOKEN_PRIVATE_BYTES = 1024;
export const CONNECT_TOKEN_NONCE_BYTES = 24;
export const CHALLENGE_TOKEN_BYTES = 300;
export const KEY_BYTES = 32;
export const MAC_BYTES = 16;
export const USER_DATA_BYTES = 256;
export const MAX_SERVERS_PER_CONNECT = 32;
export const MAX_PACKET_BYTES = 1300;
export const MAX_PAYLOAD_BYTES = 1200;
export const REPLAY_PROTECTION_BUFFER_SIZE = 256;
export const PACKET_SEND_RATE = 10;
export const NUM_DISCONNECT_PACKETS = 10;
export const MAX_CLIENTS = 256;
/** The connection request packet is always exactly this long (which also prevents amplification). */
export const CONNECTION_REQUEST_BYTES =
  1 + VERSION_INFO_BYTES + 8 + 8 + CONNECT_TOKEN_NONCE_BYTES + CONNECT_TOKEN_PRIVATE_BYTES;

export const PacketType = {
  ConnectionRequest: 0,
  ConnectionDenied: 1,
  ConnectionChallenge: 2,
  ConnectionResponse: 3,
  KeepAlive: 4,
  Payload: 5,
  Disconnect: 6,
} as const;
export type PacketType = (typeof PacketType)[keyof typeof PacketType];
