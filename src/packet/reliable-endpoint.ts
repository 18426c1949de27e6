import { checkTime } from '../time/check-time.js';
import { checkedReliableConfig, type ReliableConfig } from './config.js';
import { emptyReliableCounters, type ReliableCounters } from './counters.js';
import {
  RECEIVED_WINDOW_NUMBERS,
  RTT_WINDOW_NUMBERS,
  RttWindow,
  SENT_WINDOW_NUMBERS,
  TrafficWindow,
} from './endpoint-stats.js';
import { GrowingSequenceBuffer } from './growing-sequence-buffer.js';
import {
  FRAGMENT_HEADER_BYTES,
  type FragmentHeader,
  MAX_PACKET_HEADER_BYTES,
  type PacketHeader,
  readFragmentHeader,
  readPacketHeader,
  writeFragmentHeader,
  writePacketHeader,
} from './header.js';
import { LostUncounted } from './lost-uncounted.js';
import { NO_BYTES, Reassembly } from './reassembly.js';
import { SentPackets } from './sent-packets.js';
import { ackBitsOf, receivedSequences, SequenceBits } from './sequence-bits.js';
import type { SequenceSet } from './sequence-slots.js';

export { emptyReliableCounters, type ReliableCounters };

/**
 * What a ReliableEndpoint calls. Byte arguments are views of the endpoint's own buffers or of
 * the caller's input, valid only during the call (copy to keep). `R` is the upper layer's
 * per-packet record (the book's TransmissionData): the endpoint stores it with the sent packet
 * and hands it back with the packet's one outcome, without knowing its type.
 */
export interface ReliableHandler<R> {
  /** Send data[0, length) to the peer. */
  transmit(sequence: number, data: Uint8Array, length: number): void;
  /** A new packet's payload is data[offset, offset + length). Return false to refuse it (it is then not acked). */
  process(sequence: number, data: Uint8Array, offset: number, length: number): boolean;
  /** The peer reported receiving this packet. Called once per packet, never after onLost. */
  onAcked?(sequence: number, record: R | undefined): void;
  /** No ack within ackTimeout (or the packet left the sent buffer first). Called once, never after onAcked. */
  onLost?(sequence: number, record: R | undefined): void;
}

/**
 * Headers as read, shared by every endpoint: a receive copies what it needs out of them before
 * any callback, so another endpoint's receive meanwhile cannot disturb it.
 */
const header: PacketHeader = { sequence: 0, ack: 0, ackBits: 0 };
const fragment: FragmentHeader = {
  sequence: 0,
  ack: 0,
  ackBits: 0,
  fragmentId: 0,
  numFragments: 0,
  fragmentBytes: 0,
  headerBytes: 0,
};

/**
 * Packet-level reliability without retransmission (reliable 1.4.0, wire-compatible): every packet
 * carries a 16-bit sequence, the newest sequence received (ack) and 32 ack bits, so each ack is
 * repeated in up to 32 packets; every sent packet gets exactly one outcome, acked or lost; packets
 * above `fragmentAbove` travel as fragments and are reassembled in bounded memory. It measures
 * RTT, jitter, loss and bandwidth the way the reference does.
 *
 * A pure state machine: it never reads a clock or a socket. Drive it with `update(now)` once per
 * tick (seconds), `receivePacket` for each datagram, and `sendPacket` for each payload.
 */
export class ReliableEndpoint<R = unknown> {
  readonly config: ReliableConfig;
  private readonly counters: ReliableCounters = emptyReliableCounters();
  /** Smoothed round-trip time, ms. */
  rttMs = 0;
  rttMinMs = 0;
  rttMaxMs = 0;
  rttAvgMs = 0;
  /**
   * The newest round-trip sample, ms (0 before the first ack): `rtt` follows the reference's slow
   * smoothing (0.0025 a sample, seconds to follow a change); this is for what must react sooner.
   */
  rttSampleMs = 0;
  jitterAvgVsMinRttMs = 0;
  jitterMaxVsMinRttMs = 0;
  jitterStddevVsAvgRttMs = 0;
  /** Smoothed percentage of sent packets not acked. */
  packetLoss = 0;
  sentKbps = 0;
  receivedKbps = 0;
  ackedKbps = 0;

