/**
 * `ghostwire/connection`: netcode 1.02 secure connections: connect tokens, the client and the
 * server, and the AEAD they encrypt with. Browser-safe (`ghostwire/node` registers libsodium's
 * WebAssembly AEAD as the default).
 */
export { type Aead, defaultAead, nobleAead, registerDefaultAead } from './aead.js';
export { Client, type ClientOptions, ClientState, describeClientState } from './client.js';
export {
  type ConnectToken,
  type ConnectTokenPrivate,
  type ConnectTokenResult,
  type GenerateConnectTokenOptions,
  generateConnectToken,
  readConnectToken,
} from './connect-token.js';
export {
  CONNECT_TOKEN_BYTES,
  KEY_BYTES,
  MAX_CLIENTS,
  MAX_PAYLOAD_BYTES,
  MAX_SERVERS_PER_CONNECT,
  USER_DATA_BYTES,
} from './constants.js';
export { Server, type ServerCounters, type ServerDisconnectReason, type ServerOptions } from './server.js';
