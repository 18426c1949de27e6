/** Stand-ins for the zone wire and feed in runner tests: JSON (NaN kept), and a feed in plain maps. */
import type { ZoneCodecs, ZoneFeed } from '../../src/zones/zone-runner.js';

const encode = (value: unknown) =>
  new TextEncoder().encode(
    JSON.stringify(value, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v)),
  );
function decode<T>(bytes: Uint8Array): { ok: true; value: T } | { ok: false; reason: string } {
  try {
    return {
      ok: true,
      value: JSON.parse(new TextDecoder().decode(bytes), (_k, v) => (v === 'NaN' ? Number.NaN : v)),
    };
  } catch (error) {
    return { ok: false, reason: String(error) };
  }
}

export const jsonCodecs: ZoneCodecs = {
  encodeFeed: encode,
  encodeGatewayBatch: encode,
  decodeGatewayBatch: decode,
  encodeEntityRecord: encode,
  decodeEntityRecord: decode,
  encodeSnapshot: encode,
  decodeSnapshot: decode,
};

export class MapFeed implements ZoneFeed {
  readonly subscribers = new Map<string, Set<(bytes: Uint8Array) => void>>();
  publish(channel: string, bytes: Uint8Array): void {
    const copy = bytes.slice();
    for (const handler of this.subscribers.get(channel) ?? []) queueMicrotask(() => handler(copy));
  }
  subscribe(channel: string, onBytes: (bytes: Uint8Array) => void): () => void {
    const set = this.subscribers.get(channel) ?? new Set();
    set.add(onBytes);
    this.subscribers.set(channel, set);
    return () => set.delete(onBytes);
  }
}
