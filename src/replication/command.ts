/**
 * Commands: what a client asks the server to do, declared with a schema and sent as ordinary
 * messages on a channel the game picks (reliable-ordered for actions, unreliable-sequenced for
 * inputs). A command type is a message type (list it in both ends' MessageFactory) whose value
 * is the command plus, when the command targets an entity, that entity's id and generation as
 * the client's ghost had them. The server checks all of it before acting (see CommandRouter).
 */
import type { MessageType } from '../channels/message.js';
import { compile } from '../schema/codec.js';
import type { Schema } from '../schema/schema.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { Ghost } from './client-mirror.js';
import type { AnyEntityType, EntityType, EntityValue } from './entity-type.js';
import { GENERATION_MASK } from './server-world.js';

/** The entity a command names: an id and generation, as the client's ghost had them. */
export interface CommandTarget {
  readonly id: number;
  readonly generation: number;
}

/** A command as it travels: the schema's value and its target (null for a global command). */
export interface CommandMessage<T> {
  readonly value: T;
  readonly target: CommandTarget | null;
}

export interface CommandOptions<E extends AnyEntityType | undefined> {
  /** The entity type the command acts on; without it the command is global (no target). */
  target?: E;
}

/** A command type: a message type carrying `CommandMessage<T>`, with its schema and target type. */
export interface CommandType<
  T = unknown,
  N extends string = string,
  E extends AnyEntityType | undefined = undefined,
> extends MessageType<CommandMessage<T>, N> {
  readonly schema: Schema<T>;
  /** The entity type every command of this type targets, or undefined for a global command. */
  readonly target: E;
}

// biome-ignore lint/suspicious/noExplicitAny: any command type, whatever its value and target
export type AnyCommandType = CommandType<any, string, AnyEntityType | undefined>;

const commandTypes = new WeakSet<object>();

/** Whether a message type was made by defineCommand. */
export function isCommandType(type: unknown): type is AnyCommandType {
  return typeof type === 'object' && type !== null && commandTypes.has(type);
}

/** Ids and generations are 16 bits on the wire (a world holds at most 65536 entities). */
const ID_MAX = 0xffff;

/**
 * Declares a command from a schema: `defineCommand('jump', t.object({ height: t.int(0, 3) }))`
 * is global; `defineCommand('move', schema, { target: Player })` acts on one Player entity,
 * named by the client's ghost of it.
 */
export function defineCommand<T, N extends string = string, E extends AnyEntityType | undefined = undefined>(
  name: N,
  schema: Schema<T>,
  options: CommandOptions<E> = {},
): CommandType<T, N, E> {
  if (typeof name !== 'string' || name.length === 0)
    throw new TypeError('defineCommand: name must be a non-empty string');
  const target = options.target as E;
  if (target !== undefined && (typeof target !== 'object' || target === null || !target.layout))
    throw new TypeError(`defineCommand(${name}): target must be an entity type made by defineEntity`);
  const codec = compile(schema);
  const targeted = target !== undefined;
  const type: CommandType<T, N, E> = Object.freeze({
    name,
    schema,
    target,
    write(stream: WriteStream, message: CommandMessage<T>): void {
      const t = message.target;
      if (targeted !== (t !== null && t !== undefined))
        throw new TypeError(
          targeted
            ? `command ${name}: needs a target entity (${target?.name})`
            : `command ${name}: is global and takes no target`,
        );
      if (t !== null && t !== undefined) {
        stream.int(t.id, 0, ID_MAX);
        stream.int(t.generation, 0, GENERATION_MASK);
      }
      codec.write(stream, message.value);
    },
    read(stream: ReadStream): CommandMessage<T> | null {
      let t: CommandTarget | null = null;
      if (targeted) {
        const id = stream.int(0, 0, ID_MAX);
        const generation = stream.int(0, 0, GENERATION_MASK);
        if (!stream.ok) return null;
        t = { id, generation };
      }
      const value = codec.read(stream);
      return value === null ? null : { value, target: t };
    },
    measure(message: CommandMessage<T>): number {
      return (targeted ? 32 : 0) + codec.measure(message.value);
    },
  });
  commandTypes.add(type);
  return type;
}

/** What sendCommand sends through: a MessageClient (its factory must list the command type). */
export interface CommandSink {
  // biome-ignore lint/suspicious/noExplicitAny: MessageClient's send, for whatever factory it has
  send(channel: number, type: any, value: any): number;
}

/**
 * Queues a command to the server on `channel`; returns its id in the channel. A targeted command
 * takes the ghost of its entity, a global one none; a mismatch throws at the call.
 */
export function sendCommand<T, N extends string>(
  client: CommandSink,
  channel: number,
  command: CommandType<T, N, undefined>,
  value: T,
): number;
export function sendCommand<T, N extends string, E extends AnyEntityType>(
  client: CommandSink,
  channel: number,
  command: CommandType<T, N, E>,
  value: T,
  ghost: Ghost<EntityValue<E>>,
): number;
export function sendCommand<T>(
  client: CommandSink,
  channel: number,
  command: CommandType<T, string, AnyEntityType | undefined>,
  value: T,
  ghost?: Ghost,
): number {
  if (!isCommandType(command)) throw new TypeError('sendCommand: command must be made by defineCommand');
  const where = `sendCommand(${command.name})`;
  let target: CommandTarget | null = null;
  if (command.target !== undefined) {
    if (ghost === undefined || ghost === null || typeof ghost !== 'object')
      throw new TypeError(`${where}: needs the ghost of the ${command.target.name} it acts on`);
    if (ghost.type !== (command.target as EntityType<unknown, string>))
      throw new TypeError(`${where}: the ghost is a ${ghost.type?.name}, not a ${command.target.name}`);
    target = { id: ghost.id, generation: ghost.generation };
  } else if (ghost !== undefined) {
    throw new TypeError(`${where}: a global command takes no ghost`);
  }
  const message: CommandMessage<T> = { value, target };
  return client.send(channel, command, message);
}
