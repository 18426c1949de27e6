/**
 * The sending side of the `messages` bench suite over UDP, run as its own process:
 * `node dist/bench/message-peer.js --server 127.0.0.1:PORT [--fill 8192] [--sent-buffer 256]
 * [--max-seconds 60]` (--sent-buffer: the ReliableEndpoint's sentPacketsBufferSize).
 *
 * One MessageClient on a UdpTransport bound to 127.0.0.1 (node:crypto AEAD), with the suite's
 * message type and channel. Reads JSON lines on stdin: `{"type":"token","token":base64}` (connect),
 * `{"type":"start"}` (start sending), `{"type":"mark","id":n}` (reply with counters),
 * `{"type":"stop"}` (send no new messages, reply `stopped` with the count sent; keeps updating so
 * the last ones are resent until acked) and `{"type":"quit"}`. Writes JSON lines on stdout:
 * `ready`, `connected`, `mark`, `stopped`, and `failed` if the connection fails.
 *
 * Sending: before every update the channel's send queue is topped up to --fill messages (numbered
 * from 0, checked by the server). The loop has no fixed tick: each event-loop turn it writes
 * packets back to back (one MessageClient.update each) while they carry messages, up to 64; an
 * empty packet ends the burst, and the next update then waits for a datagram to arrive or 1 ms.
 * Exits on quit, when stdin closes (the parent went away), or after --max-seconds whatever happens.
 */
import { MessageClient } from '../src/channels/message-endpoints.js';
import { nodeAead } from '../src/connection/aead-node.js';
import { ClientState, describeClientState } from '../src/connection/client.js';
import { UdpTransport } from '../src/transport/udp-transport.js';
import {
  Bench32,
  benchChannels,
  benchFactory,
  fillWords,
  QUEUE_SIZE,
  type Words,
} from './suites/messages.js';
import { argumentReader, emit, exitAfter, readCommands } from './support/child-main.js';
import { cpuSample } from './support/process-stats.js';

const argument = argumentReader('message-peer');

const serverAddress = argument('server');
const fill = Math.min(QUEUE_SIZE, Math.max(1, Number(argument('fill', String(QUEUE_SIZE)))));
const maxSeconds = Number(argument('max-seconds', '60'));
/** The ReliableEndpoint's sent-packet window (acks arriving later count the packet lost). */
const sentBuffer = Number(argument('sent-buffer', '256'));
/** A packet this size or smaller carried no message (a 32-byte message alone makes it larger). */
const EMPTY_PACKET_BYTES = 64;
const BURST = 64;

let transport: UdpTransport | null = null;
function exit(code: number): never {
  transport?.close();
  process.exit(code);
}

exitAfter('message-peer', maxSeconds, exit);

transport = await UdpTransport.open({
  address: '127.0.0.1:0',
  receiveBufferSize: 8 << 20,
  sendBufferSize: 8 << 20,
  maxQueuedDatagrams: 65536,
  maxPendingSends: 4096,
});
const socket = transport;
const client = new MessageClient({
  transport: socket,
  aead: nodeAead,
  factory: benchFactory,
  channels: benchChannels,
  reliable: { sentPacketsBufferSize: sentBuffer },
});

const start = performance.now();
const clock = () => (performance.now() - start) / 1000;
const value: Words = [0, 0, 0, 0, 0, 0, 0, 0];
let connecting = false;
let announced = false;
let sending = false;
let sent = 0;
let turns = 0;
let fullPackets = 0;
let emptyPackets = 0;
let carried = false;
let lastUpdate = Number.NEGATIVE_INFINITY;
let failed = false;

function topUp(): void {
  if (!sending || !client.connected) return;
  for (let depth = client.stats().queues[0].send; depth < fill; depth++)
    client.send(0, Bench32, fillWords(value, sent++));
}

function turn(): void {
  turns++;
  const now = clock();
  if (connecting && (carried || socket.stats().queued > 0 || now - lastUpdate >= 0.001)) {
    lastUpdate = now;
    // Once per turn: stats() is O(receiveQueueSize) (it counts the receive window).
    topUp();
    let k = 0;
    do {
      const before = socket.stats().bytesSent;
      client.update(now);
      const bytes = socket.stats().bytesSent - before;
      carried = bytes > EMPTY_PACKET_BYTES;
      if (carried) fullPackets++;
      else if (bytes > 0) emptyPackets++;
    } while (carried && ++k < BURST);
    if (client.client.state < ClientState.Disconnected && !failed) {
      failed = true;
      emit({ type: 'failed', reason: describeClientState(client.client.state) });
      exit(1);
    }
    if (client.connected && !announced) {
      announced = true;
      emit({ type: 'connected', seconds: now });
    }
  }
  setImmediate(turn);
}

function mark(id: unknown): void {
  const cpu = cpuSample();
  const stats = client.connected ? client.stats() : null;
  emit({
    type: 'mark',
    id,
    time: clock(),
    sent,
    ...cpu,
    datagrams: socket.stats().sent,
    bytes: socket.stats().bytesSent,
    fullPackets,
    emptyPackets,
    turns,
    packetsLost: client.client.endpoint?.stats().packetsLost ?? 0,
    rtt: stats?.rttMs ?? 0,
    queue: stats?.queues[0].send ?? 0,
  });
}

readCommands<{ type?: string; id?: unknown; token?: string }>('message-peer', exit, (message) => {
  switch (message.type) {
    case 'token':
      client.connect(new Uint8Array(Buffer.from(message.token ?? '', 'base64')), clock());
      connecting = true;
      break;
    case 'start':
      sending = true;
      break;
    case 'mark':
      mark(message.id);
      break;
    case 'stop':
      sending = false;
      emit({ type: 'stopped', sent });
      break;
    case 'quit':
      exit(0);
      break;
    default:
      process.stderr.write(`message-peer: unknown message ${String(message.type)}\n`);
  }
});

emit({ type: 'ready', address: socket.localAddress, server: serverAddress });
turn();
