/**
 * `npm start`: a live session. A MessageServer and several bot MessageClients talk over real UDP
 * on 127.0.0.1, each bot's link shaped by the network simulator; a table per client refreshes
 * while they run, and a summary at the end checks that every reliable message arrived, once and
 * in order, both ways. The server also sends each bot a 48 KiB block (a "map") on connecting and
 * every 5 s after, on the reliable channel; each one's bytes are checked on arrival. And it runs a
 * replicated arena (tools/live-arena.ts, tools/live-bot.ts) through the latency layer: the server
 * steps at a fixed 60 Hz; each bot's avatar moves only by the bot's inputs (input channel), which
 * the bot predicts and reconciles (LatencyClient); the orbs each bot mirrors are interpolated at
 * its adaptive render tick; its zaps at orbs are judged on the server against the orbs rewound to
 * what it showed (lag compensation). The table shows clock-sync error, interpolation delay,
 * starvation, mispredictions and corrections, input bytes and the server's input buffer; at the
 * end each bot's mirror is checked against the server's world, and its predicted avatar against
 * the server's avatar once both stand still.
 *
 * Runs as `npm start -- --headless` (plain `npm start` serves the browser demo: tools/start.ts).
 * Flags: `npm start -- --headless --help`.
 */

import { commandLine, flagValue, rangeFlag, resolveSeed } from '../scripts/cli.js';
import { Block, defineMessage, MessageClient, MessageFactory, MessageServer } from '../src/channels/index.js';
import { generateConnectToken } from '../src/connection/index.js';
import { t, UdpTransport } from '../src/node.js';
import { NetworkSimulator } from '../src/transport/index.js';
import { Arena } from './live-arena.js';
import { ArenaBot } from './live-bot.js';
import { converged, drawTable, summarize, type Tally, tally } from './live-report.js';

const args = commandLine({
  name: 'npm start -- --headless',
  description:
    'A live session: a server and bots over real UDP on 127.0.0.1, each link shaped by the network simulator;\nbots predict their avatars and interpolate the orbs they see; a table per bot refreshes while they play,\nthen a summary checks every reliable message, map and mirror, and each predicted avatar against the server.',
  flags: {
    clients: { arg: 'N', help: 'bots, 1 to 64 (default 4)' },
    seconds: { arg: 'S', help: 'how long to play; 0 runs until Ctrl-C (default 10)' },
    latency: { arg: 'MS', help: 'one-way latency each direction (default 50)' },
    jitter: { arg: 'MS', help: 'latency jitter, ± (default 10)' },
    loss: { arg: 'PERCENT', help: 'datagram loss each direction (default 2)' },
    duplicates: { arg: 'PERCENT', help: 'duplicated datagrams each direction (default 1)' },
    seed: { arg: 'N', help: "the simulator's uint32 seed (default: GW_SEED, else fresh)" },
  },
});
const CLIENTS = flagValue(() => Math.floor(rangeFlag('--clients', args.clients, 4, 1, 64)));
const SECONDS = flagValue(() => rangeFlag('--seconds', args.seconds, 10, 0, 1e9));
const conditions = flagValue(() => ({
  latency: rangeFlag('--latency', args.latency, 50, 0, 60_000),
  jitter: rangeFlag('--jitter', args.jitter, 10, 0, 60_000),
  loss: rangeFlag('--loss', args.loss, 2, 0, 100),
  duplicates: rangeFlag('--duplicates', args.duplicates, 1, 0, 100),
}));
const SEED = flagValue(() => resolveSeed(args.seed));

// The game's messages and channels, the same on both ends.
const Chat = defineMessage('chat', t.object({ n: t.uint32(), text: t.string(64) }));
const Position = defineMessage(
  'position',
  t.object({ n: t.uint32(), x: t.float(-512, 512, 0.01), z: t.float(-512, 512, 0.01) }),
);
const Event = defineMessage(
  'event',
  t.object({ n: t.uint32(), kind: t.enum(['hit', 'miss', 'pickup'] as const) }),
);
const factory = new MessageFactory([Chat, Position, Event]);
const RELIABLE = 0;
const POSITIONS = 1;
const EVENTS = 2;
// Channel 3 is the arena's replication channel (its ghost section on the server, a mirror on each
// bot), channel 4 its input channel (an InputReceiver on the server, an InputSender on each bot).
const channels = [
  { kind: 'reliable-ordered' as const, priority: 1 },
  { kind: 'unreliable-sequenced' as const, priority: 2 },
  { kind: 'unreliable-unordered' as const },
];

