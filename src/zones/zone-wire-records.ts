/**
 * The bodies of the durable messages (docs/zones-wire.md): an entity record (a handoff's payload,
 * and each entity of a snapshot), the player record that travels with it, and a zone's snapshot.
 * Writers check what the schemas do not and throw naming the field; readers return null with the
 * path and reason in `ctx.reason`, and never throw.
 */
import { bitsRequired } from '../bits/bits-required.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { WORLD_IDS_PER_ZONE } from './world-id-allocator.js';
import type { EntityRecord, PlayerRecord, ZoneInput, ZoneSnapshotRecord } from './zone-messages.js';
import { readTypeIndex, refuse, type WireContext, within, writeTypeIndex } from './zone-wire-context.js';
import {
  checkArray,
  checkUint32,
  checkWorldId,
  MAX_GAME_DATA_BYTES,
  MAX_JSON_BYTES,
  MAX_PENDING_INPUTS,
  MAX_SINCE_HANDOFF_TICKS,
  MAX_SNAPSHOT_ENTITIES,
  MAX_SNAPSHOT_PLAYERS,
  readCount,
  readJson,
  readTickNear,
  readViewTick,
  readWorldId,
  writeCount,
  writeJson,
  writeTickNear,
  writeViewTick,
} from './zone-wire-fields.js';

/** The fewest bits of a data field: its length and the 2 bytes of `{}`. */
const MIN_JSON_BITS = bitsRequired(0, MAX_JSON_BYTES) + 16;
const MIN_PLAYER_BITS = 32 + MIN_JSON_BITS + bitsRequired(0, MAX_PENDING_INPUTS);
const minEntityBits = (ctx: WireContext): number =>
  32 + 32 + ctx.typeBits + ctx.minStateBits + MIN_JSON_BITS + 16 + 1;

export function writeEntityRecord(ctx: WireContext, ws: WriteStream, record: EntityRecord): void {
  checkWorldId(record.worldId, ctx.zoneLimit, 'worldId');
  checkUint32(record.hseq, 'hseq');
  const since = record.sinceHandoffTicks;
  if (!(Number.isInteger(since) && since >= 0 && since <= MAX_SINCE_HANDOFF_TICKS))
    throw new RangeError(
      `sinceHandoffTicks: ${since} is not an integer in 0..${MAX_SINCE_HANDOFF_TICKS} (cap it)`,
    );
  ws.uint32(record.worldId);
  ws.uint32(record.hseq);
  writeTypeIndex(ws, record.typeIndex, ctx.typeBits, ctx.states.length, 'typeIndex');
  ctx.states[record.typeIndex].write(ws, record.state);
  writeJson(ws, record.data, MAX_JSON_BYTES, 'data');
  ws.uint16(since);
  if (record.player !== null && typeof record.player !== 'object')
    throw new TypeError('player: must be a player record or null');
  if (ws.bool(record.player !== null)) writePlayerRecord(ctx, ws, record.player as PlayerRecord, 'player.');
}

export function readEntityRecord(ctx: WireContext): EntityRecord | null {
  const rs = ctx.rs;
  const worldId = readWorldId(rs, ctx.zoneLimit);
  if (worldId < 0) return refuse(ctx, 'worldId');
  const hseq = rs.uint32(0);
  if (!rs.ok) return refuse(ctx, 'hseq');
  const typeIndex = readTypeIndex(rs, ctx.typeBits, ctx.states.length, 'entity types');
  if (typeIndex < 0) return refuse(ctx, 'typeIndex');
  const state = ctx.states[typeIndex].read(rs);
  if (state === null) return refuse(ctx, 'state');
  const data = readJson(rs, MAX_JSON_BYTES);
  if (!rs.ok) return refuse(ctx, 'data');
  const sinceHandoffTicks = rs.uint16(0);
  const hasPlayer = rs.bool(false);
  if (!rs.ok) return refuse(ctx, 'sinceHandoffTicks');
  let player: PlayerRecord | null = null;
  if (hasPlayer) {
    player = readPlayerRecord(ctx);
    if (player === null) {
      ctx.reason = `player.${ctx.reason}`;
      return null;
    }
  }
  return { worldId, hseq, typeIndex, state, data, sinceHandoffTicks, player };
}

/** `prefix` names the record in errors ('player.', 'players[3].'). */
function writePlayerRecord(ctx: WireContext, ws: WriteStream, record: PlayerRecord, prefix: string): void {
  checkUint32(record.playerId, `${prefix}playerId`);
  ws.uint32(record.playerId);
  writeJson(ws, record.data, MAX_JSON_BYTES, `${prefix}data`);
  const inputs = record.inputs;
  checkArray(inputs, `${prefix}inputs`);
  writeCount(ws, inputs.length, MAX_PENDING_INPUTS, `${prefix}inputs`);
  let previous = -1;
  for (let i = 0; i < inputs.length; i++) {
    const { playerId, tick, viewTick, input } = inputs[i];
    const field = `${prefix}inputs[${i}]`;
    if (playerId !== record.playerId)
      throw new RangeError(`${field}.playerId: ${playerId} is not the record's player ${record.playerId}`);
    checkUint32(tick, `${field}.tick`);
    if (tick <= previous)
      throw new RangeError(`${field}.tick: ${tick} does not follow ${previous} (oldest first, one per tick)`);
    if (previous < 0) ws.uint32(tick);
    else writeTickNear(ws, tick, previous);
    previous = tick;
    writeViewTick(ws, tick, viewTick, `${field}.viewTick`);
    ctx.input.write(ws, input);
  }
}

