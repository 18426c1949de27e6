/**
 * `npm start`: a live session. A MessageServer and several bot MessageClients talk over real UDP
 * on 127.0.0.1, each bot's link shaped by the network simulator; a table per client refreshes
 * while they run, and a summary at the end checks that every reliable message arrived, once and
 * in order, both ways. The server also sends each bot a 48 KiB block (a "map") on connecting and
 * every 5 s after, on the reliable channel; each one's bytes are checked on arrival. And it runs a
 * replicated arena (tools/live-arena.ts): wandering orbs and an avatar per bot, which the bot
 * steers by command; each bot mirrors what is near its avatar, checked against the server at the end.
 *
 * Flags: `npm start -- --help`.
 */

import { commandLine, flagValue, rangeFlag, resolveSeed } from '../scripts/cli.js';
import {
  Block,
  defineMessage,
  generateConnectToken,
  MessageClient,
  MessageFactory,
  MessageServer,
  NetworkSimulator,
  sendCommand,
  t,
  UdpTransport,
} from '../src/node.js';
import { Arena, ArenaBot, Steer } from './live-arena.js';

const args = commandLine({
  name: 'npm start --',
  description:
    'A live session: a server and bots over real UDP on 127.0.0.1, each link shaped by the network simulator;\na table per bot refreshes while they play, then a summary checks every reliable message and map.',
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
const factory = new MessageFactory([Chat, Position, Event, Steer]);
const RELIABLE = 0;
const POSITIONS = 1;
const EVENTS = 2;
// Channel 3 is the arena's replication channel: its ghost section on the server, a mirror on each bot.
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

interface Tally {
  sent: number;
  received: number;
  /** The next reliable message number expected: reliable delivery is checked as it happens. */
  nextReliable: number;
  outOfOrder: number;
}
const tally = (): Tally => ({ sent: 0, received: 0, nextReliable: 0, outOfOrder: 0 });

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
  channels: [...channels, arena.replication.channel],
});

