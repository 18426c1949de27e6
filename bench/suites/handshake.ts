/**
 * Connection setup cost, server and client in one process on the in-memory network.
 *
 * 1. Full netcode handshakes: a backend generates the connect token, the client sends connection
 *    requests, the server answers with a challenge, the client responds, the server sends the
 *    keep-alive that tells the client its slot, and the client is connected. Handshakes run in
 *    waves of 256 clients arriving at once on a fresh 256-slot server (built untimed), both ends
 *    on the same AEAD backend. Token generation alone is measured too, to split the figure.
 * 2. What refusing costs the server: a forged connection request (right length, version, protocol
 *    id and a future expiry, so it reaches the XChaCha20-Poly1305 check of its random 1024-byte
 *    private token and fails there), and a datagram from an address that never presented a token
 *    (dropped before any decryption). Both go through `Server.update` from a scripted transport
 *    that hands the same pool of datagrams over without copying, so only the server's own work
 *    is timed.
 */
import type { Aead } from '../../src/connection/aead.js';
import { nobleAead } from '../../src/connection/aead.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { loadWasmAead } from '../../src/connection/aead-wasm.js';
import { Client, ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import {
  CONNECT_TOKEN_NONCE_BYTES,
  CONNECT_TOKEN_PRIVATE_BYTES,
  MAX_PACKET_BYTES,
  PacketType,
} from '../../src/connection/constants.js';
import { PacketCodec } from '../../src/connection/packets.js';
import { Server, type ServerCounters } from '../../src/connection/server.js';
import { ReliableEndpoint } from '../../src/packet/reliable-endpoint.js';
import { prng, randomBytes } from '../../src/random/prng.js';
import { type Address, toAddress } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import {
  type DatagramHandler,
  type DatagramTransport,
  TransportCounters,
} from '../../src/transport/transport.js';
import { check, fmt, measure, type Result, type SuiteContext, type Task } from '../harness.js';

const BACKENDS: readonly Aead[] = [nodeAead, nobleAead, await loadWasmAead()];
const PROTOCOL_ID = 0x1122334455667788n;
const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
/** A fixed unix clock for token creation and server expiry checks. */
const UNIX_NOW = 1_700_000_000;
const unixTime = () => UNIX_NOW;
const SERVER_ADDRESS = toAddress('10.0.0.1:40000');
/** Clients per wave: the server's default capacity. */
const WAVE = 256;

/** Fixed pseudo-random bytes for a given seed. */
const filled = (length: number, seed: number): Uint8Array => randomBytes(prng(seed), length);

// --- 1. full handshakes ---------------------------------------------------------------------------

interface World {
  server: Server;
  clients: Client[];
  /** The world's clock, seconds: every use moves it on a little. */
  now: number;
}

/** Moves the world's clock on a millisecond and returns it. */
function advance(world: World): number {
  world.now += 0.001;
  return world.now;
}

/** A network, a 256-slot server and 256 disconnected clients (built once, untimed). */
function buildWorld(aead: Aead): World {
  const network = new MemoryNetwork();
  const serverTransport = network.createTransport(SERVER_ADDRESS, { maxQueuedDatagrams: 4 * WAVE });
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [SERVER_ADDRESS],
    transports: [serverTransport],
    maxClients: WAVE,
    aead,
    unixTime,
  });
  const clients: Client[] = [];
  for (let i = 0; i < WAVE; i++) clients.push(new Client({ transport: network.createTransport(), aead }));
  return { server, clients, now: 1 };
}

/**
 * Untimed reset after a wave: every client disconnects (ten disconnect packets; the server frees
 * the slot on the first and drops the rest as coming from an unknown address).
 */
function resetWorld(world: World): void {
  const { server, clients } = world;
  for (let i = 0; i < clients.length; i++) {
    clients[i].disconnect();
    if (i % 64 === 63) server.update(advance(world));
  }
  server.update(advance(world));
  check(server.connectedClients === 0, 'handshake: the server kept clients after they disconnected');
}

let nextClientId = 1n;

/** One wave: 256 tokens generated, 256 clients connected; returns the sum of their slot indices. */
function connectWave(world: World, aead: Aead): number {
  const { server, clients } = world;
  const now = advance(world);
  const accepted = server.stats().requestsAccepted;
  for (const client of clients) {
    const token = generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey: PRIVATE_KEY,
      clientId: nextClientId++,
      serverAddresses: [SERVER_ADDRESS],
      now: UNIX_NOW,
      aead,
    });
    client.connect(token, now);
    client.update(now); // connection request
  }
  server.update(now); // challenges
  for (const client of clients) client.update(now); // responses
  server.update(now); // connected: keep-alive with the slot
  let indices = 0;
  for (const client of clients) {
    client.update(now); // keep-alive: connected
    if (client.state !== ClientState.Connected) return -1;
    indices += client.clientIndex;
  }
  const ok = server.connectedClients === WAVE && server.stats().requestsAccepted - accepted === WAVE;
  return ok ? indices : -1;
}

