import { ScratchList } from '../../channels/scratch-list.js';
import { crc32 } from '../../serialize/crc32.js';
import { ReadStream } from '../../serialize/read-stream.js';
import { ClientMirror, type ClientMirrorOptions } from '../client-mirror.js';
import {
  CHUNK_HEAD_BYTES,
  CHUNK_MAGIC,
  END_MAGIC,
  FOOTER_BYTES,
  FORMAT_VERSION,
  HEADER_FIXED_BYTES,
  HEADER_MAGIC,
  INDEX_ENTRY_BYTES,
  INDEX_MAGIC,
  MAX_CHUNK_FRAMES,
  MAX_NAME_BYTES,
  type ReplayHeader,
} from './gwr-format.js';
import { ReplayError } from './replay-error.js';

/** The mirror a replay plays into: the server world's types, capacity, historyLength and events. */
export type ReplayMirrorOptions = Pick<
  ClientMirrorOptions,
  'types' | 'capacity' | 'historyLength' | 'events'
>;

export interface ReplayFileLimits {
  /** Files above this many bytes are refused before anything is read (default 256 MiB). */
  maxFileBytes?: number;
  /** A chunk body above this is refused (default 64 MiB). */
  maxChunkBytes?: number;
}

/** One chunk's frames: tick, and the byte offset and length of its section in the file. */
export interface ReplayFrames {
  readonly firstTick: number;
  readonly lastTick: number;
  readonly ticks: Uint32Array;
  readonly offsets: Uint32Array;
  readonly lengths: Uint32Array;
}

const MiB = 1024 * 1024;

/**
 * A .gwr file read and checked (docs/replay-format.md): its header, and per chunk the frames and
 * where their sections are. Reading is hostile: a file that is truncated, corrupt, made for
 * another world or crafted is refused with a ReplayError (reason and byte offset), with work and
 * memory bounded by the file's size: sizes, counts and ticks are checked against the file's own
 * bounds, every CRC is checked, index offsets must increase and agree with the chunks, and every
 * section is applied to a scratch ClientMirror, whose refusals refuse the file.
 */
export class ReplayFile {
  private constructor(
    readonly bytes: Uint8Array,
    readonly header: ReplayHeader,
    readonly chunks: readonly ReplayFrames[],
  ) {}

  /** The first tick held (the first chunk's keyframe). */
  get firstTick(): number {
    return this.chunks[0].firstTick;
  }

  get lastTick(): number {
    return this.chunks[this.chunks.length - 1].lastTick;
  }

