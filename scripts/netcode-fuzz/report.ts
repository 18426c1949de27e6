/** The netcode fuzz report's target-specific lines. */

import type { ServerCounters } from '../../src/connection/server.js';
import { int, pct } from '../cli.js';
import { HALF_OPEN_VARIANTS, KIND_NAMES, PACKET_NAMES } from './options.js';
import { COMPANION_END_NAMES, type NetcodeFuzzReport } from './parts.js';

/** The target-specific lines of the report (traffic, inputs, counters, checks, memory). */
export function formatNetcodeDetails(report: NetcodeFuzzReport): string[] {
  const s = report.stats;
  const lines: string[] = [];
  lines.push(
    `  traffic: ${int(s.ticks)} ticks (${s.simulatedSeconds.toFixed(0)} s simulated); real datagrams read: ${int(s.realToServer)} by the server, ${int(s.realToClient)} by the real client; half-open requests ${HALF_OPEN_VARIANTS.map((v, k) => `${v} ${int(s.halfOpen[k])}`).join(', ')}`,
  );
  lines.push(
    `  real client: ${s.realConnectedThroughout ? 'connected throughout' : 'LOST ITS CONNECTION'}; payloads to the server ${int(s.realUp.delivered)}/${int(s.realUp.sent)} received intact, to the client ${int(s.realDown.delivered)}/${int(s.realDown.sent)}`,
  );
  lines.push(
    `  companions: ${int(s.companionConnections)} connection attempts, ${int(s.companionConnects)} connected; ended ${COMPANION_END_NAMES.map((n, k) => `${n} ${int(s.companionEnds[k])}`).join(', ')}`,
  );
  lines.push(
    `  injected ${int(report.iterations)}: ${KIND_NAMES.map((n, k) => `${n} ${int(s.byKind[k])}`).join(', ')} (${int(s.handshakeReplays)} whole handshakes); to the server ${int(report.readerInputs[0] + report.readerInputs[1])} (${pct(report.readerInputs[0], report.readerInputs[0] + report.readerInputs[1])} from a real client's address), to the client ${int(report.readerInputs[2] + report.readerInputs[3])} (${pct(report.readerInputs[2], report.readerInputs[2] + report.readerInputs[3])} from the server's)`,
  );
  lines.push(`  operations: ${s.byOp.map(([name, count]) => `${name} ${int(count)}`).join('; ')}`);
  lines.push(
    `  bases (captured / mutated or replayed): ${PACKET_NAMES.map((n, k) => `${n} ${int(s.captured[k])}/${int(s.byBaseType[k])}`).join(', ')}`,
  );
  const c = s.serverCounters;
  lines.push(
    `  server counters: ${(Object.keys(c) as (keyof ServerCounters)[]).map((k) => `${k} ${int(c[k])}`).join(', ')}`,
  );
  lines.push(
    `  server: ${int(s.realConnects)} connects after a real handshake, ${int(s.ghostConnects)} without; pending handshakes peak ${s.peakPending}/${s.maxPending} (never expiring: peak ${s.peakNeverExpiring}), used tokens peak ${s.peakTokensUsed}/${s.maxTokensUsed}; receive queues peak ${int(s.peakQueueBytes)} bytes, ${int(s.queueDrops)} drops`,
  );
  return lines;
}
