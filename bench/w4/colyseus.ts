/**
 * The W4 arena (bench/w4/scene.ts) replicated through @colyseus/schema 5's StateView, the way a
 * Colyseus room does it, so ghostwire's W4 figures have a peer measured on the same world.
 *
 * State: `W4State { entities: t.map(W4Entity).view() }`, keyed by the entity id as a string;
 * `W4Entity { x: uint32, y: uint32, heading: uint16, kind: uint8 }` holding the very integers
 * ghostwire's W4 schema sends (x, y at 1/64 m, heading at 0.01 rad): the same quantization, in
 * Colyseus's narrowest fixed-width types (t.quantized would cost the same 4 / 2 bytes). Because
 * the map is tagged `.view()`, an entity reaches a client only once its StateView `add`s it, and
 * `remove` sends that client a DELETE.
 *
 * Per tick, each phase timed (wall and this process's CPU):
 *   mutate    quantize every entity and assign the fields that changed (Colyseus records each
 *             assignment in the entity's change tree)
 *   interest  the game's relevancy, user code in a Colyseus game: every entity moved in a grid,
 *             every client's relevant set refreshed (ghostwire's InterestManager, so both sides
 *             use the same grid and the same relevant sets: enter 150 m, leave 172.5 m)
 *   views     the entered / left entities applied with view.add / view.remove
 *   encode    what @colyseus/core's SchemaSerializer.applyPatches does for a room with filters,
 *             less the send: the ROOM_STATE_PATCH byte, one shared encoder.encode(it), then
 *             encoder.encodeView(view, sharedOffset, it) per client (each returns a copy), then
 *             encoder.discardChanges()
 * "With view maintenance" is all four; "without" is mutate + encode. The scene's own motion is
 * untimed. Decoders on the first `verifyClients` clients decode their bytes (untimed) and are
 * compared every tick with the server's quantized state of exactly that client's relevant set.
 */
import { Decoder, Encoder, type SchemaType, StateView, schema, t } from '@colyseus/schema';
import { InterestManager } from '../../src/replication/interest-manager.js';
import {
  followedEntity,
  type QuantizedEntity,
  quantizeEntity,
  W4_LEAVE_FACTOR,
  W4_MAP,
  W4_RADIUS,
  W4Scene,
} from './scene.js';

const CsW4Entity = schema({ x: t.uint32(), y: t.uint32(), heading: t.uint16(), kind: t.uint8() }, 'W4Entity');
type CsW4Entity = SchemaType<typeof CsW4Entity>;
const CsW4State = schema({ entities: t.map(CsW4Entity).view() }, 'W4State');
type CsW4State = SchemaType<typeof CsW4State>;

export interface ColyseusW4Options {
  entities: number;
  clients: number;
  /** Measured ticks. */
  ticks: number;
  /** Ticks run before measuring (the first one carries every client's creates). */
  warmupTicks: number;
  seed: number;
  /** Enter radius in metres (default 150); entities leave beyond radius × 1.15. */
  radius?: number;
  /** Clients with a Decoder checked every tick (default 1; 0 skips the check). */
  verifyClients?: number;
  /**
   * Retained memory (e.g. heap + array buffers after full collections), sampled before the
   * clients' views are made, at the start of the measured ticks and at the end: gives memory
   * per client and heap growth. Left out, those figures are NaN.
   */
  retained?: () => number;
}

export const PHASES = ['mutate', 'interest', 'views', 'encode'] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseTimes {
  cpuMs: number;
  wallMs: number;
}