  private time: number;
  private sequence = 0;
  private oldestUnresolved = 0;
  /** Late-ack bookkeeping: which sequences were reported lost and not yet acked late. */
  private readonly lostUncounted: LostUncounted;
  private readonly sent: SentPackets<R>;
  /** The sequences received, for ack bits and duplicates. */
  private readonly received: SequenceBits | SequenceSet;
  /** Loss and bandwidth: tallies of the packets sent and received, by sequence. */
  private readonly sentWindow: TrafficWindow;
  private readonly receivedWindow: TrafficWindow;
  /** Made at the first fragment (never, under channels: their packets fit). */
  private reassembly: GrowingSequenceBuffer<Reassembly> | null = null;
  /**
   * The buffer of the last packet reassembled, for the next one: steady fragmented traffic reuses
   * it instead of allocating per packet, and an endpoint that stops receiving fragments keeps one.
   */
  private spareReassemblyBuffer = NO_BYTES;
  private readonly rttWindow: RttWindow;
  private readonly transmitBuffer: Uint8Array;

  /**
   * `transmitBuffer` (optional) is where outgoing packets are written, shared by endpoints whose
   * transmit consumes the bytes at once and never sends on another of them meanwhile (a Server's
   * endpoints: one buffer per server, not per client); it must hold transmitBufferBytes(config).
   */
  constructor(
    private readonly handler: ReliableHandler<R>,
    config: Partial<ReliableConfig> = {},
    now = 0,
    transmitBuffer?: Uint8Array,
  ) {
    this.config = checkedReliableConfig(config);
    this.time = checkTime('ReliableEndpoint', now, Number.NEGATIVE_INFINITY);
    const c = this.config;
    this.sent = new SentPackets<R>(c.sentPacketsBufferSize);
    this.lostUncounted = new LostUncounted(c.sentPacketsBufferSize);
    this.received = receivedSequences(c.receivedPacketsBufferSize);
    // One array for every statistic's tallies: a typed array costs ~200 bytes besides its numbers.
    const numbers = new Float64Array(RTT_WINDOW_NUMBERS + SENT_WINDOW_NUMBERS + RECEIVED_WINDOW_NUMBERS);
    this.rttWindow = new RttWindow(c.rttHistorySize, numbers, 0);
    this.sentWindow = new TrafficWindow(c.sentPacketsBufferSize, numbers, RTT_WINDOW_NUMBERS, true);
    this.receivedWindow = new TrafficWindow(
      c.receivedPacketsBufferSize,
      numbers,
      RTT_WINDOW_NUMBERS + SENT_WINDOW_NUMBERS,
      false,
    );
    const bytes = transmitBufferBytes(c);
    if (
      transmitBuffer !== undefined &&
      !(transmitBuffer instanceof Uint8Array && transmitBuffer.length >= bytes)
    )
      throw new RangeError(
        `ReliableEndpoint: transmitBuffer must be a Uint8Array of at least ${bytes} bytes`,
      );
    this.transmitBuffer = transmitBuffer ?? new Uint8Array(bytes);
  }

  /** What the endpoint has counted: packets, acks, fragments, refusals (live: read it, copy it to keep a snapshot). */
  stats(): Readonly<ReliableCounters> {
    return this.counters;
  }

  /** Bytes held by fragment reassembly: capped at fragmentReassemblyBufferSize × (maxFragments × fragmentSize + 9). */
  get reassemblyBytes(): number {
    let total = this.spareReassemblyBuffer.length;
    const reassembly = this.reassembly;
    if (reassembly !== null)
      for (let i = 0; i < reassembly.capacity; i++) total += reassembly.entryAt(i)?.buffer.length ?? 0;
    return total;
  }

  /** The sequence the next sendPacket will use. */
  get nextSequence(): number {
    return this.sequence;
  }

