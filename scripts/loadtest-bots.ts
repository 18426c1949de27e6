/**
 * A bot process of the load tester (scripts/loadtest.ts forks it): many bots, each a player of the
 * arena room (demo/arena-room.ts) that authenticates with the HTTP backend, gets a seat (matchmake
 * or joinOrCreate), connects over real UDP with netcode, mirrors its room's world and sends an
 * input every 50 ms, leaves after a random session and comes back after a pause. One 20 Hz timer
 * drives every bot; each bot keeps its one UDP socket across its sessions, but takes a new one
 * after a failure (the server may still hold a connection from the old address, and netcode
 * ignores connection requests from an address already connected).
 *
 * The parent passes a BotsConfig as JSON in argv[2] and sends `{ type: 'stop' }`; this process
 * sends a BotReport every second and a last one with `final: true` once every bot has left.
 */
import { ARENA_ROOM, arenaFactory } from '../demo/arena-room.js';
import { MessageClient } from '../src/channels/index.js';
import { nodeDefaultAead } from '../src/connection/aead-node-default.js';
import { ClientState, describeClientState } from '../src/connection/client.js';
import { InputSender } from '../src/latency/index.js';
import { prng } from '../src/random/prng.js';
import { ClientMirror } from '../src/replication/index.js';
import { BackendClient } from '../src/services/index.js';
import { UdpTransport } from '../src/transport/udp-transport.js';
import { CAPACITY, types, Walk, type WalkValue } from '../tools/live-arena.js';
import { LightMirror } from './loadtest-light-mirror.js';
import {
  type BotReport,
  type BotsConfig,
  emptyReport,
  type WindowMark,
  type WindowReport,
} from './loadtest-protocol.js';

const config = JSON.parse(process.argv[2] ?? '{}') as BotsConfig;
/** A playing bot's frame (20 Hz); a connecting bot is updated every timer turn (100 Hz), as a game's render loop would. */
const FRAME_SECONDS = 1 / 20;
const TURN_MS = 10;
const start = performance.now();
const clock = () => (performance.now() - start) / 1000;
const random = prng(config.seed);
let report: BotReport = emptyReport();
let stopping = false;

type Phase = 'waiting' | 'seating' | 'connecting' | 'playing' | 'stopped';

/** What a bot needs of its replication end, light or full. */
interface Mirror {
  readonly channel: ClientMirror['channel'];
  readonly sectionsApplied: number;
  readonly newestTick: number;
  reset(): unknown;
}

/** The steady window, while it is open: when it opened (bot clock), and the process's bytes then. */
let window: { at: number; bytesSent: number; bytesReceived: number } | null = null;
/** The process's sockets' payload bytes so far (countSocket adds them up). */
const bytes = { sent: 0, received: 0 };

class LoadBot {
  readonly mirror: Mirror = config.light
    ? new LightMirror(types, CAPACITY)
    : new ClientMirror({ types, capacity: CAPACITY });
  readonly sender = new InputSender({ schema: Walk });
  messages: MessageClient;
  phase: Phase = 'waiting';
  /** When the next session starts (waiting) or ends (playing), seconds on the bot clock. */
  at: number;
  /** When the next 20 Hz frame is due while playing (phases spread over the bots). */
  private due = 0;
  private began = 0;
  private seatedAt = 0;
  /** When the netcode client got connected (-1: not yet this session). */
  private connectedAt = -1;
  private tick = 0;
  private readonly input: WalkValue = { dx: 0, dy: 0, zap: false, target: 0, aimX: 0, aimY: 0 };
  /** The current connection's counts already reported. */
  private sections = 0;
  /** In the steady window: seconds played and sections applied (closed stretches), and the open one's start. */
  windowSeconds = 0;
  windowSections = 0;
  private openedAt = -1;
  private openedSections = 0;

  constructor(
    readonly name: string,
    public socket: UdpTransport,
    firstAt: number,
  ) {
    this.at = firstAt;
    this.messages = this.client();
  }

  private client(): MessageClient {
    return new MessageClient({
      transport: this.socket,
      // What a Node client gets by default (and the room server too): libsodium's WebAssembly one.
      aead: nodeDefaultAead,
      factory: arenaFactory,
      channels: [this.mirror.channel, this.sender.channel],
    });
  }

  /** A new socket and netcode client; the bot waits meanwhile. */
  private async renew(): Promise<void> {
    const resting = this.phase;
    this.phase = 'seating';
    this.countSocket();
    this.socket.close();
    this.socket = await openSocket();
    this.seenSent = this.seenReceived = this.seenDropped = this.seenBytesSent = this.seenBytesReceived = 0;
    this.messages = this.client();
    this.phase = stopping ? 'stopped' : resting;
  }

