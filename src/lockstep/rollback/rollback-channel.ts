/**
 * The rollback session's entry in each packet to one peer (a custom channel: it learns from the
 * packet layer's acks which inputs the peer holds, so every input travels until acked, at no cost
 * while the link is fine).
 *
 *   frame      uint32   the sender's current frame (for frame advantage)
 *   advantage  int8     the sender's newest advantage over us, quarter frames, clamped to ±32
 *   inputs     1 bit "any"; then the first frame (uint32), the count - 1 (6 bits: 1..64), and the
 *              inputs oldest first: the first whole, each other 1 bit "same as the one before"
 *              (1 → nothing more) or the schema's bits
 *   checksums  2 bits count (0..3), each the frame (uint32) and the checksum (uint32)
 *   departures 1 bit "any"; then the count - 1 (6 bits), each a peer our links lost (6 bits) and
 *              the newest frame of its inputs we hold, plus 1 (uint32); sent until acked
 *
 * A packet is refused whole (counted by reason) when it is malformed, names a frame too far past
 * ours, leaves a gap after the inputs we hold, changes an input we already hold, or carries a
 * checksum of a frame that is not a checksum frame.
 */
import type { CustomChannel, PacketRecord } from '../../channels/channel.js';
import type { CustomChannelConfig } from '../../channels/config.js';
import type { ScratchList } from '../../channels/scratch-list.js';
import type { Codec } from '../../schema/codec.js';
import type { ReadStream } from '../../serialize/read-stream.js';
import { WriteStream } from '../../serialize/write-stream.js';
import { INPUT_RING, type PeerInputs } from './peer-inputs.js';

export const MAX_INPUTS_PER_PACKET = 64;
export const MAX_CHECKSUMS_PER_PACKET = 3;
/** Peers at most 64, so at most 63 can leave one peer. */
const MAX_DEPARTURES_PER_PACKET = 64;
const ADVANTAGE_SCALE = 4;

/** Why a peer's packet was refused. */
export type RefusalReason =
  | 'malformed'
  | 'frameTooFarAhead'
  | 'inputGap'
  | 'confirmedInputChanged'
  | 'badChecksumFrame'
  | 'flood';

/** What one packet from a peer said, parsed and checked, waiting for `apply`. */
export interface PeerPacket {
  frame: number;
  /** The peer's advantage over us, frames. */
  advantage: number;
  /** Frames [inputFirst, inputFirst + inputCount) are new: their encodings are in `inputs`. */
  inputFirst: number;
  inputCount: number;
  readonly inputs: Uint8Array[];
  readonly inputLengths: Int32Array;
  checksumCount: number;
  readonly checksumFrames: Float64Array;
  readonly checksums: Uint32Array;
  /** Peers the sender's links lost, and the newest frame of each it holds. */
  departureCount: number;
  readonly departurePeers: Int32Array;
  readonly departureFrames: Float64Array;
}

/** What the channel reads from and reports to its session. */
export interface RollbackChannelHost<I> {
  readonly codec: Codec<I>;
  readonly local: PeerInputs<I>;
  readonly checksumInterval: number;
  readonly maxPeers: number;
  /** Peers our links lost and our last frame of each, as pairs (what every peer must hear). */
  departureReports(): readonly number[];
  /** Our current frame (the next to run). */
  currentFrame(): number;
  /** The newest frame a peer may name (ours plus what the input delay and predictions allow). */
  horizon(): number;
  remote(peer: number): PeerInputs<I>;
  /** Our newest advantage over `peer`, frames. */
  advantageOver(peer: number): number;
  /** Our newest checksums not known to be at `peer` (frames after `after`), into the arrays; returns the count. */
  checksumsAfter(after: number, frames: Float64Array, sums: Uint32Array): number;
  refused(peer: number, reason: RefusalReason): void;
  received(peer: number, packet: PeerPacket): void;
}