function readPlayerRecord(ctx: WireContext): PlayerRecord | null {
  const rs = ctx.rs;
  const playerId = rs.uint32(0);
  if (!rs.ok) return refuse(ctx, 'playerId');
  const data = readJson(rs, MAX_JSON_BYTES);
  if (!rs.ok) return refuse(ctx, 'data');
  const count = readCount(rs, MAX_PENDING_INPUTS, 9 + 1 + ctx.minInputBits);
  if (count < 0) return refuse(ctx, 'inputs');
  const inputs: ZoneInput[] = [];
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const tick = previous < 0 ? rs.uint32(0) : readTickNear(rs, previous);
    if (!rs.ok) return refuse(ctx, `inputs[${i}].tick`);
    if (tick <= previous)
      return refuse(
        ctx,
        `inputs[${i}].tick`,
        `tick ${tick} does not follow ${previous} (oldest first, one per tick)`,
      );
    previous = tick;
    const viewTick = readViewTick(rs, tick);
    if (!rs.ok) return refuse(ctx, `inputs[${i}].viewTick`);
    const input = ctx.input.read(rs);
    if (input === null) return refuse(ctx, `inputs[${i}].input`);
    inputs.push({ playerId, tick, viewTick, input });
  }
  return { playerId, data, inputs };
}

export function writeZoneSnapshot(ctx: WireContext, ws: WriteStream, snapshot: ZoneSnapshotRecord): void {
  const zoneLimit = ctx.zoneLimit;
  if (!(Number.isInteger(snapshot.zone) && snapshot.zone >= 0 && snapshot.zone < zoneLimit))
    throw new RangeError(`zone: ${snapshot.zone} is not an integer in 0..${zoneLimit - 1}`);
  checkUint32(snapshot.tick, 'tick');
  const next = snapshot.nextWorldId;
  if (!(Number.isInteger(next) && next >= 0 && next <= WORLD_IDS_PER_ZONE))
    throw new RangeError(`nextWorldId: ${next} is not an integer in 0..${WORLD_IDS_PER_ZONE}`);
  ws.uint8(snapshot.zone);
  ws.uint32(snapshot.tick);
  ws.int(next, 0, WORLD_IDS_PER_ZONE);
  writeJson(ws, snapshot.gameData, MAX_GAME_DATA_BYTES, 'gameData');
  const { entities, players } = snapshot;
  checkArray(entities, 'entities');
  writeCount(ws, entities.length, MAX_SNAPSHOT_ENTITIES, 'entities');
  for (let i = 0; i < entities.length; i++) {
    try {
      writeEntityRecord(ctx, ws, entities[i]);
    } catch (error) {
      throw prefixed(error, `entities[${i}].`);
    }
  }
  checkArray(players, 'players');
  writeCount(ws, players.length, MAX_SNAPSHOT_PLAYERS, 'players');
  for (let i = 0; i < players.length; i++) writePlayerRecord(ctx, ws, players[i], `players[${i}].`);
}

export function readZoneSnapshot(ctx: WireContext): ZoneSnapshotRecord | null {
  const rs = ctx.rs;
  const zone = rs.uint8(0);
  const tick = rs.uint32(0);
  if (!rs.ok) return refuse(ctx, 'zone, tick');
  if (zone >= ctx.zoneLimit) return refuse(ctx, 'zone', `zone ${zone} is not below ${ctx.zoneLimit}`);
  const nextWorldId = rs.bits(0, bitsRequired(0, WORLD_IDS_PER_ZONE));
  if (!rs.ok) return refuse(ctx, 'nextWorldId');
  if (nextWorldId > WORLD_IDS_PER_ZONE)
    return refuse(ctx, 'nextWorldId', `${nextWorldId} is past ${WORLD_IDS_PER_ZONE}`);
  const gameData = readJson(rs, MAX_GAME_DATA_BYTES);
  if (!rs.ok) return refuse(ctx, 'gameData');
  const entityCount = readCount(rs, MAX_SNAPSHOT_ENTITIES, minEntityBits(ctx));
  if (entityCount < 0) return refuse(ctx, 'entities');
  const entities: EntityRecord[] = [];
  for (let i = 0; i < entityCount; i++) {
    const entity = readEntityRecord(ctx);
    if (entity === null) return within(ctx, 'entities', i);
    entities.push(entity);
  }
  const playerCount = readCount(rs, MAX_SNAPSHOT_PLAYERS, MIN_PLAYER_BITS);
  if (playerCount < 0) return refuse(ctx, 'players');
  const players: PlayerRecord[] = [];
  for (let i = 0; i < playerCount; i++) {
    const player = readPlayerRecord(ctx);
    if (player === null) return within(ctx, 'players', i);
    players.push(player);
  }
  return { zone, tick, nextWorldId, gameData, entities, players };
}

/** The error with `prefix` before its message (a snapshot names the entity a bad field is in). */
function prefixed(error: unknown, prefix: string): unknown {
  if (error instanceof RangeError || error instanceof TypeError) error.message = `${prefix}${error.message}`;
  return error;
}
