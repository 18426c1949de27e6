/**
 * The Colyseus copy of the demo arena (tools/live-arena.ts, demo/arena-room.ts): its constants and
 * its @colyseus/schema 5 state, shared by the room (colyseus-room.ts) and the bots
 * (colyseus-bots.ts), which decode into the same classes.
 *
 * Fields hold the very integers ghostwire's arena sends, in the narrowest fixed-width types
 * @colyseus/schema has (the bench/w4/colyseus.ts precedent): positions on the 1/64 m grid of a
 * 200 m arena (0..12,800, uint16), an orb's glow 0..15 and an avatar's seat 0..63 (uint8), the
 * score (uint16). Both maps are tagged `.view()`: an entity reaches a client only once its
 * StateView `add`s it (the 40 m interest radius), and `remove` sends that client a DELETE.
 */
import { type SchemaType, schema, t } from '@colyseus/schema';

/** Metres, square. */
export const ARENA_METRES = 200;
/** Positions are integers in 1/GRID m. */
export const GRID = 64;
export const ARENA_UNITS = ARENA_METRES * GRID;
export const ORBS = 400;
/** Seats per room at most (an avatar's `bot` field holds 0..63). */
export const SEATS = 64;
export const TICK_MS = 50;
export const TICK_RATE = 1000 / TICK_MS;
/** Interest: enter within 40 m, leave beyond 46 m (ghostwire's 1.15 leave factor). */
export const ENTER_METRES = 40;
export const LEAVE_METRES = 46;
/** A step of at most half a metre each way per input (32 grid units). */
export const MAX_STEP_UNITS = GRID / 2;
/** A zap within this of the target's present place hits (metres). */
export const HIT_METRES = 0.5;
/** The room type's name, as ghostwire's arena room is registered. */
export const ROOM_NAME = 'arena';

/** Message types (numbers: one msgpack byte each). */
export const INPUT_MESSAGE = 0;
/** Verification only: a bot's [patch index, checksum] (see colyseus-room.ts). */
export const CHECK_MESSAGE = 1;
/** A bot sends a check every this many patches, so the room computes its side only then. */
export const CHECK_EVERY = 20;

export const ColyseusOrb = schema({ x: t.uint16(), y: t.uint16(), glow: t.uint8() }, 'ArenaOrb');
export type ColyseusOrb = SchemaType<typeof ColyseusOrb>;
export const ColyseusAvatar = schema(
  { x: t.uint16(), y: t.uint16(), bot: t.uint8(), score: t.uint16() },
  'ArenaAvatar',
);
export type ColyseusAvatar = SchemaType<typeof ColyseusAvatar>;
/** Orbs keyed by their index as a string, avatars by their client's sessionId. */
export const ColyseusArenaState = schema(
  { orbs: t.map(ColyseusOrb).view(), avatars: t.map(ColyseusAvatar).view() },
  'ArenaState',
);
export type ColyseusArenaState = SchemaType<typeof ColyseusArenaState>;

/** One entity's part of a checksum: order-free (summed), so server and client need not agree on order. */
export function entityHash(kind: number, key: number, x: number, y: number, extra: number): number {
  let h = Math.imul(kind * 0x9e3779b1 + key, 0x85ebca6b) ^ x;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ (y << 8) ^ extra;
  return Math.imul(h ^ (h >>> 16), 0x27d4eb2d) >>> 0;
}

/** The checksum of a decoded (or the server's) state as one client sees it: orbs and avatars. */
export function stateChecksum(state: ColyseusArenaState): number {
  let sum = 0;
  state.orbs.forEach((orb, key) => {
    sum = (sum + entityHash(0, Number(key), orb.x, orb.y, orb.glow)) >>> 0;
  });
  state.avatars.forEach((avatar) => {
    sum = (sum + entityHash(1, avatar.bot, avatar.x, avatar.y, avatar.score)) >>> 0;
  });
  return sum;
}
