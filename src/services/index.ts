/**
 * `ghostwire/services` (Node-only): what runs a fleet of game servers — the directory (embedded or
 * Redis), rooms and their server processes, matchmaking, the HTTP backend that mints connect
 * tokens, the process manager and the load tester.
 */

export { parseCreateRoomRequest } from './create-room-answer.js';
export * from './directory.js';
export { EmbeddedDirectory, type EmbeddedDirectoryOptions } from './embedded-directory.js';
export {
  ROOM_DEFAULTS,
  Room,
  RoomClient,
  type RoomClientState,
  type RoomDefaults,
  type RoomMessage,
  type RoomType,
} from './room.js';
export { type RoomChannelSlot, roomChannel } from './room-channels.js';
export * from './room-requests.js';
export {
  type CreateRoomResult,
  RoomServer,
  type RoomServerOptions,
  type RoomServerStats,
  type RoomServerTransport,
} from './room-server.js';
export * from './seat-token.js';
