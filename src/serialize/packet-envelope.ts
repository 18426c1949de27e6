import { BitWriterOverflowError } from '../bits/bit-writer.js';
import { crc32 } from './crc32.js';
import { ReadStream } from './read-stream.js';
import { WriteStream } from './write-stream.js';

/** CRC (4 bytes) plus the end-of-packet check (4 bytes): the smallest valid packet. */
export const ENVELOPE_OVERHEAD_BYTES = 8;

/** The largest maxPacketBytes accepted (the BitWriter's limit). */
const MAX_PACKET_LIMIT = 0x10000000;

export interface EnvelopeOptions {
  /** Never sent: mixed into the CRC, so packets of another protocol or version fail it. */
  protocolId: bigint;
  /** The largest packet written or accepted, envelope included (default 1200). */
  maxPacketBytes?: number;
}

export type EnvelopeReadResult = { ok: true } | { ok: false; reason: string };

// Fixed results for the common outcomes, so accepting and cheaply rejecting allocate nothing.
const OK: EnvelopeReadResult = Object.freeze({ ok: true });
const TOO_SHORT: EnvelopeReadResult = Object.freeze({
  ok: false,
  reason: `packet too short (under ${ENVELOPE_OVERHEAD_BYTES} bytes)`,
});
const TOO_LONG: EnvelopeReadResult = Object.freeze({
  ok: false,
  reason: 'packet longer than maxPacketBytes',
});
const BAD_CRC: EnvelopeReadResult = Object.freeze({ ok: false, reason: 'CRC32 mismatch' });
const NOT_BYTES: EnvelopeReadResult = Object.freeze({ ok: false, reason: 'input is not a Uint8Array' });

/**
 * Fiedler's packet envelope. Wire layout:
 *
 * ```
 * [0, 4)   CRC32, little-endian, over (protocolId as 8 bytes little-endian) || packet[4, end)
 * [4, ..)  payload, written by the caller's serialize function
 *          zero bits to a byte boundary, then 0x12345678 as 32 bits (Stream.check)
 * ```
 *
 * and nothing after. The CRC is verified before any parsing, so garbage costs one pass over its
 * bytes. It catches corruption and foreign traffic, not attackers: it is not a MAC.
 *
 * One stream of each kind is kept per envelope, so an envelope serves one packet at a time.
 */
export class PacketEnvelope {
  readonly protocolId: bigint;
  readonly maxPacketBytes: number;
  private readonly prefixCrc: number;
  private readonly writeStream: WriteStream;
  private readonly readStream: ReadStream;

  constructor(options: EnvelopeOptions) {
    const { protocolId, maxPacketBytes = 1200 } = options;
    if (typeof protocolId !== 'bigint' || protocolId < 0n || protocolId >= 1n << 64n) {
      throw new RangeError(`PacketEnvelope: protocolId must be a bigint in [0, 2^64), got ${protocolId}`);
    }
    if (
      !Number.isInteger(maxPacketBytes) ||
      maxPacketBytes < ENVELOPE_OVERHEAD_BYTES ||
      maxPacketBytes > MAX_PACKET_LIMIT
    ) {
      throw new RangeError(
        `PacketEnvelope: maxPacketBytes must be an integer in [${ENVELOPE_OVERHEAD_BYTES}, ${MAX_PACKET_LIMIT}], got ${maxPacketBytes}`,
      );
    }
    this.protocolId = protocolId;
    this.maxPacketBytes = maxPacketBytes;
    const prefix = new Uint8Array(8);
    for (let i = 0; i < 8; i++) prefix[i] = Number((protocolId >> BigInt(8 * i)) & 0xffn);
    // The prefix never changes, so its CRC is computed once and chained into every packet's.
    this.prefixCrc = crc32(prefix);
    this.writeStream = new WriteStream(maxPacketBytes);
    this.readStream = new ReadStream(maxPacketBytes);
  }

  /**
   * Writes one packet. Returns a view of the envelope's buffer, valid until the next write.
   * Throws if `serialize` throws or the packet would exceed maxPacketBytes.
   */
  write(serialize: (s: WriteStream) => void): Uint8Array {
    const s = this.writeStream;
    s.reset();
    s.uint32(0); // CRC placeholder, filled in once the rest is known
    try {
      serialize(s);
      s.check();
    } catch (error) {
      // The writer's own overflow message speaks of its buffer; name the envelope's limit instead.
      if (error instanceof BitWriterOverflowError) {
        throw new RangeError(
          `PacketEnvelope: packet exceeds maxPacketBytes (${this.maxPacketBytes}, including ${ENVELOPE_OVERHEAD_BYTES} bytes of envelope)`,
          { cause: error },
        );
      }
      throw error;
    }
    const packet = s.finish();
    const crc = crc32(packet, 4, packet.length, this.prefixCrc);
    packet[0] = crc & 0xff;
    packet[1] = (crc >>> 8) & 0xff;
    packet[2] = (crc >>> 16) & 0xff;
    packet[3] = crc >>> 24;
    return packet;
  }

  /**
   * Verifies and reads one packet into whatever `serialize` fills. Never throws; on failure the
   * callback's output is partial and must be discarded.
   */
  read(data: Uint8Array, serialize: (s: ReadStream) => void): EnvelopeReadResult {
    if (!(data instanceof Uint8Array)) return NOT_BYTES;
    const length = data.length;
    if (length < ENVELOPE_OVERHEAD_BYTES) return TOO_SHORT;
    if (length > this.maxPacketBytes) return TOO_LONG;
    const stored = (data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)) >>> 0;
    if (crc32(data, 4, length, this.prefixCrc) !== stored) return BAD_CRC;

    const s = this.readStream;
    s.reset(data);
    s.uint32(0); // the CRC, already verified
    try {
      serialize(s);
    } catch (error) {
      return { ok: false, reason: `serialize threw: ${describe(error)}` };
    }
    if (!s.ok) return { ok: false, reason: s.error ?? 'payload rejected' };
    s.check();
    if (!s.ok) {
      // A payload read short or long shows up here, as bad padding, a missing or a wrong check word.
      const error = s.error ?? '';
      return {
        ok: false,
        reason: s.reason === 'serialization check failed' ? error : `serialization check failed (${error})`,
      };
    }
    if (!s.end()) return { ok: false, reason: s.error ?? 'trailing data' };
    return OK;
  }
}

/** Text for whatever a callback threw, without letting a hostile toString escape. */
function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'a value that cannot be shown';
  }
}