  /**
   * Sends data[0, length) as one packet (fragmented above fragmentAbove) and returns its
   * sequence; `record` comes back with the packet's outcome. A payload over maxPacketSize throws.
   */
  sendPacket(data: Uint8Array, length = data.length, record?: R): number {
    const c = this.config;
    if (!(Number.isInteger(length) && length >= 1 && length <= data.length)) {
      throw new RangeError(
        `sendPacket: length ${length} is not within the ${data.length}-byte payload (at least 1 byte)`,
      );
    }
    if (length > c.maxPacketSize) {
      throw new RangeError(
        `sendPacket: a ${length}-byte packet exceeds maxPacketSize ${c.maxPacketSize}; raise ReliableConfig.maxPacketSize (and maxFragments)`,
      );
    }
    const sequence = this.sequence;
    this.sequence = (sequence + 1) & 0xffff;

    // The slot this packet takes held the packet sent `size` sequences ago: if that one never
    // got an outcome, it can no longer be acked, so it is lost now.
    const evicted = (sequence - this.sent.size) & 0xffff;
    const old = this.sent.indexOf(evicted);
    if (old >= 0 && !this.sent.resolved(old)) this.resolveLost(evicted, old);

    this.sent.add(sequence, this.time, c.packetHeaderSize + length, record);
    this.sentWindow.add(sequence, this.time, c.packetHeaderSize + length);
    this.lostUncounted.sent(sequence);

    const ack = (this.received.sequence - 1) & 0xffff;
    const ackBits = this.ackBits(ack);
    const out = this.transmitBuffer;
    if (length <= c.fragmentAbove) {
      const headerBytes = writePacketHeader(out, 0, sequence, ack, ackBits);
      // A whole-array copy needs no view: the common case sends without allocating.
      out.set(length === data.length ? data : data.subarray(0, length), headerBytes);
      this.handler.transmit(sequence, out, headerBytes + length);
    } else {
      const numFragments = Math.ceil(length / c.fragmentSize);
      for (let id = 0, q = 0; id < numFragments; id++) {
        let p = writeFragmentHeader(out, 0, sequence, id, numFragments);
        if (id === 0) p += writePacketHeader(out, p, sequence, ack, ackBits);
        const bytes = Math.min(c.fragmentSize, length - q);
        out.set(data.subarray(q, q + bytes), p);
        q += bytes;
        this.handler.transmit(sequence, out, p + bytes);
        this.counters.fragmentsSent++;
      }
    }
    this.counters.packetsSent++;
    return sequence;
  }

  /** Ack bits for `ack`: bit i set when sequence ack - i was received (bit 0 is ack itself). */
  private ackBits(ack: number): number {
    const received = this.received;
    return received instanceof SequenceBits ? received.ackBits(ack) : ackBitsOf(received, ack);
  }

  /** Handles one datagram from the peer: data[offset, offset + length). Never throws on bad input. */
  receivePacket(data: Uint8Array, offset = 0, length?: number): void {
    // The default length is taken only after the type check: `data` may be anything at all.
    if (!(data instanceof Uint8Array)) {
      this.counters.packetsInvalid++;
      return;
    }
    length ??= data.length - offset;
    if (
      !(
        Number.isInteger(offset) &&
        Number.isInteger(length) &&
        offset >= 0 &&
        length >= 1 &&
        offset + length <= data.length
      )
    ) {
      this.counters.packetsInvalid++;
      return;
    }
    const c = this.config;
    if (length > c.maxPacketSize + MAX_PACKET_HEADER_BYTES + FRAGMENT_HEADER_BYTES) {
      this.counters.packetsTooLargeToReceive++;
      return;
    }
    if ((data[offset] & 1) === 0) this.receiveRegular(data, offset, length);
    else this.receiveFragment(data, offset, length);
  }