export interface ColyseusW4Result {
  entities: number;
  clients: number;
  ticks: number;
  /** Median per tick of each phase. */
  phases: Record<Phase, PhaseTimes>;
  /** Median per tick of mutate + interest + views + encode, CPU time of this process. */
  cpuMsPerTick: number;
  /** Median per tick of mutate + encode (view maintenance left out). */
  cpuMsPerTickWithoutViews: number;
  wallMsPerTick: number;
  wallMsPerTickWithoutViews: number;
  /** Median over ticks of the schema bytes per client (encodeView's message less its protocol byte). */
  bytesPerClientPerTick: number;
  /** The whole message (protocol byte included) plus its WebSocket frame header. */
  webSocketBytesPerClientPerTick: number;
  /** The same plus 28 B of IPv4 + UDP per tick message (to compare with a UDP stack). */
  udpBytesPerClientPerTick: number;
  /** kbit/s per client at 20 Hz of bytesPerClientPerTick, webSocket… and udp… respectively. */
  kbitPerClient: number;
  webSocketKbitPerClient: number;
  udpKbitPerClient: number;
  /** Mean relevant entities per client and mean entered + left per client per tick. */
  relevantPerClient: number;
  churnPerClientPerTick: number;
  /** Bytes of the shared encode() (the part every client's message starts with). */
  sharedBytesPerTick: number;
  /** Entities compared between a decoder and the server, and how many differed. */
  compared: number;
  mismatches: number;
  /** The first mismatch, described, or '' when none. */
  firstMismatch: string;
  /** Retained memory per client (its interest view, StateView and what the encoder keeps for it), bytes. */
  bytesPerClient: number;
  /** Retained memory at the end of the measured ticks minus at their start, bytes. */
  heapGrowthBytes: number;
}

const HZ = 20;
const UDP_IPV4_HEADERS = 28;

/** Server → client WebSocket frame header bytes for a binary payload of `length` (unmasked). */
export function webSocketHeaderBytes(length: number): number {
  return length < 126 ? 2 : length < 65536 ? 4 : 10;
}

function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

interface World {
  scene: W4Scene;
  state: CsW4State;
  entities: CsW4Entity[];
  encoder: Encoder<CsW4State>;
  interest: InterestManager;
  views: StateView[];
  decoders: Decoder<CsW4State>[];
  /** Retained memory before the clients' views were made (NaN when not sampled). */
  withoutClients: number;
}

function build(options: ColyseusW4Options): World {
  const { entities: count, clients } = options;
  const scene = new W4Scene(count, options.seed);
  const state = new CsW4State();
  // The encoder first, so the entities' creation is a change like any later one.
  const encoder = new Encoder(state);
  const entities: CsW4Entity[] = [];
  const q: QuantizedEntity = { x: 0, y: 0, heading: 0, kind: 0 };
  for (let id = 0; id < count; id++) {
    quantizeEntity(scene, id, q);
    const e = new CsW4Entity();
    e.x = q.x;
    e.y = q.y;
    e.heading = q.heading;
    e.kind = q.kind;
    state.entities.set(String(id), e);
    entities.push(e);
  }
  const radius = options.radius ?? W4_RADIUS;
  const interest = new InterestManager({
    world: { capacity: count, min: [0, 0], max: [W4_MAP, W4_MAP], cellSize: radius / 2 },
    maxClients: clients,
  });
  for (let id = 0; id < count; id++) interest.addEntity(id, scene.x[id], scene.y[id]);
  const views: StateView[] = [];
  const withoutClients = options.retained?.() ?? Number.NaN;
  for (let c = 0; c < clients; c++) {
    interest.addView(c, {
      enterRadius: radius,
      leaveFactor: W4_LEAVE_FACTOR,
      follow: followedEntity(c, count),
    });
    views.push(new StateView());
  }
  const verify = Math.min(options.verifyClients ?? 1, clients);
  const decoders: Decoder<CsW4State>[] = [];
  for (let c = 0; c < verify; c++) decoders.push(new Decoder(new CsW4State()));
  return { scene, state, entities, encoder, interest, views, decoders, withoutClients };
}

function mutate(w: World, q: QuantizedEntity): void {
  const { scene, entities } = w;
  for (let id = 0; id < scene.count; id++) {
    quantizeEntity(scene, id, q);
    const e = entities[id];
    // Only what changed: a Colyseus setter records every assignment.
    if (e.x !== q.x) e.x = q.x;
    if (e.y !== q.y) e.y = q.y;
    if (e.heading !== q.heading) e.heading = q.heading;
  }
}

function refreshInterest(w: World): void {
  const { scene, interest } = w;
  for (let id = 0; id < scene.count; id++) interest.moveEntity(id, scene.x[id], scene.y[id]);
  interest.update();
}

