/**
 * The client side of the `serverload` bench suite, run as its own process so the server's CPU can
 * be measured alone: `node dist/bench/load-clients.js --server 127.0.0.1:PORT [--rate 60]
 * [--bytes 100] [--max-seconds 120]`.
 *
 * Reads JSON lines on stdin: first `{"type":"tokens","tokens":[base64, …]}` (one 2048-byte connect
 * token per client), then any of `{"type":"mark","id":n}` (reply with counters), `{"type":"stop"}`
 * (stop sending payloads, keep updating) and `{"type":"quit"}`. Writes JSON lines on stdout:
 * `ready`, `connected`, `mark` replies, and `failed` when a client ends up in an error state.
 *
 * Every client has its own UdpTransport (socket) on 127.0.0.1 and the node:crypto AEAD. Each sends
 * `rate` packets per second of `bytes` bytes through its connection's ReliableEndpoint, on its own
 * schedule (phases spread evenly over the period, as independent players would be), and is
 * updated at those moments, which also drains what the server sent it. Exits on quit, when stdin
 * closes (the parent went away), or after --max-seconds whatever happens.
 */
import { nodeAead } from '../src/connection/aead-node.js';
import { Client, ClientState, describeClientState } from '../src/connection/client.js';
import { readConnectToken } from '../src/connection/connect-token.js';
import { toAddress } from '../src/transport/address.js';
import { UdpTransport } from '../src/transport/udp-transport.js';
import { argumentReader, emit, exitAfter, readCommands } from './support/child-main.js';
import { cpuSample } from './support/process-stats.js';

const argument = argumentReader('load-clients');

const serverAddress = toAddress(argument('server'));
const rate = Number(argument('rate', '60'));
const bytes = Number(argument('bytes', '100'));
const maxSeconds = Number(argument('max-seconds', '120'));

const transports: UdpTransport[] = [];
const clients: Client[] = [];
/** Next send time per client, seconds. */
const due: number[] = [];
const period = 1 / rate;
const payload = new Uint8Array(bytes);
let sending = true;
let sent = 0;
let received = 0;
let bytesReceived = 0;
/** Sends not made because the loop fell more than 0.25 s behind a client's schedule. */
let skipped = 0;
let failed = false;
let allConnected = false;
let connectStart = 0;
let ticker: NodeJS.Timeout | undefined;
const start = performance.now();
const clock = () => (performance.now() - start) / 1000;

function exit(code: number): never {
  for (const t of transports) t.close();
  process.exit(code);
}

exitAfter('load-clients', maxSeconds, exit);

async function begin(tokens: Uint8Array[]): Promise<void> {
  for (const token of tokens) {
    const read = readConnectToken(token);
    if (!read.ok || !read.token.serverAddresses.includes(serverAddress)) {
      process.stderr.write(`load-clients: a token is not for ${serverAddress}\n`);
      exit(2);
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    const transport = await UdpTransport.open({
      address: '127.0.0.1:0',
      maxQueuedDatagrams: 4096,
      receiveBufferSize: 1 << 20,
    });
    transports.push(transport);
    clients.push(
      new Client({
        transport,
        aead: nodeAead,
        onPacket: (_data, _offset, length) => {
          received++;
          bytesReceived += length;
        },
      }),
    );
  }
  emit({ type: 'ready', sockets: transports.length, clients: clients.length });
  const now = clock();
  connectStart = now;
  for (let i = 0; i < clients.length; i++) {
    clients[i].connect(tokens[i], now);
    due[i] = now + (period * i) / clients.length;
  }
  ticker = setInterval(tick, 2);
}

/** Read through a call: update() changes the state behind TypeScript's narrowing. */
function isConnected(client: Client): boolean {
  return client.state === ClientState.Connected;
}

function tick(): void {
  const now = clock();
  let connected = 0;
  for (let i = 0; i < clients.length; i++) {
    const client = clients[i];
    if (!isConnected(client)) {
      // Connecting (or failed): update every tick, as the handshake needs.
      client.update(now);
      if (client.state < ClientState.Disconnected && !failed) {
        failed = true;
        emit({ type: 'failed', client: i, reason: describeClientState(client.state) });
      }
      if (isConnected(client)) due[i] = now + (period * i) / clients.length;
      continue;
    }
    connected++;
    if (now < due[i]) continue;
    client.update(now);
    if (!isConnected(client)) continue;
    // Every send that is due, so the rate holds when the loop runs late; more than 0.25 s behind
    // (a stall), the backlog is skipped and counted instead of sent as a burst.
    if (now - due[i] > 0.25) {
      const behind = Math.floor((now - due[i]) / period);
      skipped += behind;
      due[i] += behind * period;
    }
    while (due[i] <= now) {
      if (sending) {
        payload[0] = sent;
        client.send(payload);
        sent++;
      }
      due[i] += period;
    }
  }
  if (!allConnected && connected === clients.length) {
    allConnected = true;
    emit({ type: 'connected', count: connected, seconds: now - connectStart });
  }
}

function mark(id: unknown): void {
  let lost = 0;
  let acked = 0;
  let connected = 0;
  for (const client of clients) {
    const endpoint = client.endpoint;
    if (client.state === ClientState.Connected) connected++;
    if (endpoint === null) continue;
    lost += endpoint.stats().packetsLost;
    acked += endpoint.stats().packetsAcked;
  }
  let queueDrops = 0;
  let undeliverable = 0;
  for (const t of transports) {
    queueDrops += t.stats().dropped;
    undeliverable += t.stats().undeliverable;
  }
  emit({
    type: 'mark',
    id,
    time: clock(),
    ...cpuSample(),
    sent,
    received,
    bytesReceived,
    lost,
    acked,
    skipped,
    connected,
    queueDrops,
    undeliverable,
  });
}

readCommands<{ type?: string; id?: unknown; tokens?: string[] }>('load-clients', exit, (message) => {
  switch (message.type) {
    case 'tokens':
      begin((message.tokens ?? []).map((t) => new Uint8Array(Buffer.from(t, 'base64')))).catch((error) => {
        process.stderr.write(`load-clients: ${String((error as Error)?.stack ?? error)}\n`);
        exit(1);
      });
      break;
    case 'mark':
      mark(message.id);
      break;
    case 'stop':
      sending = false;
      break;
    case 'quit':
      if (ticker !== undefined) clearInterval(ticker);
      exit(0);
      break;
    default:
      process.stderr.write(`load-clients: unknown message ${String(message.type)}\n`);
  }
});
