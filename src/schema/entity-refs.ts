/**
 * Entity references (`t.entity()`) inside a schema: binding them to the ids one side can name (a
 * game's maxEntities, a zoned world's world ids), and rewriting them in a value from one id space
 * to another (a zone's local ids to world ids, world ids to a gateway's mirror ids).
 *
 * The walk over the schema is done once: `entityRefRewriter` returns null for a schema without
 * references, so values of such schemas cost nothing, and otherwise a function that visits only
 * the paths that lead to a reference.
 */
import { entityNode, type Schema, type SchemaNode, t } from './schema.js';

/** One id to another; given -1 (none) too, and must answer -1 for an id it cannot name. */
export type EntityIdMap = (id: number) => number;

/**
 * Returns `value` with each reference replaced by `map(reference)`: the objects and arrays on the
 * way to a reference are copied, everything else is shared with `value`. A part whose shape is not
 * the schema's is left as it is (the codec refuses it later), so it never throws on bad input.
 */
export type EntityRefRewriter = (value: unknown, map: EntityIdMap) => unknown;

/** Whether the schema holds an entity reference anywhere. */
export function hasEntityRefs(n: SchemaNode): boolean {
  switch (n.kind) {
    case 'entity':
      return true;
    case 'object':
      return Object.values(n.fields).some(hasEntityRefs);
    case 'array':
    case 'tuple':
      return hasEntityRefs(n.item);
    case 'optional':
      return hasEntityRefs(n.inner);
    default:
      return false;
  }
}

/** The schema with every entity reference naming `ids` ids; the same schema when it holds none. */
export function bindEntityRefs<T>(schema: Schema<T>, ids: number): Schema<T> {
  return bind(schema, ids) as Schema<T>;
}

function bind(n: SchemaNode, ids: number): SchemaNode {
  switch (n.kind) {
    case 'entity':
      return n.ids === ids ? n : entityNode(ids);
    case 'object': {
      let changed = false;
      const fields: Record<string, SchemaNode> = {};
      for (const [key, field] of Object.entries(n.fields)) {
        fields[key] = bind(field, ids);
        if (fields[key] !== field) changed = true;
      }
      return changed ? t.object(fields) : n;
    }
    case 'array': {
      const item = bind(n.item, ids);
      return item === n.item ? n : t.array(item, n.maxLength);
    }
    case 'tuple': {
      const item = bind(n.item, ids);
      return item === n.item ? n : t.tuple(item, n.length);
    }
    case 'optional': {
      const inner = bind(n.inner, ids);
      return inner === n.inner ? n : t.optional(inner);
    }
    default:
      return n;
  }
}

/** A rewriter for the schema's references (see {@link EntityRefRewriter}), or null when it has none. */
export function entityRefRewriter(n: SchemaNode): EntityRefRewriter | null {
  switch (n.kind) {
    case 'entity':
      return (value, map) => (typeof value === 'number' ? map(value) : value);
    case 'object': {
      const parts: [string, EntityRefRewriter][] = [];
      for (const [key, field] of Object.entries(n.fields)) {
        const rewrite = entityRefRewriter(field);
        if (rewrite !== null) parts.push([key, rewrite]);
      }
      if (parts.length === 0) return null;
      return (value, map) => {
        if (typeof value !== 'object' || value === null) return value;
        const source = value as Record<string, unknown>;
        const copy: Record<string, unknown> = { ...source };
        for (const [key, rewrite] of parts)
          if (Object.hasOwn(source, key)) copy[key] = rewrite(source[key], map);
        return copy;
      };
    }
    case 'array':
    case 'tuple': {
      const item = entityRefRewriter(n.item);
      if (item === null) return null;
      // A value longer than the schema allows is left to the codec to refuse: never walked (a
      // hostile sparse array's length could be anything).
      const most = n.kind === 'array' ? n.maxLength : n.length;
      return (value, map) =>
        Array.isArray(value) && value.length <= most ? value.map((x) => item(x, map)) : value;
    }
    case 'optional': {
      const inner = entityRefRewriter(n.inner);
      if (inner === null) return null;
      return (value, map) => (value === undefined || value === null ? value : inner(value, map));
    }
    default:
      return null;
  }
}
