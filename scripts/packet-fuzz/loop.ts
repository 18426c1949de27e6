/** The packet fuzz's loop: ticks, the run, the final checks and the stats. */

import { hex, ReaderCrash, runMeter } from '../fuzz-core.js';
import { PacketFuzzInputs } from './inputs.js';
import {
  CORRUPTED,
  FORGED,
  KIND_NAMES,
  MUTATED,
  PACKET_READERS,
  PACKET_TARGET,
  type PacketFuzzReport,
  type PacketFuzzStats,
  TICK_SECONDS,
} from './options.js';

/** One fuzz run; `run()` once. */
export class PacketFuzz extends PacketFuzzInputs {
  // -------------------------------------------------------------------------------------------
  // The loop
  // -------------------------------------------------------------------------------------------

  protected step(send: boolean): void {
    this.tick++;
    this.now = this.tick * TICK_SECONDS;
    const now = this.now;
    for (const side of this.sides) side.sim.update(now);
    for (const side of this.sides) {
      side.endpoint.update(now);
      side.victim.update(now);
    }
    for (const side of this.sides) while (side.sim.receive(side.receive, 4096) === 4096);
    if (send) {
      for (let k = 0; k < this.packetsPerTick; k++) for (const side of this.sides) this.send(side);
    }
    for (const side of this.sides) {
      for (const [k, endpoint] of [
        [side.index, side.endpoint],
        [2 + side.index, side.victim],
      ] as const) {
        const bytes = endpoint.reassemblyBytes;
        if (bytes > this.stats.peakReassemblyBytes[k]) this.stats.peakReassemblyBytes[k] = bytes;
        if (bytes > this.cap) {
          this.fail('reassembly memory under its cap', `${PACKET_READERS[k]}: ${bytes} bytes > ${this.cap}`);
        }
      }
    }
    this.report.semanticChecks += 4;
    if (send && this.tick % this.epochTicks === 0) {
      for (const side of this.sides) {
        this.endVictim(side);
        this.startVictim(side);
      }
    }
  }

  run(): Omit<PacketFuzzReport, 'stats'> {
    const options = this.options;
    const report = this.report;
    const meter = runMeter(report, options.datagrams, options);
    try {
      while (report.iterations < options.datagrams) {
        this.step(true);
        if ((this.tick & 15) === 0) meter.update(report.iterations);
      }
      // Drain: no more sends or injections; past every delivery delay and the ack timeout.
      this.injecting = false;
      const drainTicks = Math.ceil((this.config.ackTimeout + 0.5) / TICK_SECONDS);
      for (let i = 0; i < drainTicks; i++) this.step(false);
      this.finish();
    } catch (error) {
      const crash = error instanceof ReaderCrash ? error : new ReaderCrash('(target harness)', error);
      report.crash = {
        target: PACKET_TARGET,
        reader: crash.reader,
        seed: report.seed,
        iteration: Math.max(0, report.iterations - 1),
        mutated: this.kind === MUTATED || this.kind === FORGED || this.kind === CORRUPTED,
        inputHex: hex(this.input),
        error: `${crash.message}\n(input: ${KIND_NAMES[this.kind]}, tick ${this.tick})`,
      };
    }
    meter.finish();
    for (const side of this.sides) side.sim.close();
    return report;
  }

  protected finish(): void {
    const stats = this.stats;
    for (const side of this.sides) this.endVictim(side);
    const names = ['a->b', 'b->a'];
    for (const side of this.sides) {
      const peer = this.sides[1 - side.index];
      const lostButDelivered = side.outcomes.finish();
      const c = side.endpoint.stats();
      this.report.semanticChecks += 4;
      const expect = (what: string, got: number, want: number) => {
        if (got !== want)
          this.fail(
            'endpoint counters match the ledgers',
            `${side.name} ${what} is ${got}, expected ${want}`,
          );
      };
      expect('packetsSent', c.packetsSent, side.outcomes.sent);
      expect('packetsAcked', c.packetsAcked, side.outcomes.acked);
      expect('packetsLost', c.packetsLost, side.outcomes.lost);
      expect('acked + lost', side.outcomes.acked + side.outcomes.lost, side.outcomes.sent);
      stats.protectedSides.push({
        name: names[side.index],
        sent: side.outcomes.sent,
        delivered: peer.deliveries.delivered,
        acked: side.outcomes.acked,
        lost: side.outcomes.lost,
        lostButDelivered,
        falseAcks: side.outcomes.unbackedAcks,
        refused: peer.deliveries.refused,
        counters: { ...c },
      });
      stats.victims.push({
        name: `victim ${side.name}`,
        epochs: side.victimEpochs,
        sent: side.victimSent,
        acked: side.victimAcked,
        lost: side.victimLost,
        unbackedAcks: side.victimUnbacked,
        processed: side.victimProcessed,
        refused: side.victimRefused,
        emptyPayloads: side.victimEmpty,
        counters: side.victimCounters,
      });
      const link = side.sim.stats().outgoing;
      stats.linkOffered += link.offered;
      stats.linkLost += link.lost;
      stats.linkDuplicated += link.duplicated;
    }
  }

  get result(): PacketFuzzStats {
    return { ...this.stats, ticks: this.tick, simulatedSeconds: this.now };
  }
}
