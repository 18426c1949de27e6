import { bitsRequired } from '../bits/bits-required.js';
import { compile } from '../schema/codec.js';
import { type Schema, t } from '../schema/schema.js';
import { MeasureStream } from '../serialize/measure-stream.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { Stream } from '../serialize/stream.js';
import type { WriteStream } from '../serialize/write-stream.js';

/**
 * A message type: a name for errors and logs, and how its values are written and read. `N` is the
 * name as a literal type (`'chat'`), so a received message's `name` discriminates a union.
 */
export interface MessageType<T = unknown, N extends string = string> {
  readonly name: N;
  /** Writes a value; a value out of range throws at the call. */
  write(stream: WriteStream, value: T): void;
  /** Reads a value, or null with the reason in `stream.error`; never throws. */
  read(stream: ReadStream): T | null;
  /** Bits `write` takes for a value (at most; aligns counted at their worst), without writing. */
  measure(value: T): number;
}

/**
 * A message written as a unified serialize function (one function writes, reads and measures):
 * `create` gives the object a read fills in.
 *
 * ```ts
 * const Hit = defineMessage('hit', {
 *   create: () => ({ target: 0, damage: 0 }),
 *   serialize: (s, m) => { m.target = s.int(m.target, 0, 4095); m.damage = s.int(m.damage, 0, 255); },
 * });
 * ```
 */
export interface MessageSerializer<T> {
  create(): T;
  serialize(stream: Stream, value: T): void;
}

/**
 * Declares a message type from a schema (`defineMessage('chat', t.object({ text: t.string(200) }))`,
 * compiled) or from a unified serialize function with a `create` for reads.
 */
export function defineMessage<T, N extends string = string>(
  name: N,
  definition: Schema<T> | MessageSerializer<T>,
): MessageType<T, N> {
  if (typeof (definition as MessageSerializer<T>).serialize === 'function') {
    const { create, serialize } = definition as MessageSerializer<T>;
    if (typeof create !== 'function')
      throw new TypeError(
        `message type ${name}: a serialize function needs create() to make the value a read fills`,
      );
    return Object.freeze({
      name,
      write: (stream: WriteStream, value: T) => serialize(stream, value),
      read: (stream: ReadStream): T | null => {
        const value = create();
        try {
          serialize(stream, value);
        } catch (error) {
          // User code met input it did not expect: the packet is refused, never thrown through.
          stream.fail(
            `message ${name}: serialize threw while reading (${(error as Error)?.message ?? error})`,
          );
          return null;
        }
        return stream.ok ? value : null;
      },
      measure: (value: T): number => {
        const stream = new MeasureStream();
        serialize(stream, value);
        return stream.bitsProcessed;
      },
    });
  }
  const codec = compile(definition as Schema<T>);
  return Object.freeze({
    name,
    write: (stream: WriteStream, value: T) => codec.write(stream, value),
    read: (stream: ReadStream): T | null => codec.read(stream),
    measure: (value: T): number => codec.measure(value),
  });
}

/** Any message type (a type's codec both reads and writes its values, so types are invariant). */
// biome-ignore lint/suspicious/noExplicitAny: a registry of heterogeneous message types
export type AnyMessageType = MessageType<any>;

/** The value type of a message type: `type ChatValue = MessageValue<typeof Chat>`. */
export type MessageValue<M extends AnyMessageType> = M extends MessageType<infer T, string> ? T : never;

/** The type a received block carries: `if (m.is(Block)) use(m.value)` (a Uint8Array). */
export const Block: MessageType<Uint8Array, 'block'> = defineMessage('block', t.bytes(1));

/**
 * A message as the receiver gets it. `receive()` returns the union of these over the factory's
 * types (and `Block`), so either check narrows `value` without a cast:
 *
 * ```ts
 * if (m.is(Chat)) show(m.value.text);          // by the type object
 * switch (m.name) { case 'chat': show(m.value.text); }  // by the literal name
 * ```
 *
 * (`m.type === Chat` compares the same thing at run time, but TypeScript narrows a union only on
 * literal properties, so it does not narrow `m`.)
 */
export interface ReceivedMessage<T = unknown, N extends string = string> {
  readonly type: MessageType<T, N>;
  /** The type's name (a getter: no field per message). */
  readonly name: N;
  readonly value: T;
  /** True when this message is of `type`; narrows `value` to that type's values. Allocates nothing. */
  is<U, K extends string>(type: MessageType<U, K>): this is ReceivedMessage<U, K>;
}

/** True when T is `any` (a factory typed without its list), so received values stay `unknown`. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** The received messages of a union of message types: one member per type, discriminated by `name`. */
export type ReceivedMessageOf<M extends AnyMessageType> =
  M extends MessageType<infer T, infer N> ? ReceivedMessage<IsAny<T> extends true ? unknown : T, N> : never;

/** The implementation: `name` and `is` live on the prototype, so a message holds two fields. */
class Received<T, N extends string> implements ReceivedMessage<T, N> {
  // Declared, not class fields: a field definition would set each to undefined before the
  // constructor's assignment, on the receive path of every message.
  declare readonly type: MessageType<T, N>;
  declare readonly value: T;

  constructor(type: MessageType<T, N>, value: T) {
    this.type = type;
    this.value = value;
  }

  get name(): N {
    return this.type.name;
  }

  is<U, K extends string>(type: MessageType<U, K>): this is ReceivedMessage<U, K> {
    return (this.type as AnyMessageType) === type;
  }
}

/** A received message of `type` (channels build every delivered message with this). */
export function receivedMessage<T, N extends string>(
  type: MessageType<T, N>,
  value: T,
): ReceivedMessage<T, N> {
  return new Received(type, value);
}

/**
 * The message types a connection knows, in a fixed order both ends share: a type is sent as its
 * index in exactly bitsRequired(0, count - 1) bits, so an unknown type cannot be read. `M` is the
 * union of the listed types, inferred from the list; it types what `receive` returns.
 */
export class MessageFactory<M extends AnyMessageType = AnyMessageType> {
  readonly types: readonly M[];
  readonly typeBits: number;
  private readonly ids = new Map<AnyMessageType, number>();

  constructor(types: readonly M[]) {
    if (!Array.isArray(types) || types.length < 1 || types.length > 65536)
      throw new RangeError('MessageFactory needs 1 to 65536 message types');
    this.types = Object.freeze([...types]);
    this.types.forEach((type, id) => {
      if (this.ids.has(type))
        throw new RangeError(`MessageFactory: message type ${type.name} is registered twice`);
      this.ids.set(type, id);
    });
    this.typeBits = bitsRequired(0, types.length - 1);
  }

  /** The id of a registered type; throws, naming the type, for one this factory does not know. */
  idOf(type: AnyMessageType): number {
    const id = this.ids.get(type);
    if (id === undefined) {
      throw new RangeError(
        `message type ${type?.name ?? String(type)} is not registered in this connection's MessageFactory; add it to the list given to the factory (on both ends)`,
      );
    }
    return id;
  }
}
