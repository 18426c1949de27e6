/**
 * The bodies of the two per-tick messages (docs/zones-wire.md): a gateway's batch for a zone and
 * a zone's feed batch. Writers check what the schemas do not and throw naming the field; readers
 * return null with the path and reason in `ctx.reason`, and never throw.
 */
import type { WriteStream } from '../serialize/write-stream.js';
import type {
  FeedBatch,
  FeedEntity,
  GatewayBatch,
  PlayerOwner,
  ZoneEvent,
  ZoneInput,
  ZonePlayerMessage,
} from './zone-messages.js';
import { readTypeIndex, refuse, type WireContext, within, writeTypeIndex } from './zone-wire-context.js';
import {
  checkArray,
  checkUint32,
  checkWorldId,
  isUint32,
  MAX_BATCH_INPUTS,
  MAX_BATCH_MESSAGES,
  MAX_BATCH_PLAYERS,
  MAX_FEED_ENTITIES,
  MAX_FEED_EVENTS,
  MAX_FEED_OWNERS,
  MAX_FEED_REMOVED,
  readCount,
  readTickNear,
  readViewTick,
  readWorldId,
  readWorldIdAfter,
  writeCount,
  writeTickNear,
  writeViewTick,
  writeWorldIdAfter,
} from './zone-wire-fields.js';

export function writeGatewayBatch(ctx: WireContext, ws: WriteStream, batch: GatewayBatch): void {
  checkUint32(batch.gateway, 'gateway');
  checkUint32(batch.tick, 'tick');
  ws.uint32(batch.gateway);
  ws.uint32(batch.tick);
  writePlayerIds(ws, batch.joins, 'joins');
  writePlayerIds(ws, batch.leaves, 'leaves');
  const { inputs, messages } = batch;
  checkArray(inputs, 'inputs');
  writeCount(ws, inputs.length, MAX_BATCH_INPUTS, 'inputs');
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    if (!isUint32(input.playerId)) checkUint32(input.playerId, `inputs[${i}].playerId`);
    if (!isUint32(input.tick)) checkUint32(input.tick, `inputs[${i}].tick`);
    ws.uint32(input.playerId);
    writeTickNear(ws, input.tick, batch.tick);
    writeViewTick(ws, input.tick, input.viewTick, `inputs[${i}].viewTick`);
    ctx.input.write(ws, input.input);
  }
  checkArray(messages, 'messages');
  writeCount(ws, messages.length, MAX_BATCH_MESSAGES, 'messages');
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isUint32(message.playerId)) checkUint32(message.playerId, `messages[${i}].playerId`);
    ws.uint32(message.playerId);
    const count = ctx.messages.length;
    writeTypeIndex(ws, message.typeIndex, ctx.messageBits, count, `messages[${i}].typeIndex`);
    ctx.messages[message.typeIndex].write(ws, message.value);
  }
}

export function readGatewayBatch(ctx: WireContext): GatewayBatch | null {
  const rs = ctx.rs;
  const gateway = rs.uint32(0);
  const tick = rs.uint32(0);
  if (!rs.ok) return refuse(ctx, 'gateway, tick');
  const joins = readPlayerIds(ctx, 'joins');
  if (joins === null) return null;
  const leaves = readPlayerIds(ctx, 'leaves');
  if (leaves === null) return null;
  const inputCount = readCount(rs, MAX_BATCH_INPUTS, 32 + 9 + 1 + ctx.minInputBits);
  if (inputCount < 0) return refuse(ctx, 'inputs');
  const inputs: ZoneInput[] = [];
  for (let i = 0; i < inputCount; i++) {
    const playerId = rs.uint32(0);
    const inputTick = readTickNear(rs, tick);
    if (!rs.ok) return refuse(ctx, `inputs[${i}].tick`);
    const viewTick = readViewTick(rs, inputTick);
    if (!rs.ok) return refuse(ctx, `inputs[${i}].viewTick`);
    const input = ctx.input.read(rs);
    if (input === null) return refuse(ctx, `inputs[${i}].input`);
    inputs.push({ playerId, tick: inputTick, viewTick, input });
  }
  const messageCount = readCount(rs, MAX_BATCH_MESSAGES, 32 + ctx.messageBits);
  if (messageCount < 0) return refuse(ctx, 'messages');
  const messages: ZonePlayerMessage[] = [];
  for (let i = 0; i < messageCount; i++) {
    const playerId = rs.uint32(0);
    const typeIndex = readTypeIndex(rs, ctx.messageBits, ctx.messages.length, 'message types');
    if (!rs.ok) return refuse(ctx, `messages[${i}].typeIndex`);
    const value = ctx.messages[typeIndex].read(rs);
    if (value === null || !rs.ok) return refuse(ctx, `messages[${i}].value`);
    messages.push({ playerId, typeIndex, value });
  }
  return { gateway, tick, joins, leaves, inputs, messages };
}

