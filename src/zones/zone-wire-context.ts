/**
 * What the zone messages' writers and readers share for one game: the codecs of its entity
 * states, input, events and messages (compiled once), the bits of their type indexes, the fewest
 * bits an item of each list can take (so a reader can refuse a count its input cannot hold), and
 * the reader's stream with the path of its first refusal.
 */
import { bitsRequired } from '../bits/bits-required.js';
import type { AnyMessageType } from '../channels/message.js';
import { type GameDefinition, wiringOf } from '../game/define-game.js';
import type { AnyEventType } from '../replication/event.js';
import { type Codec, compile } from '../schema/codec.js';
import { bindEntityRefs } from '../schema/entity-refs.js';
import { minBits } from '../schema/size.js';
import { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { checkZonedRefs, worldRefIds } from './zone-event-refs.js';

export interface WireContext {
  /** World ids and zones must be below this. */
  readonly zoneLimit: number;
  /** The low 32 bits of the game's protocol id: a message from another game or version is refused. */
  readonly gameTag: number;
  /** Each entity type's state codec, by type index. */
  readonly states: readonly Codec<unknown>[];
  readonly typeBits: number;
  /** The fewest bits of any entity type's state. */
  readonly minStateBits: number;
  readonly input: Codec<unknown>;
  readonly minInputBits: number;
  /** The game's wiring's events: the control event first, then the game's own. */
  readonly events: readonly AnyEventType[];
  /** Their values' codecs, by type index: entity references carry world ids (zone-event-refs.ts). */
  readonly eventCodecs: readonly Codec<unknown>[];
  readonly eventBits: number;
  readonly minEventBits: number;
  /** The game's message types, in its declared order (none: every message is refused). */
  readonly messages: readonly AnyMessageType[];
  readonly messageBits: number;
  /** The reader's stream, reused by every decode. */
  readonly rs: ReadStream;
  /** The path and reason of the current decode's first refusal, or null. */
  reason: string | null;
}

export function wireContextOf(where: string, game: GameDefinition, zoneLimit: number): WireContext {
  const wiring = wiringOf(where, game);
  checkZonedRefs(where, game);
  const refIds = worldRefIds(zoneLimit);
  const eventSchemas = wiring.events.map((event) => bindEntityRefs(event.schema, refIds));
  const states = wiring.types.map((type) => compile(type.schema) as Codec<unknown>);
  const messages = Object.values(game.messageTypes) as AnyMessageType[];
  return {
    zoneLimit,
    gameTag: Number(game.protocolId & 0xffff_ffffn),
    states,
    typeBits: bitsRequired(0, states.length - 1),
    minStateBits: Math.min(...wiring.types.map((type) => minBits(type.schema))),
    input: compile(game.input) as Codec<unknown>,
    minInputBits: minBits(game.input),
    events: wiring.events,
    eventBits: bitsRequired(0, Math.max(0, wiring.events.length - 1)),
    eventCodecs: eventSchemas.map((schema, i) =>
      schema === wiring.events[i].schema ? wiring.events[i].codec : (compile(schema) as Codec<unknown>),
    ),
    minEventBits: Math.min(...eventSchemas.map((schema) => minBits(schema))),
    messages,
    messageBits: bitsRequired(0, Math.max(0, messages.length - 1)),
    rs: new ReadStream(4096),
    reason: null,
  };
}

/** Records the first refusal at `path` (the stream's reason, after `detail` when given); null. */
export function refuse(ctx: WireContext, path: string, detail?: string): null {
  if (detail !== undefined) ctx.rs.fail(detail);
  if (ctx.reason === null) ctx.reason = `${path}: ${ctx.rs.error ?? 'refused'}`;
  return null;
}

/** Puts `list[i].` before the refusal an item's reader recorded; null. */
export function within(ctx: WireContext, list: string, i: number): null {
  ctx.reason = `${list}[${i}].${ctx.reason ?? 'refused'}`;
  return null;
}

/** A type index of `bits` bits below `count`: -1 with a reason past the list. */
export function readTypeIndex(rs: ReadStream, bits: number, count: number, what: string): number {
  const index = bits === 0 ? 0 : rs.bits(0, bits);
  if (!rs.ok) return -1;
  if (index >= count) {
    rs.fail(`type index ${index} is past the ${count} ${what}`);
    return -1;
  }
  return index;
}

/** Writes a type index, throwing a RangeError naming `field` unless it is below `count`. */
export function writeTypeIndex(
  ws: WriteStream,
  index: number,
  bits: number,
  count: number,
  field: string,
): void {
  if (!(Number.isInteger(index) && index >= 0 && index < count))
    throw new RangeError(`${field}: type index ${index} is not an integer in 0..${count - 1}`);
  if (bits > 0) ws.bits(index, bits);
}