const WAVE_INDEX_SUM = (WAVE * (WAVE - 1)) / 2;

function handshakeTask(aead: Aead, waves: number): Task {
  const worlds: World[] = [];
  return {
    name: `${aead.name}: handshake`,
    units: WAVE,
    iterations: waves,
    before() {
      while (worlds.length < waves) worlds.push(buildWorld(aead));
      for (const world of worlds) if (world.server.connectedClients > 0) resetWorld(world);
    },
    run(n) {
      let sum = 0;
      for (let w = 0; w < n; w++) {
        const indices = connectWave(worlds[w], aead);
        if (indices < 0) return -1;
        sum += indices;
      }
      return sum;
    },
    verify(n, result) {
      check(result === n * WAVE_INDEX_SUM, `${aead.name}: a wave of ${WAVE} handshakes did not all connect`);
    },
  };
}

function tokenTask(aead: Aead): Task {
  return {
    name: `${aead.name}: token generation`,
    units: 1,
    run(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const token = generateConnectToken({
          protocolId: PROTOCOL_ID,
          privateKey: PRIVATE_KEY,
          clientId: nextClientId++,
          serverAddresses: [SERVER_ADDRESS],
          now: UNIX_NOW,
          aead,
        });
        sum += token[100];
      }
      return sum;
    },
  };
}

/** Each side of a connection builds one (default configuration) when it connects. */
function endpointTask(): Task {
  const handler = { transmit() {}, process: () => true };
  let last: ReliableEndpoint | null = null;
  return {
    name: 'ReliableEndpoint construction',
    units: 1,
    run(n) {
      for (let i = 0; i < n; i++) last = new ReliableEndpoint(handler, undefined, i);
      return last?.nextSequence ?? 0;
    },
  };
}

/** Untimed: one wave per backend, to size the batches (whole waves) and check the setup. */
function wavesPerBatch(aead: Aead, targetMs: number): number {
  let best = Number.POSITIVE_INFINITY;
  const world = buildWorld(aead);
  for (let i = 0; i < 3; i++) {
    if (i > 0) resetWorld(world);
    const start = performance.now();
    const indices = connectWave(world, aead);
    best = Math.min(best, performance.now() - start);
    check(indices === WAVE_INDEX_SUM, `${aead.name}: the probe wave did not connect`);
  }
  return Math.max(1, Math.round(targetMs / Math.max(best, 1e-3)));
}

// --- 2. refusing -----------------------------------------------------------------------------------

/**
 * A transport whose receive hands over `pending` datagrams from a fixed pool, in turn, without
 * copying; sends are only counted (the refusal paths must not send anything).
 */
class ScriptedTransport implements DatagramTransport {
  readonly localAddress = SERVER_ADDRESS;
  readonly maxDatagramSize = MAX_PACKET_BYTES;
  readonly closed = false;
  private readonly counters = new TransportCounters();
  pending = 0;
  private cursor = 0;

  constructor(
    private readonly datagrams: readonly Uint8Array[],
    private readonly sources: readonly Address[],
  ) {}

  stats(): Readonly<TransportCounters> {
    return this.counters;
  }

  send(_to: Address, _data: Uint8Array): void {
    this.counters.sent++;
  }

  receive(handler: DatagramHandler, max = Number.POSITIVE_INFINITY): number {
    let delivered = 0;
    const count = this.datagrams.length;
    while (delivered < max && this.pending > 0) {
      const i = this.cursor;
      this.cursor = i + 1 === count ? 0 : i + 1;
      this.pending--;
      delivered++;
      handler(this.sources[i], this.datagrams[i]);
    }
    return delivered;
  }

  update(_now: number): void {}

  close(): void {}
}

const POOL = 64;
const sources = Array.from({ length: POOL }, (_, i) => toAddress(`203.0.113.${i + 1}:${50000 + i}`));

/** Connection requests that pass every check before decryption, with random sealed tokens. */
function forgedRequests(): Uint8Array[] {
  const codec = new PacketCodec(PROTOCOL_ID, nobleAead);
  return Array.from({ length: POOL }, (_, i) => {
    const out = new Uint8Array(MAX_PACKET_BYTES);
    const n = codec.writeConnectionRequest(
      out,
      UNIX_NOW + 30,
      filled(CONNECT_TOKEN_NONCE_BYTES, 0x4e00 + i),
      filled(CONNECT_TOKEN_PRIVATE_BYTES, 0x5400 + i),
    );
    return out.slice(0, n);
  });
}

