/**
 * A zoned world's player ids: (gateway × 256 + generation) × 65,536 + slot, one uint32. The
 * gateway part routes a zone's owner records and events to the gateway holding the player; the
 * generation, bumped each time a slot is taken, tells a slot's successive players apart, so a late
 * record about one who left (a zone's feed trails by a tick or two) never reaches the next player
 * seated in that slot. Browser-safe.
 */

/** Player slots per gateway. */
export const GATEWAY_SLOTS = 65_536;
/** Gateways in one world. */
export const MAX_GATEWAYS = 256;
const GENERATIONS = 256;

/** The id of the player seated in `slot` of `gateway` at the slot's `generation` (taken mod 256). */
export function gatewayPlayerId(gateway: number, generation: number, slot: number): number {
  return (gateway * GENERATIONS + (generation % GENERATIONS)) * GATEWAY_SLOTS + slot;
}

/** The gateway a player id belongs to (-1 when it is no player id). */
export function gatewayOfPlayer(playerId: number): number {
  if (!Number.isInteger(playerId) || playerId < 0 || playerId > 0xffffffff) return -1;
  return Math.floor(playerId / (GENERATIONS * GATEWAY_SLOTS));
}

/** The slot of a valid player id. */
export function slotOfPlayer(playerId: number): number {
  return playerId % GATEWAY_SLOTS;
}
