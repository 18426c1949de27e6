/**
 * The packet fuzz's wire and readers: CRC stamping, sending, arrivals, and every input fed to both
 * readers with its counters checked.
 */

import type { ReliableEndpoint } from '../../src/packet/index.js';
import { randomInt } from '../../src/random/prng.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { ReaderCrash } from '../fuzz-core.js';
import { DeliveryLog } from '../packet-soak-core.js';
import {
  BAD_ARGUMENTS,
  CAPTURE_SLOTS,
  CLEAN,
  CORRUPTED,
  CRC_BYTES,
  DROPS,
  FORGED,
  MUTATED,
  PACKET_READERS,
  RANDOM,
} from './options.js';
import type { Side } from './parts.js';
import { PacketFuzzVictims } from './victims.js';

export abstract class PacketFuzzWire extends PacketFuzzVictims {
  // -------------------------------------------------------------------------------------------
  // The wire
  // -------------------------------------------------------------------------------------------

  protected stampCrc(buffer: Uint8Array, end: number): void {
    const crc = crc32(buffer, CRC_BYTES, end, this.prefixCrc);
    buffer[0] = crc & 0xff;
    buffer[1] = (crc >>> 8) & 0xff;
    buffer[2] = (crc >>> 16) & 0xff;
    buffer[3] = crc >>> 24;
  }