  frame(now: number): void {
    switch (this.phase) {
      case 'waiting':
        if (stopping) this.phase = 'stopped';
        else if (now >= this.at) void this.seat(now);
        return;
      case 'connecting':
        this.play(now);
        return;
      case 'playing':
        if (now < this.due && !stopping) return;
        // Every frame due; a stall longer than a quarter second skips the backlog.
        this.due = now - this.due > 0.25 ? now + FRAME_SECONDS : this.due + FRAME_SECONDS;
        this.play(now);
        return;
      default:
        return;
    }
  }

  /** Auth, then a seat over HTTP; the netcode connection starts when the token is in hand. */
  private async seat(now: number): Promise<void> {
    this.phase = 'seating';
    this.began = now;
    try {
      const backend = new BackendClient({ url: config.backendUrl });
      await backend.auth({ name: this.name });
      const seat =
        config.mode === 'matchmake'
          ? await backend.matchmake({ pool: ARENA_ROOM, transport: 'udp', pollMs: 100 })
          : await backend.joinOrCreate(ARENA_ROOM, { transport: 'udp' });
      const at = clock();
      report.httpMs.push((at - this.began) * 1000);
      if (stopping) {
        this.phase = 'stopped';
        return;
      }
      this.seatedAt = at;
      this.connectedAt = -1;
      this.phase = 'connecting';
      // A new room: nothing mirrored or sent before counts (sectionsApplied is never reset).
      this.mirror.reset();
      this.sender.reset();
      this.sections = this.mirror.sectionsApplied;
      this.messages.connect(seat.connectToken, at);
    } catch (error) {
      this.fail(`http: ${error instanceof Error ? error.message.slice(0, 80) : String(error)}`);
    }
  }

  private play(now: number): void {
    this.messages.update(now);
    const state = this.messages.client.state;
    // Below Disconnected: an error state (token refused, timed out…); Disconnected: the server let it go.
    if (state <= ClientState.Disconnected) {
      this.fail(`netcode: ${describeClientState(state)}`);
      return;
    }
    if (this.phase === 'connecting') {
      // A bot connecting at the stop joins before it leaves: a netcode client still in its
      // handshake sends no disconnect, so the server would hold its slot until the timeout.
      if (now - this.seatedAt > 10) {
        this.fail('no snapshot within 10 s');
        return;
      }
      if (this.connectedAt < 0 && state === ClientState.Connected) this.connectedAt = now;
      if (this.mirror.sectionsApplied === this.sections) return;
      if (this.connectedAt < 0) this.connectedAt = now;
      report.handshakeMs.push((this.connectedAt - this.seatedAt) * 1000);
      report.firstStateMs.push((now - this.connectedAt) * 1000);
      this.phase = 'playing';
      if (window !== null) this.open(now);
      report.joins++;
      report.joinMs.push((now - this.began) * 1000);
      this.tick = this.mirror.newestTick + 2;
      this.due = now + FRAME_SECONDS * random();
      this.at = now + config.sessionSeconds * (0.5 + random());
    }
    if (stopping || now >= this.at) {
      this.leave(now);
      return;
    }
    // A random walk: a new heading now and then, half a metre a tick at most.
    if (random() < 0.05) {
      this.input.dx = Math.round((random() - 0.5) * 64) / 64;
      this.input.dy = Math.round((random() - 0.5) * 64) / 64;
    }
    this.sender.push(this.tick++, this.input);
    report.inputs++;
  }

  /**
   * State packets arrived so far: sections applied, and datagrams waiting in the socket's queue
   * (a bot reads its queue once a frame: a busy bot process holds a backlog, which must count at the
   * end of the window when it arrived in it, and not at the start when it arrived before).
   */
  private arrived(): number {
    return this.mirror.sectionsApplied + this.socket.stats().queued;
  }

  /** Starts a stretch of the steady window (the window opened while playing, or a join in it). */
  open(now: number): void {
    this.openedAt = now;
    this.openedSections = this.arrived();
  }

  /** Ends the open stretch, if any (a leave, a failure, or the window's end). */
  close(now: number): void {
    if (this.openedAt < 0) return;
    this.windowSeconds += now - this.openedAt;
    this.windowSections += this.arrived() - this.openedSections;
    this.openedAt = -1;
  }

  private leave(now: number): void {
    this.close(now);
    this.collect();
    this.messages.disconnect();
    report.leaves++;
    this.rest(now);
  }

  private fail(reason: string): void {
    this.close(clock());
    this.collect();
    if (this.messages.client.state > ClientState.Disconnected) this.messages.disconnect();
    report.failures[reason] = (report.failures[reason] ?? 0) + 1;
    this.rest(clock());
    if (reason.startsWith('netcode')) void this.renew();
  }