  /** Reads and checks `bytes`; throws ReplayError when refused. */
  static open(bytes: Uint8Array, mirror: ReplayMirrorOptions, limits: ReplayFileLimits = {}): ReplayFile {
    if (!(bytes instanceof Uint8Array)) throw new ReplayError('input is not a Uint8Array', 0);
    const maxFile = limits.maxFileBytes ?? 256 * MiB;
    const maxChunk = limits.maxChunkBytes ?? 64 * MiB;
    if (bytes.length > maxFile) throw new ReplayError(`file of ${bytes.length} bytes exceeds ${maxFile}`, 0);
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const size = bytes.length;
    if (size < HEADER_FIXED_BYTES + 4 + 8 + FOOTER_BYTES) throw new ReplayError('file too short', size);
    if (v.getUint32(0, true) !== HEADER_MAGIC) throw new ReplayError('not a replay (bad magic)', 0);
    const format = v.getUint16(4, true);
    if (format !== FORMAT_VERSION) throw new ReplayError(`format ${format} not supported`, 4);
    const headerBytes = v.getUint16(6, true);
    const nameBytes = v.getUint8(24);
    if (nameBytes > MAX_NAME_BYTES) throw new ReplayError(`name of ${nameBytes} bytes`, 24);
    if (headerBytes !== HEADER_FIXED_BYTES + nameBytes + 4 || headerBytes > size - 8 - FOOTER_BYTES)
      throw new ReplayError(`header length ${headerBytes} does not match`, 6);
    if (crc32(bytes, 0, headerBytes - 4) !== v.getUint32(headerBytes - 4, true))
      throw new ReplayError('header CRC mismatch', headerBytes - 4);
    let name: string;
    try {
      name = new TextDecoder('utf-8', { fatal: true }).decode(
        bytes.subarray(HEADER_FIXED_BYTES, HEADER_FIXED_BYTES + nameBytes),
      );
    } catch {
      throw new ReplayError('name is not UTF-8', HEADER_FIXED_BYTES);
    }
    const header: ReplayHeader = {
      configuration: v.getUint32(8, true),
      tickRate: v.getUint16(12, true),
      capacity: v.getUint32(14, true),
      keyframeTicks: v.getUint16(18, true),
      startTick: v.getUint32(20, true),
      name,
    };
    // Checking only: the scratch mirror gets the world's shape and none of the caller's callbacks
    // (a ReplayPlayer's onEvent / onCreate must not fire while the file is merely read).
    const { types, capacity, historyLength, events } = mirror;
    const scratch = new ClientMirror({ types, capacity, historyLength, events });
    if (header.configuration !== scratch.configuration)
      throw new ReplayError('configuration fingerprint differs from this game', 8);
    if (header.capacity !== scratch.capacity)
      throw new ReplayError(`capacity ${header.capacity} differs`, 14);
    if (header.tickRate < 1 || header.tickRate > 1000)
      throw new ReplayError(`tick rate ${header.tickRate}`, 12);
    if (header.keyframeTicks < 1) throw new ReplayError('keyframe ticks 0', 18);

    // Footer and index.
    const footer = size - FOOTER_BYTES;
    if (v.getUint32(footer + 4, true) !== END_MAGIC) throw new ReplayError('bad footer magic', footer + 4);
    const indexAt = v.getUint32(footer, true);
    if (indexAt < headerBytes || indexAt + 8 > footer)
      throw new ReplayError(`index offset ${indexAt} outside the file`, footer);
    if (v.getUint32(indexAt, true) !== INDEX_MAGIC) throw new ReplayError('bad index magic', indexAt);
    const count = v.getUint32(indexAt + 4, true);
    if (
      count < 1 ||
      count > (footer - indexAt - 8) / INDEX_ENTRY_BYTES ||
      indexAt + 8 + count * INDEX_ENTRY_BYTES !== footer
    )
      throw new ReplayError(`index count ${count} does not fit the index`, indexAt + 4);
    if (crc32(bytes, indexAt, footer) !== v.getUint32(footer + 8, true))
      throw new ReplayError('index CRC mismatch', footer + 8);

    // Chunks, in index order: offsets strictly increasing and tiling the file up to the index.
    const chunks: ReplayFrames[] = [];
    let expectedAt = headerBytes;
    let previousTick = -1;
    let previousFirst = -1;
    for (let i = 0; i < count; i++) {
      const entry = indexAt + 8 + i * INDEX_ENTRY_BYTES;
      const first = v.getUint32(entry, true);
      const last = v.getUint32(entry + 4, true);
      const at = v.getUint32(entry + 8, true);
      if (at !== expectedAt)
        throw new ReplayError(`index offset ${at} is not the next chunk (${expectedAt})`, entry + 8);
      if (at + CHUNK_HEAD_BYTES > indexAt) throw new ReplayError('chunk head past the index', at);
      if (v.getUint32(at, true) !== CHUNK_MAGIC) throw new ReplayError('bad chunk magic', at);
      const body = v.getUint32(at + 4, true);
      if (body > maxChunk || at + CHUNK_HEAD_BYTES + body > indexAt)
        throw new ReplayError(`chunk body of ${body} bytes out of bounds`, at + 4);
      if (v.getUint32(at + 8, true) !== first || v.getUint32(at + 12, true) !== last)
        throw new ReplayError('chunk ticks disagree with the index', at + 8);
      if (first < previousTick || first <= previousFirst || last < first)
        throw new ReplayError('chunk ticks not increasing', entry);
      const frames = v.getUint16(at + 16, true);
      if (frames < 1 || frames > MAX_CHUNK_FRAMES || frames > body / 2 || last - first >= frames * 0x10000)
        throw new ReplayError(`chunk frame count ${frames}`, at + 16);
      const bodyAt = at + CHUNK_HEAD_BYTES;
      if (crc32(bytes, bodyAt, bodyAt + body) !== v.getUint32(at + 18, true))
        throw new ReplayError('chunk body CRC mismatch', at + 18);
      chunks.push(readFrames(bytes, bodyAt, body, first, last, frames));
      previousTick = last;
      previousFirst = first;
      expectedAt = bodyAt + body;
    }
    if (expectedAt !== indexAt)
      throw new ReplayError('bytes between the last chunk and the index', expectedAt);
    if (header.startTick < chunks[0].firstTick || header.startTick > previousTick)
      throw new ReplayError(`start tick ${header.startTick} outside the chunks`, 20);
    const file = new ReplayFile(bytes, header, chunks);
    // Every section through the mirror's own refusals, each chunk from a reset mirror.
    const rs = new ReadStream(0);
    const staged = new ScratchList<unknown>();
    for (const chunk of chunks) {
      scratch.reset();
      for (let f = 0; f < chunk.ticks.length; f++) {
        const reason = file.applyFrame(scratch, chunk, f, rs, staged);
        if (reason !== null) throw new ReplayError(`section refused: ${reason}`, chunk.offsets[f]);
      }
    }
    return file;
  }