export class RollbackChannel<I> implements CustomChannel {
  /** The newest local input frame the peer is known to hold, and checksum frame. */
  ackedInput: number;
  ackedChecksum = -1;
  /** Entries of the host's departure reports the peer is known to hold. */
  ackedDepartures = 0;
  private planDepartures = 0;
  private readonly staged: PeerPacket;
  private readonly scratch: WriteStream;
  private scratchValue: I | undefined;
  private planFrom = 0;
  private planTo = -1;
  private planChecksums = 0;
  private readonly planFrames = new Float64Array(MAX_CHECKSUMS_PER_PACKET);
  private readonly planSums = new Uint32Array(MAX_CHECKSUMS_PER_PACKET);

  constructor(
    private readonly host: RollbackChannelHost<I>,
    readonly peer: number,
  ) {
    this.ackedInput = host.local.last;
    const maxBytes = Math.ceil(host.codec.maxBits / 8) + 8;
    this.scratch = new WriteStream(maxBytes);
    const inputs: Uint8Array[] = [];
    for (let i = 0; i < MAX_INPUTS_PER_PACKET; i++) inputs.push(new Uint8Array(maxBytes));
    this.staged = {
      frame: 0,
      advantage: 0,
      inputFirst: 0,
      inputCount: 0,
      inputs,
      inputLengths: new Int32Array(MAX_INPUTS_PER_PACKET),
      checksumCount: 0,
      checksumFrames: new Float64Array(MAX_CHECKSUMS_PER_PACKET),
      checksums: new Uint32Array(MAX_CHECKSUMS_PER_PACKET),
      departureCount: 0,
      departurePeers: new Int32Array(MAX_DEPARTURES_PER_PACKET),
      departureFrames: new Float64Array(MAX_DEPARTURES_PER_PACKET),
    };
  }

  /** The channel entry for PeerConnection's channel list. */
  config(priority = 2): CustomChannelConfig {
    return { kind: 'custom', priority, create: () => this };
  }

  select(_now: number, budgetBits: number): number {
    const local = this.host.local;
    const head = 32 + 8 + 1 + 2;
    this.planChecksums = this.host.checksumsAfter(this.ackedChecksum, this.planFrames, this.planSums);
    const reports = this.host.departureReports().length / 2;
    this.planDepartures = reports > this.ackedDepartures ? reports : 0;
    let bits =
      head + 64 * this.planChecksums + 1 + (this.planDepartures > 0 ? 6 + 38 * this.planDepartures : 0);
    // Inputs that fell out of the ring unacked are gone: the peer will stall on them (reported there).
    const from = Math.max(this.ackedInput + 1, local.last - INPUT_RING + 2);
    this.planFrom = from;
    this.planTo = from - 1;
    if (from <= local.last) {
      bits += 32 + 6;
      const last = Math.min(local.last, from + MAX_INPUTS_PER_PACKET - 1);
      for (let f = from; f <= last; f++) {
        const cost = f === from ? this.measure(f) : local.same(f, f - 1) ? 1 : 1 + this.measure(f);
        if (bits + cost > budgetBits) break;
        bits += cost;
        this.planTo = f;
      }
      if (this.planTo < from) bits -= 32 + 6;
    }
    return bits <= budgetBits ? bits : 0;
  }

  private measure(f: number): number {
    return this.host.codec.measure(this.host.local.valueAt(f));
  }

  writeSelected(ws: WriteStream, _now: number, record: ScratchList<number>): void {
    const local = this.host.local;
    ws.uint32(this.host.currentFrame());
    const advantage = Math.round(this.host.advantageOver(this.peer) * ADVANTAGE_SCALE);
    ws.int(Math.max(-128, Math.min(127, Number.isFinite(advantage) ? advantage : 0)), -128, 127);
    const from = this.planFrom;
    const to = this.planTo;
    if (ws.bool(to >= from)) {
      ws.uint32(from);
      ws.bits(to - from, 6);
      for (let f = from; f <= to; f++) if (f === from || !ws.bool(local.same(f, f - 1))) local.write(ws, f);
    }
    ws.bits(this.planChecksums, 2);
    for (let i = 0; i < this.planChecksums; i++) {
      ws.uint32(this.planFrames[i]);
      ws.uint32(this.planSums[i]);
    }
    const reports = this.host.departureReports();
    if (ws.bool(this.planDepartures > 0)) {
      ws.bits(this.planDepartures - 1, 6);
      for (let i = 0; i < this.planDepartures; i++) {
        ws.bits(reports[2 * i], 6);
        ws.uint32(reports[2 * i + 1] + 1);
      }
    }
    record.push(to >= from ? to : -1);
    record.push(this.planChecksums > 0 ? this.planFrames[this.planChecksums - 1] : -1);
    record.push(this.planDepartures);
  }

