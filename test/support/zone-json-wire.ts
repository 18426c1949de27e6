/** A stand-in for the zone wire in runner tests: JSON (NaN kept). */
import type { ZoneCodecs } from '../../src/zones/zone-wire.js';

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
  game: undefined as never,
  encodeFeedBatch: encode,
  decodeFeedBatch: decode,
  encodeGatewayBatch: encode,
  decodeGatewayBatch: decode,
  encodeEntityRecord: encode,
  decodeEntityRecord: decode,
  encodeZoneSnapshot: encode,
  decodeZoneSnapshot: decode,
};