  protected crcMatches(data: Uint8Array): boolean {
    const stored = (data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)) >>> 0;
    return crc32(data, CRC_BYTES, data.length, this.prefixCrc) === stored;
  }

  protected transmit(side: Side, data: Uint8Array, length: number): void {
    const wire = side.wire;
    wire.set(length === data.length ? data : data.subarray(0, length), CRC_BYTES);
    this.stampCrc(wire, CRC_BYTES + length);
    const datagram = wire.subarray(0, CRC_BYTES + length);
    side.sim.send(side.peer, datagram);
    if (this.rng() < 0.25) {
      const slot = side.captures++ % CAPTURE_SLOTS;
      side.captured[slot].set(datagram);
      side.capturedLength[slot] = datagram.length;
    }
  }

  protected send(side: Side): void {
    const id = side.outcomes.nextId;
    const length = this.pattern.write(side.stream, id, this.payload);
    side.outcomes.onSent(side.endpoint.sendPacket(this.payload, length, id));
    const ledger = side.victimOutcomes;
    if (ledger.nextId !== id)
      this.fail('victim in step', `victim ${side.name} at id ${ledger.nextId}, twin at ${id}`);
    ledger.onSent(side.victim.sendPacket(this.one, 1, id));
  }

  /** A datagram from the network reaches `side`: maybe an injection first, maybe a flipped bit. */
  protected arrive(side: Side, data: Uint8Array): void {
    const rng = this.rng;
    if (this.injecting && rng() < this.injectionChance) this.inject(side);
    this.stats.realDatagrams++;
    if (rng() < this.corruptionChance && data.length > 0) {
      const copy = side.scratch.subarray(0, data.length);
      copy.set(data);
      const bit = randomInt(rng, data.length * 8);
      copy[bit >>> 3] ^= 1 << (bit & 7);
      this.stats.corrupted++;
      this.feed(side, copy, CORRUPTED);
    } else {
      this.feed(side, data, CLEAN);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Feeding the readers
  // -------------------------------------------------------------------------------------------

  protected feed(side: Side, input: Uint8Array, kind: number): void {
    const report = this.report;
    report.iterations++;
    this.input = input;
    this.kind = kind;
    if (kind === RANDOM) report.randomInputs++;
    else if (kind === MUTATED || kind === FORGED || kind === CORRUPTED) report.mutatedInputs++;
    const length = input.length;

    // (a) The protected path: the CRC first, the endpoint only when it matches.
    if (length < CRC_BYTES) this.outcome(side.index, false, 'shorter than the CRC');
    else if (this.checkCrc && !this.crcMatches(input)) this.outcome(side.index, false, 'CRC32 mismatch');
    else this.measured(side.index, side.endpoint, side.deliveries, input, CRC_BYTES, length - CRC_BYTES);

    // (b) The victim: the same bytes, CRC stripped unchecked (whole when there is nothing after it).
    const reader = 2 + side.index;
    if (kind === BAD_ARGUMENTS) this.badArguments(side, input);
    else if (length > CRC_BYTES)
      this.measured(reader, side.victim, side, input, CRC_BYTES, length - CRC_BYTES);
    else this.measured(reader, side.victim, side, input, 0, length);
  }

  /**
   * One receivePacket call, with its counters checked: exactly one drop reason moves, or the
   * payload is accepted, or a fragment is stored; a fragment that completes a packet adds that
   * packet's own outcome. `accepts` counts process() accepting.
   */
  protected measured(
    reader: number,
    endpoint: ReliableEndpoint<number>,
    accepts: DeliveryLog | Side,
    data: unknown,
    offset: unknown,
    length: unknown,
  ): void {
    const c = endpoint.stats();
    const before = this.before;
    for (let k = 0; k < DROPS.length; k++) before[k] = c[DROPS[k]];
    before[DROPS.length] = c.fragmentsReceived;
    before[DROPS.length + 1] = c.packetsReceived;
    const acceptedBefore = accepts instanceof DeliveryLog ? accepts.delivered : accepts.victimProcessed;
    before[DROPS.length + 2] = acceptedBefore;
    try {
      endpoint.receivePacket(data as Uint8Array, offset as number, length as number);
    } catch (error) {
      throw new ReaderCrash(PACKET_READERS[reader], error);
    }
    const acceptedAfter = accepts instanceof DeliveryLog ? accepts.delivered : accepts.victimProcessed;
    let drops = 0;
    let reason = -1;
    let negative = false;
    for (let k = 0; k < DROPS.length; k++) {
      const moved = c[DROPS[k]] - before[k];
      if (moved < 0) negative = true;
      if (moved > 0 && reason < 0) reason = k;
      drops += moved;
    }
    const fragments = c.fragmentsReceived - before[DROPS.length];
    const received = c.packetsReceived - before[DROPS.length + 1];
    const accepted = acceptedAfter - acceptedBefore;
    const expected = 1 + (fragments === 1 ? received : 0);
    this.report.semanticChecks++;
    if (
      negative ||
      drops + accepted + fragments !== expected ||
      fragments < 0 ||
      fragments > 1 ||
      received < 0 ||
      received > 1 ||
      accepted < 0 ||
      accepted > 1
    ) {
      this.fail(
        'counters account for every input',
        `${PACKET_READERS[reader]}: drops moved ${drops} (first ${reason < 0 ? 'none' : DROPS[reason]}), accepted ${accepted}, fragments stored ${fragments}, packets received ${received}; expected ${expected} in all`,
      );
    }
    if (fragments === 1) {
      this.stats.fragmentsStored[reader]++;
      this.outcome(reader, true);
    } else if (accepted === 1) {
      this.stats.packetsAccepted[reader]++;
      this.outcome(reader, true);
    } else {
      this.outcome(reader, false, reason < 0 ? 'no counter moved' : DROPS[reason]);
    }
  }

  /** The victim called as an untyped caller might: every such call must count as one invalid input. */
  protected badArguments(side: Side, input: Uint8Array): void {
    this.stats.badArgumentCalls++;
    let data: unknown = input;
    let offset = 0;
    let length = 1;
    switch (randomInt(this.rng, 9)) {
      case 0:
        offset = -1;
        break;
      case 1:
        length = input.length + 1;
        break;
      case 2:
        offset = 0.5;
        break;
      case 3:
        length = Number.NaN;
        break;
      case 4:
        offset = input.length;
        length = 0;
        break;
      case 5:
        data = null;
        break;
      case 6:
        data = Array.from(input.subarray(0, 16));
        length = 4;
        break;
      case 7:
        data = new Uint16Array(8);
        length = 4;
        break;
      default:
        length = Number.POSITIVE_INFINITY;
    }
    this.measured(2 + side.index, side.victim, side, data, offset, length);
  }

  protected abstract inject(side: Side): void;
}
