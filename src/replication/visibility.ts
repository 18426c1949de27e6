/**
 * Per-field visibility: a top-level field of an entity type (a scalar, a blob or a nested object)
 * declared visible only to the entity's owner, to a group (a team), or through a predicate.
 *
 * Each such field is replicated as a *part*: a hidden companion entity of its own type
 * (`<type>.<field>`), created, set and destroyed with its entity by the world, and made relevant
 * to a client only while its entity is and the audience holds. So the shared per-tick encoding
 * stays shared (a part's delta is encoded once per distinct baseline, like any entity's), a part
 * nobody holds costs nothing on the wire, a change to a private field alone sends outsiders
 * nothing, a grant is a create (the part's current value) and a withdraw a destroy.
 */
import { type Schema, type SchemaNode, t } from '../schema/schema.js';
import type { Entity } from './server-world.js';

/** Who may see a part: the entity's owner, the clients of its group, or those a predicate admits. */
export type Audience =
  | { readonly kind: 'owner' }
  | { readonly kind: 'group' }
  | { readonly kind: 'when'; readonly test: (client: number, entity: Entity<unknown>) => boolean };

/** Visible only to the client that owns the entity (`world.setOwner`). */
export function owner(): Audience {
  return OWNER;
}

/** Visible only to clients whose groups (`replication.setGroups`) include the entity's (`world.setGroup`). */
export function group(): Audience {
  return GROUP;
}

/**
 * Visible to the clients for which `test(client, entity)` is true. It is asked when the entity
 * enters a client's interest and again on `replication.revisit(entity)` / `revisitClient(client)`
 * only: call those when what it reads changes. It must not throw.
 */
export function when(test: (client: number, entity: Entity<unknown>) => boolean): Audience {
  if (typeof test !== 'function') throw new TypeError('when: test must be a function');
  return Object.freeze({ kind: 'when', test });
}

const OWNER: Audience = Object.freeze({ kind: 'owner' });
const GROUP: Audience = Object.freeze({ kind: 'group' });

/** The fields of a part's value that name its entity (id and generation). */
export const PART_OF = '$of';
export const PART_GENERATION = '$generation';

/** Per entity type: which top-level fields are private, and to whom. */
export type Visibility<T> = { readonly [K in keyof T & string]?: Audience };

/** The split of a schema at its private fields: the public schema and one schema per part. */
export interface SplitSchema {
  readonly publicSchema: Schema<unknown>;
  readonly parts: readonly { field: string; audience: Audience; schema: Schema<unknown> }[];
}

/** The most parts an entity type may declare. */
export const MAX_PARTS = 8;

export function splitSchema(where: string, schema: Schema<unknown>, visibility: object): SplitSchema {
  if (visibility === null || typeof visibility !== 'object' || Array.isArray(visibility))
    throw new TypeError(`${where}: visibility must be an object of field: owner() | group() | when(test)`);
  const node = schema as SchemaNode;
  if (node.kind !== 'object') throw new TypeError(`${where}: visibility needs a t.object schema`);
  const fields = { ...node.fields } as Record<string, SchemaNode>;
  const parts: { field: string; audience: Audience; schema: Schema<unknown> }[] = [];
  for (const [field, audience] of Object.entries(visibility)) {
    if (!Object.hasOwn(fields, field))
      throw new RangeError(`${where}: visibility names ${field}, which is not a field of the schema`);
    const a = audience as Audience | undefined;
    if (
      a === null ||
      typeof a !== 'object' ||
      !(a.kind === 'owner' || a.kind === 'group' || a.kind === 'when')
    )
      throw new TypeError(`${where}: visibility.${field} must be owner(), group() or when(test)`);
    parts.push({
      field,
      audience: a,
      schema: t.object({
        [PART_OF]: t.uint16(),
        [PART_GENERATION]: t.uint16(),
        [field]: fields[field] as Schema<unknown>,
      }),
    });
    delete fields[field];
  }
  if (parts.length > MAX_PARTS)
    throw new RangeError(`${where}: at most ${MAX_PARTS} private fields per type, got ${parts.length}`);
  return { publicSchema: t.object(fields) as Schema<unknown>, parts };
}
