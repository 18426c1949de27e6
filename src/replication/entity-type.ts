import type { Schema } from '../schema/schema.js';
import { checkNonNegative } from './check-argument.js';
import { compileLayout, type EntityLayout } from './entity-layout.js';
import { type Audience, splitSchema, type Visibility } from './visibility.js';

/** Where an entity is, for interest: [x, y] in a 2D world, [x, y, z] in 3D. */
export type EntityPosition<T> = (value: T) => readonly [number, number] | readonly [number, number, number];

export interface EntityTypeOptions<T> {
  /** How much this type matters per tick against others (default 1; 0 = only when room is left). */
  priority?: number;
  /** Where an entity of this type is (used by interest); without it the type is relevant everywhere. */
  position?: EntityPosition<T>;
  /**
   * Top-level fields only some clients see (`{ ammo: owner(), plan: group(), intel: when(test) }`):
   * the others get the entity without them and never their bytes. See docs/replication.md.
   */
  visibility?: Visibility<T>;
}

/** A private field of an entity type, replicated as a hidden companion entity of its own type. */
export interface EntityPart {
  readonly field: string;
  readonly audience: Audience;
  /** The companion type (`<type>.<field>`), listed right after its entity's type. */
  readonly type: AnyEntityType;
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
  /** The private fields (none: empty); `layout` covers the public fields only. */
  readonly parts?: readonly EntityPart[];
  /** On a part's companion type: the entity type and the part it carries. */
  readonly partOf?: { readonly type: AnyEntityType; readonly part: EntityPart };
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
  if (options.visibility === undefined)
    return Object.freeze({
      name,
      schema,
      layout: compileLayout(schema),
      priority,
      position: options.position,
      parts: [],
    });
  const split = splitSchema(`defineEntity(${name})`, schema as Schema<unknown>, options.visibility);
  const parts: EntityPart[] = [];
  const type = {
    name,
    schema,
    layout: compileLayout(split.publicSchema) as unknown as EntityLayout<T>,
    priority,
    position: options.position,
    parts,
  } as EntityType<T, N>;
  for (const part of split.parts) {
    const entry = { field: part.field, audience: part.audience } as {
      field: string;
      audience: Audience;
      type: AnyEntityType;
    };
    entry.type = Object.freeze({
      name: `${name}.${part.field}`,
      schema: part.schema,
      layout: compileLayout(part.schema),
      priority,
      parts: [],
      partOf: { type: type as AnyEntityType, part: entry },
    });
    parts.push(Object.freeze(entry));
  }
  Object.freeze(parts);
  return Object.freeze(type);
}

/** The types as the world and the mirror list them: each type followed by its parts' companion types. */
export function expandTypes(types: readonly AnyEntityType[]): AnyEntityType[] {
  const all: AnyEntityType[] = [];
  for (const type of types) {
    all.push(type);
    if (type?.partOf !== undefined)
      throw new RangeError(
        `entity type ${type.name} is a part's companion type: list its entity's type instead`,
      );
    for (const part of type?.parts ?? []) all.push(part.type);
  }
  return all;
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
