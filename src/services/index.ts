/**
 * `ghostwire/services` (Node-only): what runs a fleet of game servers — the directory (embedded or
 * Redis), rooms and their server processes, matchmaking, the HTTP backend that mints connect
 * tokens, the process manager and the load tester.
 */
export * from './directory.js';
export { EmbeddedDirectory, type EmbeddedDirectoryOptions } from './embedded-directory.js';
export * from './match-rules.js';
export * from './matchmaker.js';
export * from './room-requests.js';
export * from './seat-token.js';
