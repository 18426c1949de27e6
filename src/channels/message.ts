import { bitsRequired } from '../bits/bits-required.js';
import { type Codec, compile } from '../schema/codec.js';
import { type Schema, t } from '../schema/schema.js';

/** A message type: a name for errors and logs, and the codec of its schema. */
export interface MessageType<T = unknown> {
  readonly name: string;
  readonly codec: Codec<T>;
}

/** Declares a message type from a schema: `const Chat = defineMessage('chat', t.object({ text: t.string(200) }))`. */
export function defineMessage<T>(name: string, schema: Schema<T>): MessageType<T> {
  return Object.freeze({ name, codec: compile(schema) });
}

/** Any message type (a type's codec both reads and writes its values, so types are invariant). */
// biome-ignore lint/suspicious/noExplicitAny: a registry of heterogeneous message types
export type AnyMessageType = MessageType<any>;

/** The type a received block carries: `if (m.type === Block) use(m.value)` (a Uint8Array). */
export const Block: MessageType<Uint8Array> = Object.freeze({ name: 'block', codec: compile(t.bytes(1)) });

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
