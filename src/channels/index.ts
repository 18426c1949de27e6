export type { BlockProgress, EncodedMessage, PacketRecord } from './channel.js';
export type { ChannelConfig, ChannelKind } from './config.js';
export { MessageConnection, type MessageConnectionOptions, type MessageCounters } from './connection.js';
export {
  type AnyMessageType,
  Block,
  defineMessage,
  MessageFactory,
  type MessageSerializer,
  type MessageType,
  type ReceivedMessage,
} from './message.js';
export {
  type ChannelOptions,
  type ConnectionStats,
  MessageClient,
  MessageServer,
} from './message-endpoints.js';
export { CHANNEL_RELIABLE_DEFAULTS } from './packet-defaults.js';