const PROTOCOL_ID = 0x6768_6f73_7477_6972n;
const MAP_BYTES = 48 * 1024;
const MAP_EVERY_TICKS = 300;

/** Map `k` for bot `i`: a function of both, so the bot can check every byte it receives. */
function mapBytes(i: number, k: number): Uint8Array {
  const bytes = new Uint8Array(MAP_BYTES);
  for (let b = 0; b < bytes.length; b++) bytes[b] = (b * 31 + i * 7 + k * 13) & 0xff;
  return bytes;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
const privateKey = new Uint8Array(32);
globalThis.crypto.getRandomValues(privateKey);

const serverSocket = await UdpTransport.open({ address: '127.0.0.1:0', receiveBufferSize: 4 << 20 });
const atServer: Tally[] = [];
const arena = new Arena(SEED);
const server = new MessageServer({
  protocolId: PROTOCOL_ID,
  privateKey,
  publicAddresses: [serverSocket.localAddress],
  transports: [serverSocket],
  maxClients: 64,
  factory,
  channels: [...channels, arena.replication.channel, arena.inputs.channel],
});

const bots = await Promise.all(
  Array.from({ length: CLIENTS }, async (_, i) => {
    const socket = await UdpTransport.open({ address: '127.0.0.1:0', receiveBufferSize: 4 << 20 });
    const link = new NetworkSimulator(socket, {
      seed: (SEED + i) >>> 0,
      outgoing: conditions,
      incoming: conditions,
    });
    const arenaBot = new ArenaBot(i, () => client.client.endpoint?.rttSample ?? 0);
    const client: MessageClient = new MessageClient({
      transport: link,
      factory,
      channels: [...channels, arenaBot.mirror.channel, arenaBot.sender.channel],
    });
    const token = generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey,
      clientId: BigInt(1000 + i),
      serverAddresses: [serverSocket.localAddress],
      now: Math.floor(Date.now() / 1000),
    });
    return {
      client,
      arenaBot,
      socket,
      token,
      reliable: tally(),
      unreliable: tally(),
      sent: { chat: 0, position: 0, event: 0 },
      maps: { sent: 0, received: 0, corrupt: 0, connectedTick: -1 },
      starvedAtSettle: -1,
    };
  }),
);

const start = performance.now();
const now = () => (performance.now() - start) / 1000;
for (const bot of bots) bot.client.connect(bot.token, now());

let ticks = 0;
let lastDraw = 0;
let drawnLines = 0;
const tty = process.stdout.isTTY === true;
const report = {
  bots,
  arena,
  atServer,
  conditions,
  seed: SEED,
  address: serverSocket.localAddress,
  reliableChannel: RELIABLE,
};

function checkReliable(t: Tally, n: number): void {
  if (n !== t.nextReliable) t.outOfOrder++;
  t.nextReliable = n + 1;
  t.received++;
}

/** Everything the bot got on the reliable channel: the server's numbered messages and its maps. */
function receiveAtBot(bot: (typeof bots)[number], i: number): void {
  for (let m = bot.client.receive(RELIABLE); m !== null; m = bot.client.receive(RELIABLE)) {
    if (m.is(Block)) {
      if (!sameBytes(m.value, mapBytes(i, bot.maps.received))) bot.maps.corrupt++;
      bot.maps.received++;
    } else if (m.is(Chat)) checkReliable(bot.reliable, m.value.n); // the server sends chat and maps only
  }
}

const sendAll = (): void => server.update(now());

/**
 * One frame of the event loop: the server runs the ticks due on its clock and sends, each bot
 * receives, predicts and samples (its LatencyClient), and while `playing` the bots and the server
 * send their messages and maps; when draining, only what is in flight moves (the avatars walk
 * their last inputs out, the orbs rest).
 */