  private receiveRegular(data: Uint8Array, offset: number, length: number): void {
    const c = this.config;
    this.counters.packetsReceived++;
    const h = header;
    const headerBytes = readPacketHeader(data, offset, length, h);
    if (headerBytes < 0) {
      this.counters.packetsInvalid++;
      return;
    }
    const payloadBytes = length - headerBytes;
    if (payloadBytes > c.maxPacketSize) {
      this.counters.packetsTooLargeToReceive++;
      return;
    }
    const { sequence, ack } = h;
    let ackBits = h.ackBits;
    if (!this.received.canInsert(sequence)) {
      this.counters.packetsStale++;
      return;
    }
    if (this.received.exists(sequence)) {
      this.counters.packetsDuplicate++;
      return;
    }
    if (!this.handler.process(sequence, data, offset + headerBytes, payloadBytes)) {
      this.counters.packetsRefused++;
      return;
    }
    this.received.insert(sequence);
    this.receivedWindow.add(sequence, this.time, c.packetHeaderSize + length);
    this.reassembly?.advance(sequence);

    // Acks of packets before the oldest unresolved one change nothing unless one may be late (a
    // loss not yet acked late): without one, only the bits from there to `ack` are read (a few,
    // not 32, in the steady state).
    const pendingSpan = (this.sequence - this.oldestUnresolved) & 0xffff;
    const ackSpan = (ack - this.oldestUnresolved) & 0xffff;
    if (this.lostUncounted.count === 0 && ackSpan < pendingSpan && ackSpan < 31)
      ackBits &= (2 << ackSpan) - 1;
    for (let i = 0; i < 32 && ackBits !== 0; i++, ackBits >>>= 1) {
      if ((ackBits & 1) === 0) continue;
      const acked = (ack - i) & 0xffff;
      const sent = this.sent.indexOf(acked);
      // Reported lost (timed out, or its slot reused), acked now: late, counted once.
      if (sent < 0 || this.sent.resolved(sent)) {
        if ((sent >= 0 || this.sentAndDropped(acked)) && this.lostUncounted.take(acked))
          this.counters.lateAcks++;
        continue;
      }
      const sentTime = this.sent.timeAt(sent);
      this.sentWindow.acked(acked, this.sent.bytesAt(sent));
      const record = this.sent.resolve(sent, true);
      this.counters.packetsAcked++;
      const rtt = (this.time - sentTime) * 1000;
      this.rttSampleMs = rtt;
      this.rttWindow.add(rtt);
      if ((this.rttMs === 0 && rtt > 0) || Math.abs(this.rttMs - rtt) < 0.00001) this.rttMs = rtt;
      else this.rttMs += (rtt - this.rttMs) * c.rttSmoothingFactor;
      this.handler.onAcked?.(acked, record);
    }
  }

  /**
   * True when `sequence` was sent but is no longer in the sent buffer: resolved and its slot given
   * to a newer packet (within the buffer's size), or further back than the buffer, yet no further
   * than the packets sent and half the sequence space.
   */
  private sentAndDropped(sequence: number): boolean {
    const back = (this.sequence - sequence) & 0xffff;
    return back >= 1 && (back <= this.sent.size || back < 32768) && back <= this.counters.packetsSent;
  }

  private receiveFragment(data: Uint8Array, offset: number, length: number): void {
    const c = this.config;
    const f = fragment;
    if (!readFragmentHeader(data, offset, length, c.maxFragments, c.fragmentSize, f)) {
      this.counters.fragmentsInvalid++;
      return;
    }
    const { sequence, fragmentId, numFragments } = f;
    if (this.received.exists(sequence)) {
      this.counters.fragmentsDuplicate++;
      return;
    }
    const reassembly = this.reassembly ?? this.startReassembly();
    let slot = reassembly.find(sequence);
    if (slot === undefined) {
      slot = reassembly.insert(sequence);
      if (slot === undefined) {
        this.counters.fragmentsInvalid++;
        return;
      }
      this.received.advance(sequence);
      slot.numReceived = 0;
      slot.numTotal = numFragments;
      slot.payloadBytes = 0;
      slot.headerBytes = 0;
      slot.received.fill(0, 0, numFragments);
      const need = MAX_PACKET_HEADER_BYTES + numFragments * c.fragmentSize;
      // Reused from an incomplete packet when large enough: at most fragmentReassemblyBufferSize
      // buffers of maxFragments * fragmentSize, however many sequences a peer starts.
      if (slot.buffer.length < need) {
        const spare = this.spareReassemblyBuffer;
        // The spare goes either way, so the slots and it never hold more buffers than there are slots.
        this.spareReassemblyBuffer = NO_BYTES;
        slot.buffer = spare.length >= need ? spare : new Uint8Array(need);
      }
    }
    if (numFragments !== slot.numTotal) {
      this.counters.fragmentsInvalid++;
      return;
    }
    if (slot.received[fragmentId] !== 0) {
      this.counters.fragmentsDuplicate++;
      return;
    }
    slot.received[fragmentId] = 1;
    slot.numReceived++;
    const payloadStart = offset + f.headerBytes;
    if (fragmentId === 0) {
      // Keep the packet header just before the payload, so the whole packet is one contiguous run.
      slot.headerBytes = writePacketHeader(
        slot.buffer,
        MAX_PACKET_HEADER_BYTES - f.headerBytes + FRAGMENT_HEADER_BYTES,
        sequence,
        f.ack,
        f.ackBits,
      );
    }
    if (fragmentId === numFragments - 1)
      slot.payloadBytes = (numFragments - 1) * c.fragmentSize + f.fragmentBytes;
    slot.buffer.set(
      data.subarray(payloadStart, payloadStart + f.fragmentBytes),
      MAX_PACKET_HEADER_BYTES + fragmentId * c.fragmentSize,
    );
    this.counters.fragmentsReceived++;
    if (slot.numReceived === slot.numTotal) {
      const start = MAX_PACKET_HEADER_BYTES - slot.headerBytes;
      const buffer = slot.buffer;
      slot.buffer = NO_BYTES;
      reassembly.remove(sequence);
      this.receiveRegular(buffer, start, slot.headerBytes + slot.payloadBytes);
      if (buffer.length > this.spareReassemblyBuffer.length) this.spareReassemblyBuffer = buffer;
    }
  }