/** Applies every view's left, then entered, list; returns entered + left. */
function applyViews(w: World): number {
  let churn = 0;
  const { entities, views } = w;
  for (const iv of w.interest.allViews) {
    const view = views[iv.client];
    for (let i = 0; i < iv.left.length; i++) view.remove(entities[iv.left.items[i]]);
    for (let i = 0; i < iv.entered.length; i++) view.add(entities[iv.entered.items[i]]);
    churn += iv.left.length + iv.entered.length;
  }
  return churn;
}

/** @colyseus/core's Protocol.ROOM_STATE_PATCH, the first byte of every patch message. */
const ROOM_STATE_PATCH = 15;

/**
 * Encodes the tick for every client as a room's SchemaSerializer does (the protocol byte first,
 * one shared encode, encodeView per client on the same growing iterator, discardChanges);
 * fills `sizes` and the verified clients' messages.
 */
function encodeAll(
  w: World,
  sizes: { raw: number; webSocket: number; shared: number },
  out: Uint8Array[],
): void {
  const { encoder, views } = w;
  const it = { offset: 1 };
  encoder.sharedBuffer[0] = ROOM_STATE_PATCH;
  encoder.encode(it);
  const shared = it.offset;
  let raw = 0;
  let webSocket = 0;
  for (let c = 0; c < views.length; c++) {
    const message = encoder.encodeView(views[c], shared, it);
    raw += message.length - 1;
    webSocket += message.length + webSocketHeaderBytes(message.length);
    if (c < out.length) out[c] = message;
  }
  encoder.discardChanges();
  sizes.raw = raw;
  sizes.webSocket = webSocket;
  sizes.shared = shared - 1;
}

/** Compares client `c`'s decoded state with the server's: [compared, mismatches, the first described]. */
function check(w: World, c: number, q: QuantizedEntity): [number, number, string] {
  const decoded = w.decoders[c].state.entities;
  const iv = w.interest.allViews[c];
  let mismatches = 0;
  let first = '';
  const miss = (text: string) => {
    mismatches++;
    if (first === '') first = `client ${c}, tick ${w.scene.tick}: ${text}`;
  };
  if (decoded.size !== iv.count) miss(`${decoded.size} entities decoded, ${iv.count} relevant`);
  for (let slot = 0; slot < iv.count; slot++) {
    const id = iv.ids[slot];
    const e = decoded.get(String(id));
    quantizeEntity(w.scene, id, q);
    if (e === undefined) miss(`relevant entity ${id} missing`);
    else if (e.x !== q.x || e.y !== q.y || e.heading !== q.heading || e.kind !== q.kind)
      miss(`entity ${id} decoded ${JSON.stringify(e.toJSON())}, server ${JSON.stringify({ ...q })}`);
  }
  return [iv.count, mismatches, first];
}

