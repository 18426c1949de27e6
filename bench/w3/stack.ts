/**
 * The W3 scene replicated to one client through the real stack: ServerWorld + ReplicationServer
 * in a MessageServer, a ClientMirror in a MessageClient, netcode encryption (node:crypto AEAD),
 * the in-memory network, and the network simulator on the client's link (both directions). One
 * packet per frame at 60 Hz; every byte the server's socket sends is counted per frame.
 */
import { defineMessage, MessageClient, MessageFactory, MessageServer } from '../../src/channels/index.js';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ClientMirror, type Entity, ReplicationServer, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { type LinkConditions, NetworkSimulator } from '../../src/transport/network-simulator.js';
import { dissectingChannel, emptySectionBits, type SectionBits } from './anatomy.js';
import { Cube, type CubeValue, cubeValue, newCubeValue, type SceneModule } from './scene.js';
import { type Rates, Traffic } from './traffic.js';

export interface Condition {
  readonly name: string;
  /** Applied to each direction of the client's link. */
  readonly link: LinkConditions;
  readonly seed: number;
}

export interface StackResult {
  readonly condition: Condition;
  readonly frames: number;
  readonly rates: Rates;
  /** Moving cubes (rest = 0) and cubes whose quantized state changed, summed over frames. */
  readonly movingCubes: number;
  readonly changedCubes: number;
  /** Sections the mirror applied (frames received), and of those, frames in exact agreement. */
  readonly received: number;
  readonly agreeing: number;
  /** The first frame in agreement (the initial full state has arrived), and disagreements after it. */
  readonly firstAgreeing: number;
  readonly disagreeingAfter: number;
  /** Whether the mirror equals the server's final quantized state once traffic quiets. */
  readonly finalAgrees: boolean;
  readonly bits: SectionBits;
  /**
   * What the server sent from the first frame on (the handshake and what came before excluded,
   * as from `bits`): bytes, datagrams, and of those bytes netcode's prefix, sequence and MAC.
   */
  readonly frameBytes: number;
  readonly frameDatagrams: number;
  readonly frameNetcodeBytes: number;
  /** The scene's fingerprint after the last frame (W3.md lists frame 3600's). */
  readonly fingerprint: bigint;
}

const HZ = 60;
const PROTOCOL_ID = 0x7733n;
const UNIX_START = 1_700_000_000;
/** Netcode's MAC on every encrypted packet. */
const MAC_BYTES = 16;
/** Server states kept per tick for the agreement check (far more than any ack delay here). */
const RING = 256;

