/**
 * The netcode fuzz, shared by `npm run fuzz` (target `netcode` in scripts/fuzz.ts) and the short
 * seeded run in `npm test` (test/connection/netcode-fuzz.test.ts).
 *
 * A netcode Server (4 slots) on a MemoryNetwork, with:
 * - the real client R, connected throughout, exchanging payloads with the server both ways every
 *   tick (payload bytes are a function of (seed, stream, id), the id inside, so each delivery is
 *   checked byte for byte and at most once);
 * - three companion clients that keep connecting (fresh token, fresh address), exchanging payloads
 *   and leaving (disconnecting, kicked, going silent until timed out, or denied when the server is
 *   full), and 16 half-open handshakes: fresh connection requests (valid, timeout -1, wrong server,
 *   wrong protocol, expired, wrong key) from attacker addresses that never answer their challenge.
 * Every datagram any of them sends is captured by type (request, denied, challenge, response,
 * keep-alive, payload, disconnect; R's own denied comes from a prologue where it first meets a full
 * server). Between the real datagrams, `datagrams` inputs are injected into the server's and R's
 * receive queues: random bytes (some framed as a packet of a type), and mutations of captures (bit
 * flips, byte overwrites, truncation, extension, prefix type and sequence-size tweaks, sequence
 * tweaks, MAC and request-field changes, header/body splices), exact replays, and replays of a
 * whole captured handshake (request, then response), each sent from the real client's or server's
 * own address, a companion's, an attacker's (which the server holds keys for) or a random spoofed
 * one. Each input is accounted for at its reader: the server's counters (exactly one moves for a
 * refused datagram) or the client's read verdict.
 *
 * Checks: no exception escapes Server.update or Client.update; R stays connected and every real
 * datagram between R and the server is accepted; every payload either side receives is intact, was
 * sent, arrives once, and (the link being lossless) all arrive; no random or mutated input
 * authenticates, no replayed keep-alive, payload or disconnect is accepted; the server connects
 * only a real client that has just sent its response from its own address (connectedClients is
 * the real count); the server's pending handshakes and used tokens stay within their bounds and
 * every pending handshake can expire; every companion joins (floods of valid tokens never lock the
 * server); no queue overflows. The heap is measured after a GC at 10% and at the end.
 *
 * Everything is a function of the seed (token keys and nonces, the server's challenge key, every
 * choice): a run is replayed by its seed and input count.
 *
 * The code is split by concern under scripts/netcode-fuzz/: options.ts (options, constants, names),
 * parts.ts (payload patterns, delivery logs, the capturing transport, report types), state.ts,
 * world.ts, accounting.ts, inputs.ts and loop.ts (the run, one class layer each) and report.ts.
 */

import { NetcodeFuzz } from './netcode-fuzz/loop.js';
import type { NetcodeFuzzOptions } from './netcode-fuzz/options.js';
import type { NetcodeFuzzReport } from './netcode-fuzz/parts.js';

export {
  NETCODE_CHECKS,
  NETCODE_FUZZ_DEFAULTS,
  NETCODE_KNOWN_ISSUES,
  NETCODE_READERS,
  NETCODE_TARGET,
  type NetcodeFuzzOptions,
  PACKET_NAMES,
} from './netcode-fuzz/options.js';
export type { NetcodeFuzzReport, NetcodeFuzzStats } from './netcode-fuzz/parts.js';
export { formatNetcodeDetails } from './netcode-fuzz/report.js';

/** Runs the netcode fuzz. Never throws for a finding: crashes and failed checks are in the report. */
export function runNetcodeFuzz(options: NetcodeFuzzOptions): NetcodeFuzzReport {
  if (!(Number.isSafeInteger(options.datagrams) && options.datagrams >= 1))
    throw new RangeError('datagrams must be a positive integer');
  const fuzz = new NetcodeFuzz(options);
  const report = fuzz.run();
  return { ...report, stats: fuzz.result };
}