  acked(record: PacketRecord, start: number, end: number): void {
    for (let k = start; k + 2 < end; k += 3) {
      if (record[k] > this.ackedInput) this.ackedInput = record[k];
      if (record[k + 1] > this.ackedChecksum) this.ackedChecksum = record[k + 1];
      if (record[k + 2] > this.ackedDepartures) this.ackedDepartures = record[k + 2];
    }
  }

  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    const p = this.staged;
    const host = this.host;
    const remote = host.remote(this.peer);
    p.frame = rs.uint32(0);
    p.advantage = rs.int(0, -128, 127) / ADVANTAGE_SCALE;
    p.inputFirst = remote.last + 1;
    p.inputCount = 0;
    const horizon = host.horizon();
    if (rs.ok && p.frame > horizon) return this.refuse(rs, 'frameTooFarAhead');
    if (rs.bool(false)) {
      const first = rs.uint32(0);
      const count = rs.bits(0, 6) + 1;
      if (!rs.ok) return this.refuse(rs, 'malformed');
      if (first > remote.last + 1) return this.refuse(rs, 'inputGap');
      if (first + count - 1 > horizon) return this.refuse(rs, 'frameTooFarAhead');
      let length = 0;
      let previous: Uint8Array | null = null;
      for (let i = 0; i < count; i++) {
        const f = first + i;
        if (i === 0 || !rs.bool(false)) {
          const value = host.codec.read(rs, this.scratchValue);
          if (value === null || !rs.ok) return this.refuse(rs, 'malformed');
          this.scratchValue = value;
          this.scratch.reset();
          host.codec.write(this.scratch, value);
          previous = this.scratch.finish();
          length = previous.length;
        }
        if (!rs.ok || previous === null) return this.refuse(rs, 'malformed');
        if (f <= remote.last) {
          if (remote.holds(f) && !remote.equals(f, previous)) return this.refuse(rs, 'confirmedInputChanged');
          continue;
        }
        const k = p.inputCount++;
        p.inputs[k].set(previous.subarray(0, length));
        p.inputLengths[k] = length;
      }
    }
    p.checksumCount = rs.bits(0, 2);
    for (let i = 0; i < p.checksumCount; i++) {
      p.checksumFrames[i] = rs.uint32(0);
      p.checksums[i] = rs.uint32(0);
      const c = p.checksumFrames[i];
      if (rs.ok && (host.checksumInterval === 0 || c % host.checksumInterval !== 0 || c > horizon))
        return this.refuse(rs, 'badChecksumFrame');
    }
    p.departureCount = rs.bool(false) ? rs.bits(0, 6) + 1 : 0;
    for (let i = 0; i < p.departureCount; i++) {
      p.departurePeers[i] = rs.bits(0, 6);
      p.departureFrames[i] = rs.uint32(0) - 1;
      if (rs.ok && p.departurePeers[i] >= host.maxPeers) return this.refuse(rs, 'malformed');
      if (rs.ok && p.departureFrames[i] > horizon) return this.refuse(rs, 'frameTooFarAhead');
    }
    if (!rs.ok) return this.refuse(rs, 'malformed');
    staged.push(p);
    return true;
  }

  private refuse(rs: ReadStream, reason: RefusalReason): false {
    this.host.refused(this.peer, reason);
    rs.fail(`rollback: ${reason}`);
    return false;
  }

  apply(): void {
    this.host.received(this.peer, this.staged);
  }
}