export function runStack(scene: SceneModule, condition: Condition, frames: number): StackResult {
  const cubes = scene.CUBES;
  const layout = Cube.layout;
  const laneCount = layout.lanes.length;
  const clock = { now: 0 };
  const network = new MemoryNetwork();
  const serverSocket = network.createTransport('10.0.0.100:1');
  const privateKey = new Uint8Array(32).fill(7);
  const factory = new MessageFactory([defineMessage('none', t.object({ n: t.int(0, 1) }))]);
  const world = new ServerWorld({ types: [Cube], capacity: cubes });
  // W3 compares every frame the client receives, so the whole frame's changes must fit each packet:
  // the bucket is set above the scene's peak (the default, 512 B a packet at 256 kbit/s, would hold
  // some cubes back in its busiest frames; the rate measured here stays under 256 kbit/s anyway).
  const replication = new ReplicationServer({
    world,
    maxClients: 1,
    bandwidth: { bytesPerPacket: 1150, kbps: 2000 },
  });
  const server = new MessageServer({
    protocolId: PROTOCOL_ID,
    privateKey,
    publicAddresses: [serverSocket.localAddress],
    transports: [serverSocket],
    aead: nodeAead,
    unixTime: () => UNIX_START + Math.floor(clock.now),
    factory,
    channels: [replication.channel],
    maxClients: 1,
  });
  const bits = emptySectionBits();
  const mirror = new ClientMirror({ types: [Cube], capacity: cubes });
  const link = new NetworkSimulator(network.createTransport('10.0.0.1:1'), {
    seed: condition.seed,
    outgoing: condition.link,
    incoming: condition.link,
  });
  const client = new MessageClient({
    transport: link,
    aead: nodeAead,
    factory,
    channels: [dissectingChannel(mirror, bits)],
  });

  const state = scene.initialState();
  const value: CubeValue = newCubeValue();
  const entities: Entity<CubeValue>[] = [];
  for (let k = 0; k < cubes; k++) entities.push(world.create(Cube, cubeValue(state, k, value)));
  // Server quantized lanes per tick, for the agreement check.
  const ring = new Uint32Array(RING * cubes * laneCount);
  const ringTick = new Float64Array(RING).fill(-1);
  let changedCubes = 0;
  const tick = (): void => {
    const t = world.tick();
    const slot = t % RING;
    ringTick[slot] = t;
    for (let k = 0; k < cubes; k++) {
      const history = world.histories[k]!;
      if (t > 1 && history.latestTick === t) changedCubes++;
      ring.set(history.latest!.lanes, (slot * cubes + k) * laneCount);
    }
  };
  const agrees = (t: number): boolean => {
    const slot = t % RING;
    if (ringTick[slot] !== t) throw new Error(`w3: no server state kept for tick ${t}`);
    for (let k = 0; k < cubes; k++) {
      const history = mirror.history(k);
      if (history === null) return false;
      const lanes = history.latest!.lanes;
      const at = (slot * cubes + k) * laneCount;
      for (let l = 0; l < laneCount; l++) if (lanes[l] !== ring[at + l]) return false;
    }
    return true;
  };
  tick();

  client.connect(
    generateConnectToken({
      protocolId: PROTOCOL_ID,
      privateKey,
      clientId: 1n,
      serverAddresses: [serverSocket.localAddress],
      now: UNIX_START,
      aead: nodeAead,
    }),
    clock.now,
  );
  const stats = serverSocket.stats();
  // Every server packet is encrypted: a prefix byte (sequence bytes in its high nibble), the
  // sequence, and the MAC. Counted at the socket, bench-only.
  let netcodeBytes = 0;
  const send = serverSocket.send.bind(serverSocket);
  serverSocket.send = (to, data) => {
    netcodeBytes += 1 + (data[0] >>> 4) + MAC_BYTES;
    send(to, data);
  };
  for (let i = 0; i < 600 && !client.connected; i++) {
    clock.now += 1 / HZ;
    server.update(clock.now);
    client.update(clock.now);
  }
  if (!client.connected) throw new Error(`w3 ${condition.name}: the client did not connect`);

  const traffic = new Traffic(frames, HZ);
  // The anatomy covers the frames alone, as the frame* figures do.
  Object.assign(bits, emptySectionBits(), { fromTick: world.serverTick + 1 });
  const startBytes = stats.bytesSent;
  const startDatagrams = stats.sent;
  const startNetcode = netcodeBytes;
  let sentBytes = 0; // the handshake and anything sent before the first frame count in it
  let sentDatagrams = 0;
  const moving = new Uint8Array(cubes);
  let movingCubes = 0;
  let received = 0;
  let agreeing = 0;
  let firstAgreeing = -1;
  let disagreeingAfter = 0;
  let lastTick = mirror.newestTick;
  for (let f = 1; f <= frames; f++) {
    clock.now += 1 / HZ;
    scene.step(state);
    for (let k = 0; k < cubes; k++) {
      // Only cubes that move, or just came to rest, are set: O(changed), as a game would.
      const still = state.rest[k] === 1;
      if (still && moving[k] === 0) continue;
      moving[k] = still ? 0 : 1;
      if (!still) movingCubes++;
      world.set(entities[k], cubeValue(state, k, value));
    }
    tick();
    server.update(clock.now);
    const datagrams = stats.sent - sentDatagrams;
    const bytes = stats.bytesSent - sentBytes;
    traffic.add(bytes, datagrams);
    sentBytes = stats.bytesSent;
    sentDatagrams = stats.sent;
    client.update(clock.now);
    const t = mirror.newestTick;
    if (t !== lastTick) {
      lastTick = t;
      received++;
      if (agrees(t)) {
        agreeing++;
        if (firstAgreeing < 0) firstAgreeing = f;
      } else if (firstAgreeing >= 0) disagreeingAfter++;
    }
  }
  // Quiet: no more changes; the mirror must reach the final state.
  bits.counting = false;
  const frameNetcodeBytes = netcodeBytes - startNetcode;
  const finalTick = world.serverTick;
  for (let i = 0; i < 120 && !(mirror.newestTick === finalTick && agrees(finalTick)); i++) {
    clock.now += 1 / HZ;
    server.update(clock.now);
    client.update(clock.now);
  }
  const finalAgrees = mirror.newestTick === finalTick && agrees(finalTick);
  return {
    condition,
    frames,
    rates: traffic.rates(firstAgreeing < 0 ? frames : firstAgreeing),
    movingCubes,
    changedCubes,
    received,
    agreeing,
    firstAgreeing,
    disagreeingAfter,
    finalAgrees,
    bits,
    frameBytes: traffic.rates(0).bytes - startBytes,
    frameDatagrams: traffic.rates(0).datagrams - startDatagrams,
    frameNetcodeBytes,
    fingerprint: scene.fingerprint(state),
  };
}