  /** Applies frame `f` of `chunk` to `mirror`; the reason when the mirror refuses it, else null. */
  applyFrame(
    mirror: ClientMirror,
    chunk: ReplayFrames,
    f: number,
    rs: ReadStream,
    staged: ScratchList<unknown>,
  ): string | null {
    rs.reset(this.bytes, chunk.offsets[f], chunk.lengths[f]);
    staged.clear();
    if (!mirror.read(rs, staged)) return rs.error ?? 'refused';
    // The tick the section carries is the one the mirror applies: it must be the frame's.
    const sectionTick = (staged.items[0] as { tick: number }).tick;
    if (sectionTick !== chunk.ticks[f])
      return `section tick ${sectionTick} is not the frame's ${chunk.ticks[f]}`;
    mirror.apply();
    return null;
  }
}

/** A chunk's frames: tick deltas (the first 0, later >= 1) and section lengths inside the body. */
export function readFrames(
  bytes: Uint8Array,
  at: number,
  length: number,
  first: number,
  last: number,
  frames: number,
): ReplayFrames {
  const ticks = new Uint32Array(frames);
  const offsets = new Uint32Array(frames);
  const lengths = new Uint32Array(frames);
  const end = at + length;
  let p = at;
  let tick = first;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (p >= end) throw new ReplayError('frame past the chunk body', p);
      const b = bytes[p++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (value > 0xffffffff) throw new ReplayError('varint too large', p - 1);
        return value;
      }
    }
    throw new ReplayError('varint too long', p);
  };
  for (let f = 0; f < frames; f++) {
    const delta = varint();
    if ((f === 0) !== (delta === 0)) throw new ReplayError(`frame tick delta ${delta}`, p - 1);
    tick += delta;
    if (tick > last) throw new ReplayError(`frame tick ${tick} after the chunk's last ${last}`, p - 1);
    const sectionBytes = varint();
    if (sectionBytes < 1 || sectionBytes > end - p)
      throw new ReplayError(`section of ${sectionBytes} bytes`, p - 1);
    ticks[f] = tick;
    offsets[f] = p;
    lengths[f] = sectionBytes;
    p += sectionBytes;
  }
  if (p !== end) throw new ReplayError('bytes after the last frame', p);
  return { firstTick: first, lastTick: last, ticks, offsets, lengths };
}