  /** The reassembly slots, made now, as far along as if every packet so far had advanced them. */
  private startReassembly(): GrowingSequenceBuffer<Reassembly> {
    const maxFragments = this.config.maxFragments;
    const reassembly = new GrowingSequenceBuffer(
      this.config.fragmentReassemblyBufferSize,
      () => new Reassembly(maxFragments),
    );
    reassembly.advance((this.received.sequence - 1) & 0xffff);
    this.reassembly = reassembly;
    return reassembly;
  }

  private resolveLost(sequence: number, index: number): void {
    const record = this.sent.resolve(index, false);
    this.lostUncounted.lost(sequence);
    this.counters.packetsLost++;
    this.handler.onLost?.(sequence, record);
  }

  /**
   * Advances the clock to `now` (seconds) and nothing else. A caller that hands this tick's
   * datagrams in before `update(now)` calls it first, so their acks are timed at `now`, not at
   * the previous tick (which read every RTT one tick short).
   */
  advanceTime(now: number): void {
    this.time = checkTime('ReliableEndpoint.advanceTime', now, this.time);
  }

  /** Advances time to `now` (seconds): reports packets lost by timeout and refreshes the statistics. */
  update(now: number): void {
    this.time = checkTime('ReliableEndpoint.update', now, this.time);
    this.expireUnacked();
    this.updateStats();
  }

  private expireUnacked(): void {
    const size = this.sent.size;
    // Everything more than `size` behind was evicted (and reported) when its slot was reused.
    if (((this.sequence - this.oldestUnresolved) & 0xffff) > size)
      this.oldestUnresolved = (this.sequence - size) & 0xffff;
    const deadline = this.time - this.config.ackTimeout;
    while (this.oldestUnresolved !== this.sequence) {
      const s = this.oldestUnresolved;
      const index = this.sent.indexOf(s);
      if (index >= 0 && !this.sent.resolved(index)) {
        if (this.sent.timeAt(index) > deadline) break;
        this.resolveLost(s, index);
      }
      this.oldestUnresolved = (s + 1) & 0xffff;
    }
  }

  private updateStats(): void {
    // Tallies, not histories: a refresh reads at most 8 RTT blocks and 2 × 7 traffic buckets.
    if (this.rttWindow.changed) this.rttWindow.write(this);
    this.sentWindow.writeSent(this.config, this);
    this.receivedWindow.writeReceived(this.config, this);
  }

  /** Forgets every packet and statistic, as a fresh endpoint at time `now` (records are dropped unreported). */
  reset(now = this.time): void {
    this.time = checkTime('ReliableEndpoint.reset', now, Number.NEGATIVE_INFINITY);
    this.sequence = 0;
    this.oldestUnresolved = 0;
    this.lostUncounted.reset();
    this.sent.reset();
    this.received.reset();
    this.sentWindow.reset();
    this.receivedWindow.reset();
    this.reassembly = null;
    this.rttWindow.reset();
    Object.assign(this.counters, emptyReliableCounters());
    this.rttMs = this.rttMinMs = this.rttMaxMs = this.rttAvgMs = this.rttSampleMs = 0;
    this.jitterAvgVsMinRttMs = this.jitterMaxVsMinRttMs = this.jitterStddevVsAvgRttMs = 0;
    this.packetLoss = this.sentKbps = this.receivedKbps = this.ackedKbps = 0;
  }
}

/** Bytes an endpoint with `config` writes a packet or fragment into (its transmit buffer's size). */
export function transmitBufferBytes(config: ReliableConfig): number {
  return Math.max(
    MAX_PACKET_HEADER_BYTES + Math.min(config.maxPacketSize, config.fragmentAbove),
    FRAGMENT_HEADER_BYTES + MAX_PACKET_HEADER_BYTES + config.fragmentSize,
  );
}
