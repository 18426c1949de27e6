/**
 * The packet fuzz's victims: fresh raw endpoints in step with their protected twins, their epochs
 * and payloads.
 */

import { ReliableEndpoint } from '../../src/packet/index.js';
import { OutcomeLedger } from '../packet-soak-core.js';
import { FILLER } from './options.js';
import { addCounters, type Side } from './parts.js';
import { PacketFuzzState } from './state.js';

export abstract class PacketFuzzVictims extends PacketFuzzState {
  // -------------------------------------------------------------------------------------------
  // Victims
  // -------------------------------------------------------------------------------------------

  /** A fresh victim for `side`, brought to its twin's next sequence by filler packets. */
  protected startVictim(side: Side): void {
    const peer = this.sides[1 - side.index];
    const ledger = new OutcomeLedger(
      `victim ${side.name} (epoch ${side.victimEpochs})`,
      (id) => peer.deliveries.isDelivered(id),
      this.violations,
      false,
      1024,
      side.outcomes.nextId,
    );
    const victim = new ReliableEndpoint<number>(
      {
        transmit: () => {},
        process: (sequence, data, offset, length) => this.victimProcess(side, sequence, data, offset, length),
        onAcked: (sequence, record) => {
          if (record !== FILLER) ledger.onAcked(sequence, record);
        },
        onLost: (sequence, record) => {
          if (record !== FILLER) ledger.onLost(sequence, record);
        },
      },
      { ...this.config, name: `victim ${side.name}` },
      this.now,
    );
    const target = side.endpoint.nextSequence;
    for (let i = 0; i < target; i++) victim.sendPacket(this.one, 1, FILLER);
    this.report.semanticChecks++;
    if (victim.nextSequence !== target)
      this.fail('victim in step', `victim ${side.name} at ${victim.nextSequence}, twin at ${target}`);
    side.victim = victim;
    side.victimOutcomes = ledger;
    side.victimEpochs++;
  }

  /** Ends the victim's epoch: past its ack timeout every packet must have exactly one outcome. */
  protected endVictim(side: Side): void {
    const victim = side.victim;
    const ledger = side.victimOutcomes;
    victim.update(this.now + this.config.ackTimeout + 1);
    ledger.finish();
    const c = victim.stats();
    this.report.semanticChecks += 2;
    if (c.packetsAcked + c.packetsLost !== c.packetsSent)
      this.fail(
        'every sent packet exactly one outcome',
        `victim ${side.name}: acked ${c.packetsAcked} + lost ${c.packetsLost} != sent ${c.packetsSent}`,
      );
    if (ledger.pending !== 0)
      this.fail('every sent packet exactly one outcome', `victim ${side.name}: ${ledger.pending} pending`);
    side.victimSent += ledger.sent;
    side.victimAcked += ledger.acked;
    side.victimLost += ledger.lost;
    side.victimUnbacked += ledger.unbackedAcks;
    addCounters(side.victimCounters, c);
  }

  protected victimProcess(
    side: Side,
    sequence: number,
    data: Uint8Array,
    offset: number,
    length: number,
  ): boolean {
    this.report.semanticChecks++;
    if (
      !(
        Number.isInteger(sequence) &&
        sequence >= 0 &&
        sequence <= 0xffff &&
        Number.isInteger(offset) &&
        Number.isInteger(length) &&
        offset >= 0 &&
        length >= 0 &&
        offset + length <= data.length &&
        length <= this.config.maxPacketSize
      )
    ) {
      this.fail(
        'process() is handed a sound payload view',
        `victim ${side.name}: sequence ${sequence}, offset ${offset}, length ${length} of a ${data.length}-byte buffer`,
      );
    }
    if (length === 0) side.victimEmpty++;
    // Refuse about one payload in sixteen, by content, so refusal is fuzzed too.
    const accept = length === 0 || (data[offset] & 15) !== 0;
    if (accept) side.victimProcessed++;
    else side.victimRefused++;
    return accept;
  }
}