function writePlayerIds(ws: WriteStream, ids: readonly number[], field: string): void {
  checkArray(ids, field);
  writeCount(ws, ids.length, MAX_BATCH_PLAYERS, field);
  for (let i = 0; i < ids.length; i++) {
    if (!isUint32(ids[i])) checkUint32(ids[i], `${field}[${i}]`);
    ws.uint32(ids[i]);
  }
}

function readPlayerIds(ctx: WireContext, field: string): number[] | null {
  const rs = ctx.rs;
  const count = readCount(rs, MAX_BATCH_PLAYERS, 32);
  if (count < 0) return refuse(ctx, field);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(rs.uint32(0));
  return rs.ok ? ids : refuse(ctx, field);
}

export function writeFeedBatch(ctx: WireContext, ws: WriteStream, batch: FeedBatch): void {
  const zoneLimit = ctx.zoneLimit;
  if (!(Number.isInteger(batch.zone) && batch.zone >= 0 && batch.zone < zoneLimit))
    throw new RangeError(`zone: ${batch.zone} is not an integer in 0..${zoneLimit - 1}`);
  checkUint32(batch.epoch, 'epoch');
  checkUint32(batch.tick, 'tick');
  ws.uint8(batch.zone);
  ws.uint32(batch.epoch);
  ws.uint32(batch.tick);
  ws.bool(batch.keyframe === true);

  const { entities, removed, owners, events } = batch;
  checkArray(entities, 'entities');
  writeCount(ws, entities.length, MAX_FEED_ENTITIES, 'entities');
  const { states, typeBits } = ctx;
  let previous = -1;
  for (let i = 0; i < entities.length; i++) {
    const entity = entities[i];
    const worldId = entity.worldId;
    if (!(worldId >>> 0 === worldId && worldId >>> 24 < zoneLimit))
      checkWorldId(worldId, zoneLimit, `entities[${i}].worldId`);
    const typeIndex = entity.typeIndex;
    if (!(typeIndex >>> 0 === typeIndex && typeIndex < states.length))
      writeTypeIndex(ws, typeIndex, typeBits, states.length, `entities[${i}].typeIndex`);
    writeWorldIdAfter(ws, previous, worldId);
    previous = worldId;
    if (typeBits > 0) ws.bits(typeIndex, typeBits);
    states[typeIndex].write(ws, entity.state);
  }

  checkArray(removed, 'removed');
  writeCount(ws, removed.length, MAX_FEED_REMOVED, 'removed');
  previous = -1;
  for (let i = 0; i < removed.length; i++) {
    checkWorldId(removed[i], zoneLimit, `removed[${i}]`);
    writeWorldIdAfter(ws, previous, removed[i]);
    previous = removed[i];
  }

  checkArray(owners, 'owners');
  writeCount(ws, owners.length, MAX_FEED_OWNERS, 'owners');
  for (let i = 0; i < owners.length; i++) {
    const { playerId, worldId } = owners[i];
    checkUint32(playerId, `owners[${i}].playerId`);
    ws.uint32(playerId);
    if (ws.bool(worldId !== -1)) {
      checkWorldId(worldId, zoneLimit, `owners[${i}].worldId`);
      ws.uint32(worldId);
    }
  }

  checkArray(events, 'events');
  writeCount(ws, events.length, MAX_FEED_EVENTS, 'events');
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (ws.bool(event.to !== -1)) {
      checkUint32(event.to, `events[${i}].to`);
      ws.uint32(event.to);
    }
    writeTypeIndex(ws, event.typeIndex, ctx.eventBits, ctx.events.length, `events[${i}].typeIndex`);
    if (typeof event.reliable !== 'boolean') throw new TypeError(`events[${i}].reliable: must be a boolean`);
    ws.bool(event.reliable);
    ctx.eventCodecs[event.typeIndex].write(ws, event.value);
  }
}

