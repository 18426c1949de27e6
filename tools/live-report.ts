/**
 * What `npm start` prints: the table per bot that refreshes while they play, and the summary that
 * checks the session at the end (reliable messages, maps, mirrors, the predicted avatars) and
 * gives each bot's prediction, interpolation and input-channel figures.
 */

import type { MessageClient } from '../src/channels/index.js';
import { interpolationDelayTicks } from '../src/latency/index.js';
import type { UdpTransport } from '../src/node.js';
import type { Arena } from './live-arena.js';
import { STEP } from './live-arena.js';
import type { ArenaBot } from './live-bot.js';

export interface Tally {
  sent: number;
  received: number;
  /** The next reliable message number expected: reliable delivery is checked as it happens. */
  nextReliable: number;
  outOfOrder: number;
}
export const tally = (): Tally => ({ sent: 0, received: 0, nextReliable: 0, outOfOrder: 0 });

export interface LiveBot {
  client: MessageClient;
  arenaBot: ArenaBot;
  socket: UdpTransport;
  reliable: Tally;
  unreliable: Tally;
  sent: { chat: number; position: number; event: number };
  maps: { sent: number; received: number; corrupt: number; connectedTick: number };
  /** The server's starved takes for this bot when it settled (-1 before). */
  starvedAtSettle: number;
}

export interface LiveReport {
  bots: LiveBot[];
  arena: Arena;
  /** Per client index, what the server received on the reliable channel. */
  atServer: Tally[];
  conditions: { latency: number; jitter: number; loss: number; duplicates: number };
  seed: number;
  address: string;
  reliableChannel: number;
}

/** Per bot, the counters at the last refresh (rates are over the time since). */
const previous = new WeakMap<
  LiveBot,
  { time: number; bytesUp: number; bytesDown: number; inputBytes: number }
>();

