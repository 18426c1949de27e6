export { type Aead, defaultAead, nobleAead, registerDefaultAead } from './aead.js';
export { readChallengeToken, writeChallengeToken } from './challenge-token.js';
export { Client, type ClientOptions, ClientState, describeClientState } from './client.js';
export {
  type ConnectToken,
  type ConnectTokenPrivate,
  type ConnectTokenResult,
  type GenerateConnectTokenOptions,
  generateConnectToken,
  readConnectToken,
} from './connect-token.js';
export * from './constants.js';
export { PacketCodec, type PacketView, packetView, typeMask } from './packets.js';
export { ReplayProtection } from './replay-protection.js';
export { Server, type ServerCounters, type ServerDisconnectReason, type ServerOptions } from './server.js';