export function readFeedBatch(ctx: WireContext): FeedBatch | null {
  const rs = ctx.rs;
  const zone = rs.uint8(0);
  const epoch = rs.uint32(0);
  const tick = rs.uint32(0);
  const keyframe = rs.bool(false);
  if (!rs.ok) return refuse(ctx, 'zone, epoch, tick');
  if (zone >= ctx.zoneLimit) return refuse(ctx, 'zone', `zone ${zone} is not below ${ctx.zoneLimit}`);

  const { states, typeBits } = ctx;
  const entityCount = readCount(rs, MAX_FEED_ENTITIES, 1 + typeBits + ctx.minStateBits);
  if (entityCount < 0) return refuse(ctx, 'entities');
  const entities: FeedEntity[] = [];
  let previous = -1;
  for (let i = 0; i < entityCount; i++) {
    const worldId = readWorldIdAfter(rs, previous, ctx.zoneLimit);
    if (worldId < 0) return refuse(ctx, `entities[${i}].worldId`);
    previous = worldId;
    const typeIndex = readTypeIndex(rs, typeBits, states.length, 'entity types');
    if (typeIndex < 0) return refuse(ctx, `entities[${i}].typeIndex`);
    const state = states[typeIndex].read(rs);
    if (state === null) return refuse(ctx, `entities[${i}].state`);
    entities.push({ worldId, typeIndex, state });
  }

  const removedCount = readCount(rs, MAX_FEED_REMOVED, 1);
  if (removedCount < 0) return refuse(ctx, 'removed');
  const removed: number[] = [];
  previous = -1;
  for (let i = 0; i < removedCount; i++) {
    previous = readWorldIdAfter(rs, previous, ctx.zoneLimit);
    if (previous < 0) return refuse(ctx, `removed[${i}]`);
    removed.push(previous);
  }

  const ownerCount = readCount(rs, MAX_FEED_OWNERS, 33);
  if (ownerCount < 0) return refuse(ctx, 'owners');
  const owners: PlayerOwner[] = [];
  for (let i = 0; i < ownerCount; i++) {
    const owner = readOwner(ctx);
    if (owner === null) return within(ctx, 'owners', i);
    owners.push(owner);
  }

  const eventCount = readCount(rs, MAX_FEED_EVENTS, 2 + ctx.eventBits + ctx.minEventBits);
  if (eventCount < 0) return refuse(ctx, 'events');
  const events: ZoneEvent[] = [];
  for (let i = 0; i < eventCount; i++) {
    const event = readEvent(ctx);
    if (event === null) return within(ctx, 'events', i);
    events.push(event);
  }
  return { zone, epoch, tick, keyframe, entities, removed, owners, events };
}

function readOwner(ctx: WireContext): PlayerOwner | null {
  const rs = ctx.rs;
  const playerId = rs.uint32(0);
  if (!rs.ok) return refuse(ctx, 'playerId');
  const worldId = rs.bool(false) ? readWorldId(rs, ctx.zoneLimit) : -1;
  return rs.ok ? { playerId, worldId } : refuse(ctx, 'worldId');
}

function readEvent(ctx: WireContext): ZoneEvent | null {
  const rs = ctx.rs;
  const to = rs.bool(false) ? rs.uint32(0) : -1;
  if (!rs.ok) return refuse(ctx, 'to');
  const typeIndex = readTypeIndex(rs, ctx.eventBits, ctx.events.length, 'event types');
  if (typeIndex < 0) return refuse(ctx, 'typeIndex');
  const reliable = rs.bool(false);
  const value = ctx.eventCodecs[typeIndex].read(rs);
  if (value === null) return refuse(ctx, 'value');
  return { to, typeIndex, reliable, value };
}
