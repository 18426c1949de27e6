import { bitsRequired } from '../bits/bits-required.js';
import { compile } from '../schema/codec.js';
import { type Schema, t } from '../schema/schema.js';
import { MeasureStream } from '../serialize/measure-stream.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { Stream } from '../serialize/stream.js';
import type { WriteStream } from '../serialize/write-stream.js';

/** A message type: a name for errors and logs, and how its values are written and read. */
export interface MessageType<T = unknown> {
  readonly name: string;
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
export function defineMessage<T>(name: string, definition: Schema<T> | MessageSerializer<T>): MessageType<T> {
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

/** The type a received block carries: `if (m.type === Block) use(m.value)` (a Uint8Array). */
export const Block: MessageType<Uint8Array> = defineMessage('block', t.bytes(1));

/** A message as the receiver gets it. */
export interface ReceivedMessage<T = unknown> {
  readonly type: MessageType<T>;
  readonly value: T;
}

/**
 * The message types a connection knows, in a fixed order both ends share: a type is sent as its
 * index in exactly bitsRequired(0, count - 1) bits, so an unknown type cannot be read.
 */
export class MessageFactory {
  readonly types: readonly MessageType[];
  readonly typeBits: number;
  private readonly ids = new Map<MessageType, number>();

  constructor(types: readonly AnyMessageType[]) {
    if (types.length < 1 || types.length > 65536)
      throw new RangeError('MessageFactory needs 1 to 65536 message types');
    this.types = Object.freeze([...types]) as readonly MessageType[];
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
