/**
 * Events: what the server tells clients happened (an explosion, a hit, a chat line), declared
 * with a schema like entity types and commands. An event is attached to an entity (it goes to
 * the clients that have that entity's ghost) or global, reliable or not, and rides in the ghost
 * section after the state it refers to (docs/replication.md, "Events").
 */
import { bitsRequired } from '../bits/bits-required.js';
import { type Codec, compile } from '../schema/codec.js';
import type { Schema, SchemaNode } from '../schema/schema.js';
import { maxBits, minBits } from '../schema/size.js';
import type { Ghost } from './client-mirror.js';

/** An event type: a name (a literal type), its schema and the codec compiled once for both ends. */
export interface EventType<T = unknown, N extends string = string> {
  readonly name: N;
  readonly schema: Schema<T>;
  readonly codec: Codec<T>;
  /**
   * Bits of every value when they all take the same (no variable-size field, no align): the
   * payload goes on the wire without a length. -1 otherwise.
   */
  readonly fixedBits: number;
  /** The most bytes a value's standalone encoding takes (a variable payload's length field). */
  readonly maxBytes: number;
}

// biome-ignore lint/suspicious/noExplicitAny: any event type, whatever its value type
export type AnyEventType = EventType<any, string>;

/** The value type of an event type. */
export type EventValue<E> = E extends EventType<infer T, string> ? T : never;

const eventTypes = new WeakSet<object>();

/** Whether a value was made by defineEvent. */
export function isEventType(type: unknown): type is AnyEventType {
  return typeof type === 'object' && type !== null && eventTypes.has(type);
}

/** Declares an event type from a schema: `defineEvent('explosion', t.object({ radius: t.int(1, 8) }))`. */
export function defineEvent<T, N extends string = string>(name: N, schema: Schema<T>): EventType<T, N> {
  if (typeof name !== 'string' || name.length === 0)
    throw new TypeError('defineEvent: name must be a non-empty string');
  const codec = compile(schema);
  const most = maxBits(schema);
  const type: EventType<T, N> = Object.freeze({
    name,
    schema,
    codec,
    fixedBits: minBits(schema) === most ? most : -1,
    maxBytes: (most + 7) >>> 3,
  });
  eventTypes.add(type);
  return type;
}

/** Checks a list of event types (both ends list the same ones in the same order; may be empty). */
export function checkEvents(where: string, events: readonly AnyEventType[]): void {
  if (!Array.isArray(events) || events.length > 256)
    throw new RangeError(`${where}: events must list at most 256 event types`);
  const names = new Set<string>();
  for (const event of events) {
    if (!isEventType(event)) throw new TypeError(`${where}: events must be made by defineEvent`);
    if (names.has(event.name)) throw new RangeError(`${where}: event type ${event.name} is listed twice`);
    names.add(event.name);
  }
}

/** Bits of a payload's byte length for a variable-size event type. */
export const payloadLengthBits = (type: AnyEventType): number => bitsRequired(0, type.maxBytes);

/** A schema as text, for the configuration fingerprint (the wire layout, nothing else). */
export function schemaText(node: SchemaNode): string {
  return JSON.stringify(node, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));
}

/** An event as a client's `onEvent` gets it: `if (e.is(Explosion)) boom(e.value.radius)`. */
export interface ReceivedEvent<T = unknown, N extends string = string> {
  readonly type: EventType<T, N>;
  /** The type's name (a getter: no field per event). */
  readonly name: N;
  readonly value: T;
  /** The server tick the event went with (the one after its emit); the section bringing it is of that tick or later. */
  readonly tick: number;
  /** The ghost an entity event is attached to (held while the callback runs), or null when global. */
  readonly ghost: Ghost | null;
  readonly reliable: boolean;
  /** True when this event is of `type`; narrows `value`. */
  is<U, K extends string>(type: EventType<U, K>): this is ReceivedEvent<U, K>;
}

/** The implementation: `name` and `is` live on the prototype. */
class Received<T, N extends string> implements ReceivedEvent<T, N> {
  declare readonly type: EventType<T, N>;
  declare readonly value: T;
  declare readonly tick: number;
  declare readonly ghost: Ghost | null;
  declare readonly reliable: boolean;

  constructor(type: EventType<T, N>, value: T, tick: number, ghost: Ghost | null, reliable: boolean) {
    this.type = type;
    this.value = value;
    this.tick = tick;
    this.ghost = ghost;
    this.reliable = reliable;
  }

  get name(): N {
    return this.type.name;
  }

  is<U, K extends string>(type: EventType<U, K>): this is ReceivedEvent<U, K> {
    return (this.type as AnyEventType) === type;
  }
}

export function receivedEvent<T, N extends string>(
  type: EventType<T, N>,
  value: T,
  tick: number,
  ghost: Ghost | null,
  reliable: boolean,
): ReceivedEvent<T, N> {
  return new Received(type, value, tick, ghost, reliable);
}

export type EventHandler = (event: ReceivedEvent) => void;