function frame(time: number, playing: boolean): void {
  // A packet to every bot after each server tick, so that every tick's state goes out (two ticks
  // in one frame would otherwise send only the second's, and rewinds would see states the bots never had).
  arena.advance(time, sendAll);
  for (const [i, bot] of bots.entries()) {
    bot.client.update(time);
    if (!bot.client.connected) continue;
    const index = bot.client.client.clientIndex;
    atServer[index] ??= tally();
    arena.avatarOf(index, i);
    bot.arenaBot.frame(time, arena.clock.position);
    if (bot.starvedAtSettle < 0 && bot.arenaBot.settled)
      bot.starvedAtSettle = arena.inputs.stats(index)?.starved ?? 0;
    if (playing) play(bot, i, index, time);
    receiveAtBot(bot, i);
    for (let m = server.receive(index, RELIABLE); m !== null; m = server.receive(index, RELIABLE))
      checkReliable(atServer[index], (m.value as { n: number }).n);
    if (!playing) continue;
    for (let m = server.receive(index, POSITIONS); m !== null; m = server.receive(index, POSITIONS))
      bot.unreliable.received++;
    for (let m = server.receive(index, EVENTS); m !== null; m = server.receive(index, EVENTS))
      bot.unreliable.received++;
  }
}

/** The messages of a frame in play, counted by frames (`ticks`). */
function play(bot: (typeof bots)[number], i: number, index: number, time: number): void {
  // Bots: a reliable chat message 10 times a second, positions every frame, an event now and then.
  if (ticks % 6 === i % 6) bot.client.send(RELIABLE, Chat, { n: bot.sent.chat++, text: `bot ${i} says hi` });
  bot.client.send(POSITIONS, Position, {
    n: bot.sent.position++,
    x: Math.sin(time + i) * 100,
    z: Math.cos(time) * 100,
  });
  if (ticks % 20 === 0) bot.client.send(EVENTS, Event, { n: bot.sent.event++, kind: 'pickup' });
  // The server answers each bot on the reliable channel 5 times a second, and sends it a map on
  // connecting and every 5 s after.
  if (ticks % 12 === i % 12)
    server.send(index, RELIABLE, Chat, { n: bot.reliable.sent++, text: 'server state' });
  if (bot.maps.connectedTick < 0) bot.maps.connectedTick = ticks;
  if ((ticks - bot.maps.connectedTick) % MAP_EVERY_TICKS === 0)
    server.sendBlock(index, RELIABLE, mapBytes(i, bot.maps.sent++));
}

function tick(): void {
  const time = now();
  ticks++;
  frame(time, true);
  if (time - lastDraw >= 0.5) {
    draw(time);
    lastDraw = time;
  }
}

function draw(time: number): void {
  const lines = drawTable(report, time);
  if (tty) {
    // Redraw in place: back up over the previous table, erase each line's tail.
    if (drawnLines > 0) process.stdout.write(`\x1b[${drawnLines}A`);
    process.stdout.write(`${lines.map((l) => `${l}\x1b[K`).join('\n')}\n`);
  } else if (Math.round(time * 2) % 4 === 0) {
    process.stdout.write(`${lines.join('\n')}\n`); // a log: a table every two seconds
  }
  drawnLines = lines.length;
}

// The frame loop; the server's TickClock decides how many 60 Hz ticks each frame runs.
const timer = setInterval(tick, 1000 / 60);
let stopping = false;

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(timer);
  // Drain without new traffic: the bots stand still (their inputs say so), the orbs rest, and the
  // last reliable messages and maps arrive; until all are in, every mirror equals the world and
  // every predicted avatar the server's, or for at most 10 s plus a few round trips (a lost
  // reliable message is never given up on, but the session ends).
  arena.frozen = true;
  for (const bot of bots) bot.arenaBot.still = true;
  const drainUntil = now() + 10 + (4 * (conditions.latency + conditions.jitter)) / 1000;
  const allIn = () =>
    bots.every((bot) => {
      const up = bot.client.connected ? atServer[bot.client.client.clientIndex] : undefined;
      return (
        bot.maps.received === bot.maps.sent &&
        bot.reliable.received === bot.reliable.sent &&
        (up?.received ?? 0) === bot.sent.chat &&
        (!bot.client.connected ||
          (arena.mismatches(bot.client.client.clientIndex, bot.arenaBot.mirror) === 0 &&
            converged(report, bot)))
      );
    });
  while (now() < drainUntil && !allIn()) {
    frame(now(), false);
    await new Promise((resolve) => setTimeout(resolve, 1000 / 60));
  }
  const ok = summarize(report, now());
  for (const bot of bots) bot.client.disconnect();
  server.update(now());
  serverSocket.close();
  for (const bot of bots) bot.socket.close();
  process.exitCode = ok ? 0 : 1;
}

process.on('SIGINT', () => void stop());
if (SECONDS > 0) setTimeout(() => void stop(), SECONDS * 1000);