const fixed = (v: number, digits: number) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
const signed = (v: number, digits: number) =>
  Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)}` : '-';
const percent = (part: number, whole: number) => (whole === 0 ? 0 : (100 * part) / whole);

/** Fiedler's rule for the bot's measured snapshot interval: three intervals, in ticks. */
function fiedler(bot: ArenaBot): number {
  return interpolationDelayTicks(bot.latency.delay.intervalTicks);
}

/** The mean size of the bot's corrections, cm (0 with none). */
function meanCorrectionCm(bot: ArenaBot): number {
  return bot.corrections === 0 ? 0 : (100 * bot.correctionSum) / bot.corrections;
}

const COLUMNS = [
  'bot',
  'rtt ms',
  'loss %',
  'kbps up/down',
  'in order',
  'maps',
  'ghosts',
  'sync err',
  'delay (3×)',
  'starved %',
  'mispredicted',
  'corr cm',
  'input B/s',
  'srv buf',
  'score',
];

/** The table's lines at `time` (seconds since the start). */
export function drawTable(r: LiveReport, time: number): string[] {
  const c = r.conditions;
  const rows: string[][] = [];
  for (const [i, bot] of r.bots.entries()) {
    if (!bot.client.connected) {
      rows.push([String(i), 'connecting…']);
      continue;
    }
    const s = bot.client.stats();
    const index = bot.client.client.clientIndex;
    const b = bot.arenaBot;
    const p = previous.get(bot) ?? { time: 0, bytesUp: 0, bytesDown: 0, inputBytes: 0 };
    const dt = time - p.time || 1;
    // Bandwidth from the bot's UDP socket over the last refresh (what left and arrived, netcode
    // datagrams whole), rather than the packet layer's figure, which averages half its 256-packet
    // window and so reads 0 for the first seconds.
    const udp = bot.socket.stats;
    const upKbps = ((udp.bytesSent - p.bytesUp) * 8) / 1000 / dt;
    const downKbps = ((udp.bytesReceived - p.bytesDown) * 8) / 1000 / dt;
    const inputRate = (b.sender.stats.inputBytes - p.inputBytes) / dt;
    previous.set(bot, {
      time,
      bytesUp: udp.bytesSent,
      bytesDown: udp.bytesReceived,
      inputBytes: b.sender.stats.inputBytes,
    });
    const inOrder =
      bot.reliable.outOfOrder === 0 && bot.maps.corrupt === 0 && (r.atServer[index]?.outOfOrder ?? 0) === 0;
    const receiving = bot.client.blockProgress(r.reliableChannel).receiving;
    const progress =
      receiving === null ? '' : ` ${Math.floor((100 * receiving.receivedBytes) / receiving.totalBytes)}%`;
    const delay = b.latency.delay.stats;
    const predicted = b.predictor.stats;
    rows.push([
      String(i),
      fixed(s.rtt, 1),
      fixed(s.packetLoss, 1),
      `${fixed(upKbps, 1)}/${fixed(downKbps, 1)}`,
      inOrder ? 'yes' : 'NO',
      `${bot.maps.received}/${bot.maps.sent}${progress}`,
      String(b.mirror.size),
      signed(b.syncError, 2),
      delay.frames === 0 ? '-' : `${fixed(delay.ticks, 1)} (${fixed(fiedler(b), 1)})`,
      fixed(percent(delay.starvedFrames, delay.frames), 1),
      `${predicted.mispredictions}/${predicted.reconciliations}`,
      fixed(meanCorrectionCm(b), 1),
      fixed(inputRate, 0),
      String(r.arena.inputs.stats(index)?.depth ?? '-'),
      String(b.avatar()?.value.score ?? '-'),
    ]);
  }
  const widths = COLUMNS.map((head, k) => Math.max(head.length, ...rows.map((row) => row[k]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells.length < COLUMNS.length
      ? `${cells[0].padStart(widths[0])}  ${cells.slice(1).join(' ')}`
      : cells.map((cell, k) => cell.padStart(widths[k])).join('  ');
  return [
    `ghostwire live: ${r.bots.length} bots ↔ server ${r.address} over UDP, link ${c.latency}±${c.jitter} ms, ${c.loss}% loss, ${c.duplicates}% duplicates (seed ${r.seed})  t=${time.toFixed(1)} s, server tick ${r.arena.clock.tick}`,
    line(COLUMNS),
    ...rows.map(line),
    'sync err: clock-sync estimate − the server tick (ticks); delay: interpolation delay (Fiedler 3 intervals), ticks; starved: frames whose render tick passed the newest snapshot; mispredicted/reconciled; corr: mean correction; srv buf: server input buffer depth, ticks',
  ];
}

/**
 * Whether a bot's predicted avatar equals the server's: once the bot stands still and the server
 * has consumed its first still input, both must hold the same quantized place. A prediction being
 * restarted (see ArenaBot.frame) waits for a snapshot that moves the avatar, which never comes
 * while it stands: the avatar is then shown from the mirror, and that must equal the server's.
 */
export function converged(r: LiveReport, bot: LiveBot): boolean {
  const b = bot.arenaBot;
  if (!bot.client.connected || b.stillFrom < 0) return false;
  const index = bot.client.client.clientIndex;
  if (r.arena.inputs.lastInputTick(index) < b.stillFrom) return false;
  const server = r.arena.avatar(index);
  const mine = b.latency.predicting ? b.predictor.state : b.restarts > 0 ? (b.avatar()?.value ?? null) : null;
  return server !== null && mine !== null && server.x === mine.x && server.y === mine.y;
}

/** Prints the summary at `time` (seconds since the start); returns whether every check passed. */
export function summarize(r: LiveReport, time: number): boolean {
  let ok = true;
  console.log('\nsummary');
  for (const [i, bot] of r.bots.entries()) {
    const index = bot.client.client.clientIndex;
    const up = r.atServer[index] ?? tally();
    const upOk = up.outOfOrder === 0 && up.received === bot.sent.chat;
    const downOk = bot.reliable.outOfOrder === 0 && bot.reliable.received === bot.reliable.sent;
    const mapsOk = bot.maps.corrupt === 0 && bot.maps.received === bot.maps.sent;
    const b = bot.arenaBot;
    const wrong = r.arena.mismatches(index, b.mirror);
    const same = converged(r, bot);
    ok &&= upOk && downOk && mapsOk && wrong === 0 && same && bot.client.connected;
    console.log(
      `  bot ${i}: reliable up ${up.received}/${bot.sent.chat} ${upOk ? 'all, in order' : 'MISSING OR OUT OF ORDER'}; reliable down ${bot.reliable.received}/${bot.reliable.sent} ${downOk ? 'all, in order' : 'MISSING OR OUT OF ORDER'}; maps ${bot.maps.received}/${bot.maps.sent} ${mapsOk ? 'intact' : 'MISSING OR CORRUPT'}; unreliable up ${bot.unreliable.received}/${bot.sent.position + bot.sent.event} (the rest lost or superseded, as unreliable may be); mirror ${b.mirror.size} ghosts ${wrong === 0 ? "equal to the server's" : `with ${wrong} DIFFERING FROM THE SERVER`}`,
    );
    const p = b.predictor.stats;
    const settled = b.settled
      ? `; ${p.mispredictions - b.mispredictionsAtSettle} after the first 2 s synced`
      : '; none counted after settling: synced under 2 s';
    const place = b.latency.predicting ? b.predictor.state : null;
    const avatar =
      place === null
        ? `prediction restarting, avatar shown from the mirror`
        : `predicted avatar (${place.x.toFixed(2)}, ${place.y.toFixed(2)})`;
    console.log(
      `    prediction: ${p.reconciliations} reconciliations, ${p.mispredictions} mispredicted (${fixed(percent(p.mispredictions, p.reconciliations), 1)}%${settled}), correction mean ${fixed(meanCorrectionCm(b), 1)} cm, max ${fixed(100 * p.maxCorrection, 1)} cm; last reconcile ${b.lastReconcileMatched ? 'matched' : 'corrected'}, ${b.restarts} restarts; ${avatar} ${same ? "equal to the server's" : 'DIFFERING FROM THE SERVER'}`,
    );
    const d = b.latency.delay.stats;
    console.log(
      `    interpolation: delay ${fixed(d.ticks, 1)} ticks (Fiedler's 3 intervals: ${fixed(fiedler(b), 1)}; jitter ${fixed(d.jitterTicks, 2)}, loss ${fixed(100 * d.lossRate, 1)}%), render tick past the newest snapshot in ${fixed(percent(d.starvedFrames, d.frames), 1)}% of ${d.frames} frames; ${fixed(percent(b.interpolated, b.samples), 1)}% of ${b.samples} orb samples between two states; clock sync |error| mean ${fixed(b.syncErrorSum / b.syncErrorCount, 2)}, max ${fixed(b.syncErrorMax, 2)} ticks`,
    );
    const sender = b.sender.stats;
    const buffer = r.arena.inputs.stats(index);
    const z = r.arena.zaps[index];
    const zaps =
      z === undefined || z.zaps === 0
        ? 'no zaps judged'
        : `zaps ${z.zaps}: ${fixed(percent(z.hits, z.zaps), 1)}% hit the orb rewound to what the bot showed (${fixed(percent(z.presentHits, z.zaps), 1)}% would hit it where it is now), aim error mean ${fixed((100 * z.errorSum) / z.zaps, 1)} cm, max ${fixed(100 * z.worst, 1)} cm, ${fixed(percent(z.exact, z.zaps), 1)}% within ${(100 * STEP).toFixed(1)} cm${z.blind > 0 ? `; ${z.blind} zaps before any render tick, not judged` : ''}`;
    console.log(
      `    input: ${fixed(sender.inputBytes / time, 0)} bytes/s up in ${sender.packets} packets, ${sender.corrections} time-dilation corrections; server buffer: ${buffer?.taken ?? 0} ticks taken, ${buffer?.starved ?? 0} starved (last input repeated; ${bot.starvedAtSettle < 0 ? '-' : (buffer?.starved ?? 0) - bot.starvedAtSettle} after the bot settled), ${buffer?.late ?? 0} inputs late; ${zaps}`,
    );
  }
  const arena = r.arena;
  console.log(
    `  arena: ${arena.world.size} entities on the server, ${arena.clock.tick} ticks at 60 Hz in ${time.toFixed(1)} s (${arena.clock.droppedTicks} dropped by the catch-up bound)`,
  );
  console.log(
    ok
      ? "every reliable message arrived exactly once and in order, both ways, every map intact, every bot's mirror equals the server's world near it, and every bot's predicted avatar equals the server's."
      : 'RELIABLE DELIVERY, REPLICATION OR PREDICTION FAILED',
  );
  return ok;
}