/** 120-byte "payload packets" (prefix, 1-byte sequence, 102-byte body, 16-byte MAC) from strangers. */
function strangerPackets(): Uint8Array[] {
  return Array.from({ length: POOL }, (_, i) => {
    const packet = filled(120, 0x5000 + i);
    packet[0] = PacketType.Payload | (1 << 4);
    return packet;
  });
}

function refusalTask(name: string, aead: Aead, datagrams: Uint8Array[], counter: keyof ServerCounters): Task {
  const transport = new ScriptedTransport(datagrams, sources);
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: [SERVER_ADDRESS],
    transports: [transport],
    aead,
    unixTime,
    maxDatagramsPerUpdate: Number.MAX_SAFE_INTEGER,
  });
  const total = () => Object.values(server.stats()).reduce((a, b) => a + b, 0);
  let now = 1;
  return {
    name,
    units: 1,
    run(n) {
      const before = server.stats()[counter];
      transport.pending = n;
      now += 0.001;
      server.update(now);
      return server.stats()[counter] - before;
    },
    verify(n, result) {
      check(result === n, `${name}: ${n - result} datagrams were not refused as ${counter}`);
      check(total() === server.stats()[counter], `${name}: a datagram was counted under another reason`);
      check(transport.stats().sent === 0 && server.connectedClients === 0, `${name}: the server answered`);
    },
  };
}

function perSecond(results: readonly Result[]): Record<string, string> {
  return Object.fromEntries(results.map((r) => [r.name, fmt(1e9 / r.median)]));
}

export function runHandshake(ctx: SuiteContext): void {
  const waves = Math.max(...BACKENDS.map((aead) => wavesPerBatch(aead, ctx.options.targetMs)));
  const setup = measure(
    [...BACKENDS.map((aead) => handshakeTask(aead, waves)), ...BACKENDS.map(tokenTask), endpointTask()],
    ctx.options,
  );
  const handshakes = setup.slice(0, BACKENDS.length);
  const parts = setup.slice(BACKENDS.length);
  ctx.table({
    title: `Full netcode handshakes, in-memory network, server + clients in one process (waves of ${WAVE} clients)`,
    unit: 'handshake',
    baseline: `${nobleAead.name}: handshake`,
    results: handshakes,
    columns: [{ header: 'handshakes/s (one core)', values: perSecond(handshakes) }],
    notes: [
      `One handshake = backend token generation + request -> challenge -> response -> keep-alive -> connected,`,
      `client and server work together (both on the named backend); ${waves} wave(s) of ${WAVE} per timed batch,`,
      'each on its own 256-slot server; network, server and clients are built once and every client',
      'disconnects between batches (untimed).',
    ],
  });
  ctx.table({
    title: 'Parts of a handshake, measured alone (ns per operation)',
    unit: 'op',
    baseline: `${nobleAead.name}: token generation`,
    results: parts,
    columns: [{ header: 'ops/s (one core)', values: perSecond(parts) }],
    notes: [
      'token generation: what the backend does per client (random keys and nonce, XChaCha20-Poly1305',
      '  over the 1008-byte private part); included once in every handshake above.',
      'ReliableEndpoint construction (default configuration): server and client each build one when',
      '  the connection is made, so twice in every handshake above.',
    ],
  });

  const forged = forgedRequests();
  const strangers = strangerPackets();
  const refusals = measure(
    [
      ...BACKENDS.map((aead) =>
        refusalTask(`${aead.name}: forged connection request`, aead, forged, 'requestsBadToken'),
      ),
      refusalTask('datagram from unknown address', nodeAead, strangers, 'unknownAddress'),
    ],
    ctx.options,
  );
  ctx.table({
    title: 'Server CPU per refused datagram (Server.update over a scripted transport, no copy, no socket)',
    unit: 'datagram',
    baseline: `${nobleAead.name}: forged connection request`,
    results: refusals,
    columns: [{ header: 'datagrams/s (one core)', values: perSecond(refusals) }],
    notes: [
      'forged connection request: 1078 bytes, valid framing, protocol id and expiry, random nonce and',
      '  1024-byte private token: fails the XChaCha20-Poly1305 MAC (counted requestsBadToken), no state kept.',
      'datagram from unknown address: 120-byte payload-type packet from an address with no slot and no',
      '  pending token: dropped before any decryption (counted unknownAddress); the backend plays no part.',
      `${POOL} distinct datagrams from ${POOL} source addresses, in turn.`,
    ],
  });
}
