import type { ReadStream } from '../../serialize/read-stream.js';
import type { WriteStream } from '../../serialize/write-stream.js';
import type { AnyEventType } from '../event.js';
import { readEventTick, SEQUENCE_BITS, SEQUENCE_MASK, writeEventTick } from '../event-wire.js';

/**
 * The events part of a recorded ghost section (docs/replication.md, "Wire format: events"), read
 * as bits and written again with only the events a view keeps: a kill-cam's clip (ViewClip) drops
 * the entity events about ghosts its viewer does not hold. Payloads are copied bit for bit, never
 * decoded. Sequence numbers are the clip's own and, as in every recording, start again at each
 * keyframe (a chunk decodes alone: a player restarts its numbering when it enters a chunk, by a
 * seek or by playing on; docs/replay-format.md).
 */
export class SectionEvents {
  /** Per event read: 1 reliable, 0 unreliable; its type, entity (-1: none), tick, payload. */
  private readonly reliable: number[] = [];
  private readonly type: number[] = [];
  private readonly entity: number[] = [];
  private readonly tick: number[] = [];
  /** A variable payload's byte length (-1: a fixed one), and where its bits start in `words`. */
  private readonly payloadBytes: number[] = [];
  private readonly payloadAt: number[] = [];
  private readonly payloadBits: number[] = [];
  private readonly words: number[] = [];
  /** The next reliable and unreliable sequences of the chunk written. */
  reliableSeq = 0;
  unreliableSeq = 0;

  constructor(
    private readonly events: readonly AnyEventType[],
    private readonly capacity: number,
  ) {}

  get length(): number {
    return this.type.length;
  }

  clear(): void {
    this.reliable.length = 0;
    this.type.length = 0;
    this.entity.length = 0;
    this.tick.length = 0;
    this.payloadBytes.length = 0;
    this.payloadAt.length = 0;
    this.payloadBits.length = 0;
    this.words.length = 0;
  }

  /** Reads the events part of a section of `sectionTick` (cancelled reliable events are left out); false when the stream failed. */
  read(rs: ReadStream, sectionTick: number): boolean {
    this.clear();
    if (!rs.bool(false)) return rs.ok;
    const count = this.events.length;
    let previous = -1;
    while (rs.ok && rs.bool(false)) {
      previous = previous < 0 ? rs.bits(0, SEQUENCE_BITS) : rs.sequenceRelative(previous, 0);
      const type = rs.int(0, 0, count);
      if (rs.ok && type < count) this.readEvent(rs, sectionTick, 1, type);
    }
    while (rs.ok && rs.bool(false)) {
      const type = rs.int(0, 0, count - 1);
      if (rs.ok) this.readEvent(rs, sectionTick, 0, type);
    }
    if (rs.ok && this.reliable.some((r) => r === 0)) rs.bits(0, SEQUENCE_BITS);
    return rs.ok;
  }

  private readEvent(rs: ReadStream, sectionTick: number, reliable: number, typeIndex: number): void {
    const type = this.events[typeIndex];
    const entity = rs.bits(0, 1) === 1 ? rs.int(0, 0, this.capacity - 1) : -1;
    const tick = readEventTick(rs, sectionTick);
    const bytes = type.fixedBits >= 0 ? -1 : rs.int(0, 0, type.maxBytes);
    let bits = bytes < 0 ? type.fixedBits : bytes * 8;
    if (!rs.ok) return;
    if (bits > rs.bitsRemaining) {
      rs.fail(`event ${type.name}: payload past the end`);
      return;
    }
    this.reliable.push(reliable);
    this.type.push(typeIndex);
    this.entity.push(entity);
    this.tick.push(tick);
    this.payloadBytes.push(bytes);
    this.payloadAt.push(this.words.length);
    this.payloadBits.push(bits);
    for (; bits > 0; bits -= 32) this.words.push(rs.bits(0, Math.min(32, bits)) >>> 0);
  }

  /**
   * Writes the events part for a section of `sectionTick`: with `events`, the events read whose
   * entity is none or one `holds` says the viewer has after the section. A keyframe (`keyframe`)
   * opens a chunk: its numbers start from 0. Returns how many events were written.
   */
  write(
    ws: WriteStream,
    sectionTick: number,
    holds: (id: number) => boolean,
    events: boolean,
    keyframe: boolean,
  ): number {
    let kept = 0;
    let unreliable = 0;
    for (let i = 0; events && i < this.type.length; i++) {
      if (this.entity[i] >= 0 && !holds(this.entity[i])) continue;
      kept++;
      if (this.reliable[i] === 0) unreliable++;
    }
    if (keyframe) {
      this.reliableSeq = 0;
      this.unreliableSeq = 0;
    }
    if (kept === 0) {
      ws.bits(0, 1);
      return 0;
    }
    ws.bits(1, 1);
    const count = this.events.length;
    let previous = -1;
    for (let i = 0; events && i < this.type.length; i++) {
      if (this.reliable[i] === 0 || (this.entity[i] >= 0 && !holds(this.entity[i]))) continue;
      const seq = this.reliableSeq;
      this.reliableSeq = (seq + 1) & SEQUENCE_MASK;
      ws.bits(1, 1);
      if (previous < 0) ws.bits(seq, SEQUENCE_BITS);
      else ws.sequenceRelative(previous, seq);
      previous = seq;
      ws.int(this.type[i], 0, count);
      this.writeBody(ws, sectionTick, i);
    }
    ws.bits(0, 1);
    for (let i = 0; events && i < this.type.length; i++) {
      if (this.reliable[i] === 1 || (this.entity[i] >= 0 && !holds(this.entity[i]))) continue;
      ws.bits(1, 1);
      ws.int(this.type[i], 0, count - 1);
      this.writeBody(ws, sectionTick, i);
    }
    ws.bits(0, 1);
    if (unreliable > 0) {
      ws.bits(this.unreliableSeq, SEQUENCE_BITS);
      this.unreliableSeq = (this.unreliableSeq + unreliable) & SEQUENCE_MASK;
    }
    return kept;
  }

  private writeBody(ws: WriteStream, sectionTick: number, i: number): void {
    const entity = this.entity[i];
    if (entity >= 0) {
      ws.bits(1, 1);
      ws.int(entity, 0, this.capacity - 1);
    } else ws.bits(0, 1);
    writeEventTick(ws, sectionTick, this.tick[i]);
    const bytes = this.payloadBytes[i];
    if (bytes >= 0) ws.int(bytes, 0, this.events[this.type[i]].maxBytes);
    let at = this.payloadAt[i];
    for (let bits = this.payloadBits[i]; bits > 0; bits -= 32) ws.bits(this.words[at++], Math.min(32, bits));
  }
}
