/**
 * The packet-layer fuzz, shared by `npm run fuzz` (target `packet` in scripts/fuzz.ts) and the
 * short seeded run in `npm test` (test/packet/packet-fuzz.test.ts).
 *
 * Two ReliableEndpoints, A and B, talk over a MemoryNetwork wrapped in seeded NetworkSimulators
 * (10% loss, 5% duplicates, some latency, jitter and reordering). On arrival, 20% of datagrams get
 * one bit flipped, and datagrams are injected between the real ones: random bytes, mutations of
 * captured real datagrams (bit flips, truncation, extension, overwrites, splices), header field
 * tweaks (sequence, ack, ack bits, reserved and fragment bits), fragments with wild ids, counts and
 * sizes, well-formed forged packets, and exact replays. Every datagram, real or not, goes to two
 * readers on the receiving side:
 *
 * (a) the protected path: a CRC32 over (protocol id as 8 bytes LE || packet), prepended as 4 bytes
 *     LE (the envelope's layout), checked below the endpoint. Property: acks only for packets the
 *     peer really accepted, every payload delivered intact and at most once, every sent packet
 *     exactly one outcome. (Random bytes pass a CRC32 with odds 2^-32 per datagram: about 1e-4
 *     per default run. Single-bit flips never do.)
 * (b) a victim endpoint fed the same bytes raw, CRC stripped but not checked (and sometimes
 *     called with nonsense arguments). Property: receivePacket never throws; every call moves
 *     exactly the counters it should (one drop reason, or a packet accepted, or a fragment stored,
 *     plus the reassembled packet's own outcome); reassembly memory stays under its documented cap;
 *     every packet the victim sends still gets exactly one outcome. Victims send in step with their
 *     protected twin (same sequences), so the acks corruption forges at a victim are counted: the
 *     reason the CRC is there. A victim is replaced every `victimEpochTicks` ticks, since a forged
 *     far-ahead sequence leaves it rejecting the real traffic as stale for a long while.
 *
 * Everything is a function of the seed: a run is replayed by its seed and datagram count.
 *
 * The code is split by concern under scripts/packet-fuzz/: options.ts (options, report types,
 * defaults, constants), parts.ts (the recording violations, a side of the link, random helpers),
 * state.ts, victims.ts, wire.ts, inputs.ts and loop.ts (the run, one class layer each) and report.ts.
 */

import { PacketFuzz } from './packet-fuzz/loop.js';
import type { PacketFuzzOptions, PacketFuzzReport } from './packet-fuzz/options.js';

export {
  PACKET_FUZZ_DEFAULTS,
  PACKET_READERS,
  PACKET_TARGET,
  type PacketFuzzOptions,
  type PacketFuzzReport,
  type PacketFuzzStats,
  type ProtectedStats,
  type VictimStats,
} from './packet-fuzz/options.js';
export { fillRandom } from './packet-fuzz/parts.js';
export { formatPacketDetails } from './packet-fuzz/report.js';

/** Runs the packet fuzz. Never throws for a finding: crashes and failed checks are in the report. */
export function runPacketFuzz(options: PacketFuzzOptions): PacketFuzzReport {
  if (!(Number.isSafeInteger(options.datagrams) && options.datagrams >= 1))
    throw new RangeError('datagrams must be a positive integer');
  const fuzz = new PacketFuzz(options);
  const report = fuzz.run();
  return { ...report, stats: fuzz.result };
}
