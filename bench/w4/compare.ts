/**
 * The W4 arena side by side: ghostwire through its real stack (measure.ts) at 1,000 and 100
 * clients, and @colyseus/schema's StateView (colyseus.ts) at 100 clients on the same scene, as
 * one table with the targets (at 100 clients: ≥ 5× less CPU and ≥ 3× fewer bytes than
 * Colyseus; at 1,000: ≤ 50 ms CPU per tick and ≤ 32 KB server memory per connected client).
 *
 * What each side's figures cover. ghostwire: world.tick() + MessageServer.update (acks in,
 * relevancy, priority, delta encoding, packet writing, encryption); bytes are whole datagrams
 * (netcode header, MAC, acks, section). Colyseus: mutate + interest + views + encode (the game's
 * writes into the change trees, the same interest grid, view.add/remove, encode + encodeView per
 * client), no transport or encryption; bytes are the schema patch alone (no protocol byte,
 * WebSocket frame, TCP or TLS), which favours Colyseus.
 */
import type { ColyseusW4Result } from './colyseus.js';
import type { W4Result } from './measure.js';

const HZ = 20;
const UDP_IPV4 = 28;

export function describeSideBySide(big: W4Result, small: W4Result, colyseus: ColyseusW4Result): string[] {
  const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
  const kb = (n: number) => `${f(n / 1024)} KB`;
  const kbit = (bytes: number) => (bytes * 8 * HZ) / 1000;
  const rows: [string, string, string, string][] = [
    [
      'CPU ms per tick (median)',
      f(big.serverCpuMs),
      f(small.serverCpuMs),
      `${f(colyseus.cpuMsPerTick)} (${f(colyseus.cpuMsPerTickWithoutViews)} without views)`,
    ],
    [
      "  with the game's writes (world.set)",
      f(big.serverCpuMs + big.writeCpuMs),
      f(small.serverCpuMs + small.writeCpuMs),
      `${f(colyseus.cpuMsPerTick)} (mutate ${f(colyseus.phases.mutate.cpuMs)} in it)`,
    ],
    [
      'bytes per client per tick',
      f(big.bytesPerClientPerTick),
      f(small.bytesPerClientPerTick),
      f(colyseus.bytesPerClientPerTick),
    ],
    [
      '  with 28 B IPv4+UDP per datagram',
      f(big.wireBytesPerClientPerTick),
      f(small.wireBytesPerClientPerTick),
      f(colyseus.udpBytesPerClientPerTick),
    ],
    [
      'kbit/s per client / with 28 B',
      `${f(big.kbpsPayload)} / ${f(big.kbpsWire)}`,
      `${f(small.kbpsPayload)} / ${f(small.kbpsWire)}`,
      `${f(colyseus.kbitPerClient)} / ${f(kbit(colyseus.bytesPerClientPerTick + UDP_IPV4))}`,
    ],
    [
      'memory per connected client',
      kb(big.serverBytesPerClient),
      kb(small.serverBytesPerClient),
      kb(colyseus.bytesPerClient),
    ],
    [
      'heap growth over the measured ticks',
      kb(big.heapGrowthBytes),
      kb(small.heapGrowthBytes),
      kb(colyseus.heapGrowthBytes),
    ],
    [
      'entity updates per client per tick',
      f(big.updatesPerClientPerTick),
      f(small.updatesPerClientPerTick),
      `${f(colyseus.relevantPerClient)} (all relevant, every tick)`,
    ],
    [
      'bytes per entity update (with 28 B)',
      f(big.wireBytesPerClientPerTick / big.updatesPerClientPerTick),
      f(small.wireBytesPerClientPerTick / small.updatesPerClientPerTick),
      f(colyseus.udpBytesPerClientPerTick / colyseus.relevantPerClient),
    ],
    [
      'relevant entities per client',
      f(big.meanRelevant),
      f(small.meanRelevant),
      f(colyseus.relevantPerClient),
    ],
  ];
  const widths = [36, 16, 16, 0];
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  // Colyseus's figure includes the game's writes into its change trees (mutate): ghostwire's too.
  const cpuRatio = colyseus.cpuMsPerTick / (small.serverCpuMs + small.writeCpuMs);
  const byteRatio = colyseus.bytesPerClientPerTick / small.bytesPerClientPerTick;
  const wireRatio = colyseus.udpBytesPerClientPerTick / small.wireBytesPerClientPerTick;
  const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const perUpdate =
    colyseus.udpBytesPerClientPerTick /
    colyseus.relevantPerClient /
    (small.wireBytesPerClientPerTick / small.updatesPerClientPerTick);
  return [
    'W4 side by side (medians; the machine is shared, CPU figures are noisy):',
    line(['', `ghostwire ${big.clients}`, `ghostwire ${small.clients}`, `  Colyseus ${colyseus.clients}`]),
    ...rows.map(([name, a, b, c]) => line([name, a, b, `  ${c}`])),
    `  at ${small.clients} clients: ${f(cpuRatio)}× less CPU than Colyseus StateView (target ≥ 5×: ${met(cpuRatio >= 5)}), ` +
      `${f(byteRatio)}× fewer bytes (${f(wireRatio)}× with 28 B per datagram; target ≥ 3×: ${met(byteRatio >= 3)}); ` +
      `ghostwire's default budget sends ${f((100 * small.updatesPerClientPerTick) / small.meanRelevant, 0)}% of the relevant ` +
      `entities a tick (nearest most often), Colyseus all: per entity update ${f(perUpdate)}× fewer bytes with 28 B`,
    `  at ${big.clients} clients: ${f(big.serverCpuMs)} ms CPU per tick (target ≤ 50: ${met(big.serverCpuMs <= 50)}), ` +
      `${kb(big.serverBytesPerClient)} per connected client (target ≤ 32 KB: ${met(big.serverBytesPerClient <= 32 * 1024)})`,
    '  ghostwire: world.tick + MessageServer.update (+ world.set for the ratio), whole encrypted datagrams; Colyseus: mutate + interest + ' +
      'views + encode, schema bytes alone (no protocol byte, WebSocket, TCP or TLS), no encryption',
  ];
}
