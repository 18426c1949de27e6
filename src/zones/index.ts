/**
 * `ghostwire/zones` (Node-only): one world over several zones, each simulated by its own thread
 * or process, behind a gateway that holds each player's one connection. See docs/zones.md.
 */

export type { GameHostStats } from '../game/game-host.js';
export type { SpectatorStats } from '../game/spectator-seats.js';
export type { ZoneCommitStats } from './zone-commits.js';
export type { FeedRefusal, ZoneGatewayStats } from './zone-gateway.js';
export { ZoneMap } from './zone-map.js';
export type { ZoneMapDescription } from './zone-map-description.js';
export type { ZoneInfo, ZoneRules } from './zone-rules-module.js';
export type { ZoneRunnerStats } from './zone-runner.js';
export type { ZoneServerStats } from './zone-server.js';
export type { InputRefusal } from './zone-simulation.js';
export type { SupervisedZone } from './zone-supervisor.js';
export { ZonedWorld, type ZonedWorldOptions, type ZonedWorldStats } from './zoned-world.js';
