/** The packet fuzz report's target-specific lines. */

import { int, pct } from '../cli.js';
import { PACKET_READERS, type PacketFuzzReport } from './options.js';

/** The target-specific lines of the report (traffic, properties, victims, memory). */
export function formatPacketDetails(report: PacketFuzzReport): string[] {
  const s = report.stats;
  const lines: string[] = [];
  const injected = s.injectedRandom + s.injectedMutated + s.injectedForged + s.injectedReplays;
  lines.push(
    `  traffic: ${int(s.ticks)} ticks (${s.simulatedSeconds.toFixed(0)} s simulated); link datagrams ${int(s.linkOffered)}, lost ${int(s.linkLost)} (${pct(s.linkLost, s.linkOffered)}), duplicated ${int(s.linkDuplicated)}; arrived ${int(s.realDatagrams)}, ${int(s.corrupted)} with a bit flipped (${pct(s.corrupted, s.realDatagrams)})`,
  );
  lines.push(
    `  injected ${int(injected + s.badArgumentCalls)}: random ${int(s.injectedRandom)}, mutated ${int(s.injectedMutated)}, forged headers/fragments ${int(s.injectedForged)}, exact replays ${int(s.injectedReplays)}, nonsense-argument calls ${int(s.badArgumentCalls)}`,
  );
  for (const p of s.protectedSides) {
    lines.push(
      `  protected ${p.name}: sent ${int(p.sent)}, delivered intact ${int(p.delivered)}, acked ${int(p.acked)}, lost ${int(p.lost)} (${int(p.lostButDelivered)} delivered, ack lost), refused ${int(p.refused)}; false acks ${int(p.falseAcks)}; outcomes ${int(p.acked + p.lost)}/${int(p.sent)}`,
    );
  }
  for (const v of s.victims) {
    lines.push(
      `  ${v.name}: ${v.epochs} epochs, sent ${int(v.sent)}, acked ${int(v.acked)} (${int(v.unbackedAcks)} for packets the peer never accepted: forged by corruption), lost ${int(v.lost)}; payloads processed ${int(v.processed)} (${int(v.emptyPayloads)} empty), refused ${int(v.refused)}`,
    );
  }
  lines.push(
    `  reassembly peak bytes ${s.peakReassemblyBytes.map((b, k) => `${PACKET_READERS[k]} ${int(b)}`).join(', ')} (cap ${int(s.reassemblyCap)} each)`,
  );
  return lines;
}