  private seenSent = 0;
  private seenReceived = 0;
  private seenDropped = 0;
  private seenBytesSent = 0;
  private seenBytesReceived = 0;
  /**
   * Adds the socket's datagrams sent, arrived and dropped since the last count. Arrived: delivered
   * to the client or still in the socket's queue, which a bot between sessions does not drain (its
   * netcode client is idle): counting only those delivered read the server's last snapshots to a
   * leaving bot as lost.
   */
  countSocket(): void {
    const stats = this.socket.stats();
    const arrived = stats.received + stats.queued;
    report.udpSent += stats.sent - this.seenSent;
    report.udpReceived += arrived - this.seenReceived;
    this.seenSent = stats.sent;
    report.udpDropped += stats.dropped - this.seenDropped;
    this.seenReceived = arrived;
    this.seenDropped = stats.dropped;
    bytes.sent += stats.bytesSent - this.seenBytesSent;
    bytes.received += stats.bytesReceived - this.seenBytesReceived;
    this.seenBytesSent = stats.bytesSent;
    this.seenBytesReceived = stats.bytesReceived;
  }

  /** Counters of the connection ending. */
  private collect(): void {
    this.count();
  }

  /** Adds the snapshots the current connection mirrored since the last count. */
  count(): void {
    if (this.phase !== 'playing') return;
    report.snapshots += this.mirror.sectionsApplied - this.sections;
    this.sections = this.mirror.sectionsApplied;
  }

  private rest(now: number): void {
    this.phase = stopping ? 'stopped' : 'waiting';
    this.at = now + config.gapSeconds * (0.5 + random());
  }
}

function openSocket(): Promise<UdpTransport> {
  return UdpTransport.open({
    address: '127.0.0.1:0',
    maxQueuedDatagrams: 1024,
    receiveBufferSize: 1 << 18,
    // One server at a time: a connected socket sends cheaper.
    connectToPeer: true,
  });
}

const bots: LoadBot[] = [];
for (let i = 0; i < config.bots; i++) {
  const socket = await openSocket();
  // Arrivals spread evenly over the ramp.
  bots.push(new LoadBot(`bot${config.firstBot + i}`, socket, (config.rampSeconds * i) / config.bots));
}

let lastTurn = clock();
let turnLagMs = 0;
const timer = setInterval(() => {
  const now = clock();
  // How late this turn is: a bot process short of CPU shows it here first.
  turnLagMs = Math.max(turnLagMs, (now - lastTurn) * 1000 - TURN_MS);
  lastTurn = now;
  for (const bot of bots) bot.frame(now);
  if (stopping && bots.every((b) => b.phase === 'stopped' || b.phase === 'seating') && !finished) finish();
}, TURN_MS);

let cpu = process.cpuUsage();
let cpuAt = performance.now();
const reporter = setInterval(() => send(false), 1000);

function send(final: boolean): void {
  for (const bot of bots) {
    bot.count();
    bot.countSocket();
  }
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - cpuAt;
  cpu = process.cpuUsage();
  cpuAt = performance.now();
  report.playing = bots.filter((b) => b.phase === 'playing').length;
  report.cpuPercent = ((used.user + used.system) / 1000 / Math.max(wall, 1)) * 100;
  report.lagMs = turnLagMs;
  turnLagMs = 0;
  report.final = final;
  report.countedAt = performance.timeOrigin + performance.now();
  process.send?.(report);
  report = emptyReport();
}

let finished = false;
function finish(): void {
  finished = true;
  clearInterval(timer);
  clearInterval(reporter);
  // The disconnect packets are on their way; the sockets close after they left.
  setTimeout(() => {
    send(true);
    for (const bot of bots) bot.socket.close();
    process.disconnect?.();
  }, 100);
}

process.on('message', (message) => {
  const type = (message as { type?: string }).type;
  if (type === 'stop') stopping = true;
  else if (type === 'window') mark((message as WindowMark).phase);
});

/** Opens or closes the steady window; at its close, sends the window's figures. */
function mark(phase: WindowMark['phase']): void {
  const now = clock();
  for (const bot of bots) bot.countSocket();
  if (phase === 'start') {
    window = { at: now, bytesSent: bytes.sent, bytesReceived: bytes.received };
    for (const bot of bots) if (bot.phase === 'playing') bot.open(now);
    return;
  }
  if (window === null) return;
  const seconds = now - window.at;
  const delivered: number[] = [];
  let botSeconds = 0;
  for (const bot of bots) {
    bot.close(now);
    botSeconds += bot.windowSeconds;
    if (bot.windowSeconds >= 1) delivered.push(bot.windowSections / (config.tickRate * bot.windowSeconds));
  }
  const answer: WindowReport = {
    kind: 'window',
    delivered,
    meanPlaying: seconds > 0 ? botSeconds / seconds : 0,
    bytesSent: bytes.sent - window.bytesSent,
    bytesReceived: bytes.received - window.bytesReceived,
    seconds,
  };
  window = null;
  process.send?.(answer);
}
process.on('disconnect', () => {
  if (!finished) process.exit(0);
});
