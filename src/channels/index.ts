/**
 * `ghostwire/channels`: messages over a connection: message types, reliable-ordered and unreliable
 * channels, blocks, custom channels, and the message client and server. Browser-safe.
 */
export type { BlockProgress, CustomChannel, EncodedMessage, PacketRecord } from './channel.js';
export type {
  ChannelConfig,
  ChannelKind,
  CustomChannelConfig,
  MessageChannelConfig,
  MessageChannelKind,
  ResolvedChannelConfig,
} from './config.js';
export {
  MessageConnection,
  type MessageConnectionOptions,
  type MessageCounters,
  type UndeliveredReport,
} from './connection.js';
export type { ConnectionState, ConnectionStats } from './connection-stats.js';
export {
  type AnyMessageType,
  Block,
  defineMessage,
  MessageFactory,
  type MessageSerializer,
  type MessageType,
  type MessageValue,
  type ReceivedMessage,
  type ReceivedMessageOf,
} from './message.js';
export {
  type ChannelOptions,
  MessageClient,
  type MessageClientOptions,
  MessageServer,
  type MessageServerOptions,
} from './message-endpoints.js';
export { CHANNEL_RELIABLE_DEFAULTS } from './packet-defaults.js';
