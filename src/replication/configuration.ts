import type { AnyEntityType } from './entity-type.js';
import { type AnyEventType, schemaText } from './event.js';

/** The reason a client refuses a section from a server configured otherwise. */
export const CONFIGURATION_DIFFERS =
  "replication configuration differs from the server's (types / capacity / historyLength / events)";

/**
 * A 32-bit fingerprint (FNV-1a) of what both ends must agree on: the types in order (name, and
 * per scalar lane its path, width, max, delta capability and rotation components, per blob lane
 * its path and most bytes), the capacity, the historyLength, and the event types in order (name
 * and schema; none adds nothing, so a configuration without events keeps its fingerprint). The
 * server sends it in its sections until a client
 * acks one; a client that computes another refuses them with CONFIGURATION_DIFFERS.
 */
export function configurationHash(
  types: readonly AnyEntityType[],
  capacity: number,
  historyLength: number,
  events: readonly AnyEventType[] = [],
): number {
  const parts: string[] = [`capacity ${capacity}`, `history ${historyLength}`];
  for (const type of types) {
    parts.push(`type ${type.name}`);
    // A private part's audience kind (older peers had no parts: their types and hash differ).
    if (type.partOf !== undefined)
      parts.push(`part ${type.partOf.part.field} ${type.partOf.part.audience.kind}`);
    for (const lane of type.layout.lanes)
      parts.push(`lane ${lane.path} ${lane.bits} ${lane.max} ${lane.delta ? 1 : 0} ${lane.rotation}`);
    for (const blob of type.layout.blobs) parts.push(`blob ${blob.path} ${blob.maxBytes}`);
  }
  for (const event of events) parts.push(`event ${event.name} ${schemaText(event.schema)}`);
  const text = parts.join('\n');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
