import type { Schema } from '../schema/schema.js';
import { checkNonNegative } from './check-argument.js';
import { compileLayout, type EntityLayout } from './entity-layout.js';

/** Where an entity is, for interest: [x, y] in a 2D world, [x, y, z] in 3D. */
export type EntityPosition<T> = (value: T) => readonly [number, number] | readonly [number, number, number];

export interface EntityTypeOptions<T> {
  /** How much this type matters per tick against others (default 1; 0 = only when room is left). */
  priority?: number;
  /** Where an entity of this type is (used by interest); without it the type is relevant everywhere. */
  position?: EntityPosition<T>;
}

/**
 * A replicated entity type: its name (a literal type, like a message type's), schema and lane
 * layout, compiled once and shared by the server world and every client mirror.
 */
export interface EntityType<T = unknown, N extends string = string> {
  readonly name: N;
  readonly schema: Schema<T>;
  readonly layout: EntityLayout<T>;
  readonly priority: number;
  /** Where an entity of this type is (a method, so handles of any type pass as Entity<unknown>). */
  position?(value: T): ReturnType<EntityPosition<T>>;
}

// biome-ignore lint/suspicious/noExplicitAny: any entity type, whatever its value type
export type AnyEntityType = EntityType<any, string>;

/** The value type of an entity type. */
export type EntityValue<E> = E extends EntityType<infer T, string> ? T : never;

/**
 * Declares an entity type from a `t.object` schema (`defineEntity('cube', t.object({...}))`);
 * throws when the schema is not an object or has more lanes than a layout allows.
 */
export function defineEntity<T, N extends string = string>(
  name: N,
  schema: Schema<T>,
  options: EntityTypeOptions<T> = {},
): EntityType<T, N> {
  if (typeof name !== 'string' || name.length === 0)
    throw new TypeError('defineEntity: name must be a non-empty string');
  const priority = checkNonNegative(`defineEntity(${name})`, 'priority', options.priority ?? 1);
  if (options.position !== undefined && typeof options.position !== 'function')
    throw new TypeError(`defineEntity(${name}): position must be a function`);
  return Object.freeze({
    name,
    schema,
    layout: compileLayout(schema),
    priority,
    position: options.position,
  });
}

/** Checks a list of entity types (both ends must list the same ones in the same order). */
export function checkTypes(where: string, types: readonly AnyEntityType[]): void {
  if (!Array.isArray(types) || types.length < 1 || types.length > 256)
    throw new RangeError(`${where}: types must list 1 to 256 entity types`);
  const names = new Set<string>();
  for (const type of types) {
    if (type === null || typeof type !== 'object' || !(typeof type.name === 'string') || !type.layout)
      throw new TypeError(`${where}: types must be made by defineEntity`);
    if (names.has(type.name)) throw new RangeError(`${where}: entity type ${type.name} is listed twice`);
    names.add(type.name);
  }
}