const bots = await Promise.all(
  Array.from({ length: CLIENTS }, async (_, i) => {
    const socket = await UdpTransport.open({ address: '127.0.0.1:0', receiveBufferSize: 4 << 20 });
    const link = new NetworkSimulator(socket, {
      seed: (SEED + i) >>> 0,
      outgoing: conditions,
      incoming: conditions,
    });
    const arenaBot = new ArenaBot(i);
    const client = new MessageClient({
      transport: link,
      factory,
      channels: [...channels, arenaBot.mirror.channel],
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
    };
  }),
);

const start = performance.now();
const now = () => (performance.now() - start) / 1000;
for (const bot of bots) bot.client.connect(bot.token, now());

let ticks = 0;
let lastDraw = 0;
let drawnLines = 0;
const previous = bots.map(() => ({ time: 0, received: 0, sent: 0, bytesUp: 0, bytesDown: 0 }));
const tty = process.stdout.isTTY === true;

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

function tick(): void {
  const time = now();
  ticks++;
  arena.step();
  server.update(time);
  for (const [i, bot] of bots.entries()) {
    bot.client.update(time);
    if (!bot.client.connected) continue;
    const index = bot.client.client.clientIndex;
    atServer[index] ??= tally();
    // Bots: a reliable chat message 10 times a second, positions every tick, an event now and then.
    if (ticks % 6 === i % 6)
      bot.client.send(RELIABLE, Chat, { n: bot.sent.chat++, text: `bot ${i} says hi` });
    bot.client.send(POSITIONS, Position, {
      n: bot.sent.position++,
      x: Math.sin(time + i) * 100,
      z: Math.cos(time) * 100,
    });
    if (ticks % 20 === 0) bot.client.send(EVENTS, Event, { n: bot.sent.event++, kind: 'pickup' });
    arena.avatarOf(index, i);
    const avatar = bot.arenaBot.avatar();
    if (avatar !== null) sendCommand(bot.client, POSITIONS, Steer, bot.arenaBot.steer(time, avatar), avatar);
    // The server answers each bot on the reliable channel 5 times a second, and sends it a map on
    // connecting and every 5 s after.
    if (ticks % 12 === i % 12) {
      server.send(index, RELIABLE, Chat, { n: bot.reliable.sent++, text: 'server state' });
    }
    if (bot.maps.connectedTick < 0) bot.maps.connectedTick = ticks;
    if ((ticks - bot.maps.connectedTick) % MAP_EVERY_TICKS === 0)
      server.sendBlock(index, RELIABLE, mapBytes(i, bot.maps.sent++));
    receiveAtBot(bot, i);
    for (let m = server.receive(index, RELIABLE); m !== null; m = server.receive(index, RELIABLE))
      checkReliable(atServer[index], (m.value as { n: number }).n);
    for (let m = server.receive(index, POSITIONS); m !== null; m = server.receive(index, POSITIONS))
      if (arena.replication.commands.dispatch(index, m, time) === 'not-a-command') bot.unreliable.received++;
    for (let m = server.receive(index, EVENTS); m !== null; m = server.receive(index, EVENTS))
      bot.unreliable.received++;
  }
  if (time - lastDraw >= 0.5) {
    draw(time);
    lastDraw = time;
  }
}

function draw(time: number): void {
  const lines = [
    `ghostwire live: ${bots.length} bots ↔ server ${serverSocket.localAddress} over UDP, link ${conditions.latency}±${conditions.jitter} ms, ${conditions.loss}% loss, ${conditions.duplicates}% duplicates (seed ${SEED})  t=${time.toFixed(1)} s`,
    'bot  state      rtt ms  loss %  up kbps  down kbps  msgs/s out  msgs/s in  reliable in flight  maps in  map progress  reliable in order  ghosts  flow  avatar (x, y) score',
  ];
  bots.forEach((bot, i) => {
    if (!bot.client.connected) {
      lines.push(`${String(i).padStart(3)}  connecting…`);
      return;
    }
    const s = bot.client.stats();
    const p = previous[i];
    const dt = time - p.time || 1;
    const outRate = (s.messages.messagesSent - p.sent) / dt;
    const inRate = (s.messages.messagesReceived - p.received) / dt;
    // Bandwidth from the bot's UDP socket over the last refresh (what left and arrived, netcode
    // datagrams whole), rather than the packet layer's figure, which averages half its 256-packet
    // window and so reads 0 for the first seconds.
    const udp = bot.socket.stats;
    const upKbps = ((udp.bytesSent - p.bytesUp) * 8) / 1000 / dt;
    const downKbps = ((udp.bytesReceived - p.bytesDown) * 8) / 1000 / dt;
    previous[i] = {
      time,
      sent: s.messages.messagesSent,
      received: s.messages.messagesReceived,
      bytesUp: udp.bytesSent,
      bytesDown: udp.bytesReceived,
    };
    const inOrder =
      bot.reliable.outOfOrder === 0 &&
      bot.maps.corrupt === 0 &&
      (atServer[bot.client.client.clientIndex]?.outOfOrder ?? 0) === 0;
    const receiving = bot.client.blockProgress(RELIABLE).receiving;
    const progress =
      receiving === null ? '-' : `${Math.floor((100 * receiving.receivedBytes) / receiving.totalBytes)}%`;
    const avatar = bot.arenaBot.avatar();
    const where =
      avatar === null
        ? '-'
        : `(${avatar.value.x.toFixed(1)}, ${avatar.value.y.toFixed(1)}) ${avatar.value.score}`;
    lines.push(
      `${String(i).padStart(3)}  connected ${s.rtt.toFixed(1).padStart(7)} ${s.packetLoss.toFixed(1).padStart(7)} ${upKbps.toFixed(1).padStart(8)} ${downKbps.toFixed(1).padStart(10)} ${outRate.toFixed(0).padStart(11)} ${inRate.toFixed(0).padStart(10)} ${String(s.queues[RELIABLE].send).padStart(19)} ${`${bot.maps.received}/${bot.maps.sent}`.padStart(8)} ${progress.padStart(13)}  ${(inOrder ? 'yes' : 'NO').padEnd(17)} ${String(bot.arenaBot.mirror.size).padStart(6)}  ${(arena.replication.flowStats(bot.client.client.clientIndex)?.mode ?? '-').padEnd(4)}  ${where}`,
    );
  });
  if (tty) {
    // Redraw in place: back up over the previous table, erase each line's tail.
    if (drawnLines > 0) process.stdout.write(`\x1b[${drawnLines}A`);
    process.stdout.write(`${lines.map((l) => `${l}\x1b[K`).join('\n')}\n`);
  } else if (Math.round(time * 2) % 4 === 0) {
    process.stdout.write(`${lines.join('\n')}\n`); // a log: a table every two seconds
  }
  drawnLines = lines.length;
}

const timer = setInterval(tick, 1000 / 60);
let stopping = false;

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(timer);
  arena.world.tick(); // the last steer commands' changes go out too, so the mirrors can match the world
  // Let the last reliable messages and maps arrive, without new traffic: until all are in, or for
  // at most 10 s plus a few round trips (a lost reliable message is never given up on, but the
  // session ends).
  const drainUntil = now() + 10 + (4 * (conditions.latency + conditions.jitter)) / 1000;
  const allIn = () =>
    bots.every((bot) => {
      const up = bot.client.connected ? atServer[bot.client.client.clientIndex] : undefined;
      return (
        bot.maps.received === bot.maps.sent &&
        bot.reliable.received === bot.reliable.sent &&
        (up?.received ?? 0) === bot.sent.chat &&
        (!bot.client.connected || arena.mismatches(bot.client.client.clientIndex, bot.arenaBot.mirror) === 0)
      );
    });
  while (now() < drainUntil && !allIn()) {
    const time = now();
    server.update(time);
    for (const [i, bot] of bots.entries()) {
      bot.client.update(time);
      if (!bot.client.connected) continue;
      const index = bot.client.client.clientIndex;
      receiveAtBot(bot, i);
      for (let m = server.receive(index, RELIABLE); m !== null; m = server.receive(index, RELIABLE))
        checkReliable(atServer[index], (m.value as { n: number }).n);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000 / 60));
  }
  let ok = true;
  console.log('\nsummary');
  for (const [i, bot] of bots.entries()) {
    const index = bot.client.client.clientIndex;
    const up = atServer[index] ?? tally();
    const upOk = up.outOfOrder === 0 && up.received === bot.sent.chat;
    const downOk = bot.reliable.outOfOrder === 0 && bot.reliable.received === bot.reliable.sent;
    const mapsOk = bot.maps.corrupt === 0 && bot.maps.received === bot.maps.sent;
    const mirror = bot.arenaBot.mirror;
    const wrong = arena.mismatches(index, mirror);
    ok &&= upOk && downOk && mapsOk && wrong === 0 && bot.client.connected;
    console.log(
      `  bot ${i}: reliable up ${up.received}/${bot.sent.chat} ${upOk ? 'all, in order' : 'MISSING OR OUT OF ORDER'}; reliable down ${bot.reliable.received}/${bot.reliable.sent} ${downOk ? 'all, in order' : 'MISSING OR OUT OF ORDER'}; maps ${bot.maps.received}/${bot.maps.sent} ${mapsOk ? 'intact' : 'MISSING OR CORRUPT'}; unreliable up ${bot.unreliable.received}/${bot.sent.position + bot.sent.event} (the rest lost or superseded, as unreliable may be); mirror ${mirror.size} ghosts ${wrong === 0 ? "equal to the server's" : `with ${wrong} DIFFERING FROM THE SERVER`}`,
    );
  }
  const refused = arena.replication.commands.stats;
  console.log(
    `  arena: ${arena.world.size} entities on the server; steer commands run ${refused.delivered}, refused ${refused.invalid + refused.unowned + refused.missingEntity + refused.overRate + refused.rejectedByValidator}`,
  );
  console.log(
    ok
      ? "every reliable message arrived exactly once and in order, both ways, every map intact, and every bot's mirror equals the server's world near it."
      : 'RELIABLE DELIVERY OR REPLICATION FAILED',
  );
  for (const bot of bots) bot.client.disconnect();
  server.update(now());
  serverSocket.close();
  for (const bot of bots) bot.socket.close();
  process.exitCode = ok ? 0 : 1;
}

process.on('SIGINT', () => void stop());
if (SECONDS > 0) setTimeout(() => void stop(), SECONDS * 1000);