export function runColyseusW4(options: ColyseusW4Options): ColyseusW4Result {
  const { clients, ticks, warmupTicks } = options;
  for (const [name, value, min] of [
    ['clients', clients, 1],
    ['ticks', ticks, 1],
    ['warmupTicks', warmupTicks, 1],
  ] as const)
    if (!Number.isInteger(value) || value < min)
      throw new RangeError(`runColyseusW4: ${name} must be an integer >= ${min}, got ${value}`);
  const w = build(options);
  const q: QuantizedEntity = { x: 0, y: 0, heading: 0, kind: 0 };
  const cpu = PHASES.map(() => new Float64Array(ticks));
  const wall = PHASES.map(() => new Float64Array(ticks));
  const raw = new Float64Array(ticks);
  const webSocket = new Float64Array(ticks);
  const shared = new Float64Array(ticks);
  const sizes = { raw: 0, webSocket: 0, shared: 0 };
  const out: Uint8Array[] = w.decoders.map(() => new Uint8Array(0));
  let relevant = 0;
  let churn = 0;
  let compared = 0;
  let mismatches = 0;
  let firstMismatch = '';
  const phaseCpu = new Float64Array(PHASES.length);
  const phaseWall = new Float64Array(PHASES.length);
  const timed = (phase: number, run: () => void) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    run();
    phaseWall[phase] = performance.now() - t0;
    const used = process.cpuUsage(c0);
    phaseCpu[phase] = (used.user + used.system) / 1000;
  };
  let tickChurn = 0;
  let heapStart = Number.NaN;
  for (let tick = 0; tick < warmupTicks + ticks; tick++) {
    if (tick === warmupTicks) heapStart = options.retained?.() ?? Number.NaN;
    // The first tick's views are filled from the start positions; after that the scene moves.
    if (tick > 0) w.scene.step();
    timed(0, () => mutate(w, q));
    timed(1, () => refreshInterest(w));
    timed(2, () => {
      tickChurn = applyViews(w);
    });
    timed(3, () => encodeAll(w, sizes, out));
    for (let c = 0; c < w.decoders.length; c++) {
      w.decoders[c].decode(out[c], { offset: 1 });
      const [n, bad, first] = check(w, c, q);
      compared += n;
      mismatches += bad;
      if (firstMismatch === '') firstMismatch = first;
    }
    if (tick < warmupTicks) continue;
    const m = tick - warmupTicks;
    for (let p = 0; p < PHASES.length; p++) {
      cpu[p][m] = phaseCpu[p];
      wall[p][m] = phaseWall[p];
    }
    raw[m] = sizes.raw / clients;
    webSocket[m] = sizes.webSocket / clients;
    shared[m] = sizes.shared;
    for (const iv of w.interest.allViews) relevant += iv.count;
    churn += tickChurn;
  }
  const heapEnd = options.retained?.() ?? Number.NaN;
  // The decoders are the clients' side: dropped before counting what the server holds.
  w.decoders.length = 0;
  out.length = 0;
  const withClients = options.retained?.() ?? Number.NaN;
  return summarize(
    options,
    { cpu, wall, raw, webSocket, shared },
    {
      relevant,
      churn,
      compared,
      mismatches,
      firstMismatch,
      bytesPerClient: (withClients - w.withoutClients) / clients,
      heapGrowthBytes: heapEnd - heapStart,
    },
  );
}

function summarize(
  options: ColyseusW4Options,
  series: {
    cpu: Float64Array[];
    wall: Float64Array[];
    raw: Float64Array;
    webSocket: Float64Array;
    shared: Float64Array;
  },
  counts: {
    relevant: number;
    churn: number;
    compared: number;
    mismatches: number;
    firstMismatch: string;
    bytesPerClient: number;
    heapGrowthBytes: number;
  },
): ColyseusW4Result {
  const { clients, ticks } = options;
  const sum = (of: Float64Array[], phases: readonly Phase[]) => {
    const total = new Float64Array(ticks);
    for (const phase of phases) {
      const s = of[PHASES.indexOf(phase)];
      for (let i = 0; i < ticks; i++) total[i] += s[i];
    }
    return median(total);
  };
  const phases = {} as Record<Phase, PhaseTimes>;
  PHASES.forEach((phase, p) => {
    phases[phase] = { cpuMs: median(series.cpu[p]), wallMs: median(series.wall[p]) };
  });
  const bytes = median(series.raw);
  const webSocketBytes = median(series.webSocket);
  const kbit = (b: number) => (b * 8 * HZ) / 1000;
  return {
    entities: options.entities,
    clients,
    ticks,
    phases,
    cpuMsPerTick: sum(series.cpu, PHASES),
    cpuMsPerTickWithoutViews: sum(series.cpu, ['mutate', 'encode']),
    wallMsPerTick: sum(series.wall, PHASES),
    wallMsPerTickWithoutViews: sum(series.wall, ['mutate', 'encode']),
    bytesPerClientPerTick: bytes,
    webSocketBytesPerClientPerTick: webSocketBytes,
    udpBytesPerClientPerTick: bytes + UDP_IPV4_HEADERS,
    kbitPerClient: kbit(bytes),
    webSocketKbitPerClient: kbit(webSocketBytes),
    udpKbitPerClient: kbit(bytes + UDP_IPV4_HEADERS),
    relevantPerClient: counts.relevant / ticks / clients,
    churnPerClientPerTick: counts.churn / ticks / clients,
    sharedBytesPerTick: median(series.shared),
    compared: counts.compared,
    mismatches: counts.mismatches,
    firstMismatch: counts.firstMismatch,
    bytesPerClient: counts.bytesPerClient,
    heapGrowthBytes: counts.heapGrowthBytes,
  };
}
