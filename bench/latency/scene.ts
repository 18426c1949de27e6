/**
 * The latency scene: the whole stack on a seeded, simulated link. A 60 Hz server world holds the
 * client's player, moved only by its inputs, and runners: remote entities on straight legs that
 * turn now and then. The client predicts its player, shows the runners an adaptive delay in the
 * past, and fires at runner 0 where it sees it; the server rewinds to what the client showed.
 * Deterministic for a seed: test/latency/latency-e2e.test.ts asserts on it, the latency bench prints it.
 */
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import {
  type ClockSyncOptions,
  compileInterpolator,
  GhostSampler,
  InputReceiver,
  InputSender,
  interpolationDelayTicks,
  LagCompensation,
  LatencyClient,
  Predictor,
  TickClock,
} from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';
import {
  ClientMirror,
  defineEntity,
  type EntityHistory,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { NetworkSimulator } from '../../src/transport/simulator.js';
import { messageSession } from '../../test/support/message-session.js';

export const TICK_RATE = 60;
/** Metres a tick a player walks along each axis. */
export const SPEED = 0.25;
const coordinate = t.float(-512, 512, 1 / 64);
/** The quantization step of positions and aims: a shot is a hit within one step. */
export const STEP = 1 / 64;

const place = t.object({ x: coordinate, y: coordinate });
export type Place = { x: number; y: number };
export const Player = defineEntity('player', place);
export const Runner = defineEntity('runner', place);
export const Move = t.object({
  mx: t.int(-1, 1),
  my: t.int(-1, 1),
  fire: t.bool(),
  aimX: coordinate,
  aimY: coordinate,
});
export type MoveValue = { mx: number; my: number; fire: boolean; aimX: number; aimY: number };

const clamp = (v: number) => Math.max(-500, Math.min(500, v));

/** The game's own deterministic step, run by the server and replayed by the client. */
export function walk(state: Place, input: MoveValue): Place {
  return { x: clamp(state.x + input.mx * SPEED), y: clamp(state.y + input.my * SPEED) };
}

export interface LatencySceneOptions {
  seed: number;
  seconds: number;
  latencyMs: number;
  jitterMs: number;
  /** Percent, each way. */
  loss: number;
  runners?: number;
  /** At this time (seconds after start) the server shoves the player by 3 m: a correction. */
  shoveAt?: number;
  /** Then again every this many seconds (default: once). */
  shoveEvery?: number;
  /** Seconds between shots at runner 0 (default 0.25). */
  shotInterval?: number;
  /** The client stops (a hidden tab) at this time for `stallSeconds`: no update, no frame. */
  stallAt?: number;
  stallSeconds?: number;
  /** The client's clock sync (default ClockSync's). */
  sync?: ClockSyncOptions;
  /** The server's input buffer target, ticks (default InputReceiver's). */
  bufferTicks?: number;
}

export interface LatencySceneResult {
  seed: number;
  /** Reconciliations, and those whose prediction differed from the server's state. */
  reconciliations: number;
  mispredictions: number;
  /** Times (seconds from start) of each misprediction. */
  mispredictedAt: number[];
  /** Size of each correction (metres). */
  corrections: number[];
  /** Shots fired and those within one quantization step of the server's rewound runner. */
  shots: number;
  hits: number;
  /** The largest distance between a shot's aim and the rewound runner (metres). */
  worstShotError: number;
  /** Interpolated runner positions that went back in time, or left the segment they lie on. */
  backwards: number;
  outside: number;
  /** Samples past the newest state (starved) of all runner samples. */
  starved: number;
  samples: number;
  /** The adaptive delay at the end and its mean after 2 s, ticks; Fiedler's 3 packet intervals. */
  delayTicks: number;
  meanDelayTicks: number;
  fiedlerTicks: number;
  /** Clock-sync error (estimate − the server's true position) by time, ticks. */
  clockErrors: { at: number; error: number }[];
  /** Input bytes the client sent per second, and the server's ticks that repeated an input after 2 s. */
  inputBytesPerSecond: number;
  repeatedInputs: number;
  /** Ticks from a changed input to the displayed player moving: predicted, and shown from the mirror. */
  predictedDisplayDelayTicks: number;
  mirrorDisplayDelayTicks: number;
  rttMs: number;
}

const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(8) }))]);

export function runLatencyScene(options: LatencySceneOptions): LatencySceneResult {
  const { seed, seconds, latencyMs, jitterMs, loss } = options;
  const next = prng(seed);
  const runnerCount = options.runners ?? 4;
  const world = new ServerWorld({ types: [Player, Runner], capacity: 16 });
  const replication = new ReplicationServer({ world, maxClients: 1 });
  const inputs = new InputReceiver({
    schema: Move,
    tickRate: TICK_RATE,
    maxClients: 1,
    ...(options.bufferTicks === undefined ? {} : { bufferTicks: options.bufferTicks }),
  });
  const lerp = compileInterpolator(Runner.schema);
  const lag = new LagCompensation({
    interpolator: lerp,
    tickRate: TICK_RATE,
    capacity: world.capacity,
    maxClients: 1,
    layout: Runner.layout,
    bounds: (s: Place, out: Float64Array) => {
      out[0] = s.x - 0.5;
      out[1] = s.y - 0.5;
      out[3] = s.x + 0.5;
      out[4] = s.y + 0.5;
      out[2] = out[5] = 0;
    },
  });
  const session = messageSession({
    protocolId: 93n,
    factory,
    channels: [replication.channel, inputs.channel],
    maxClients: 1,
  });
  const mirror = new ClientMirror({ types: [Player, Runner], capacity: 16 });
  const sender = new InputSender({ schema: Move });
  const link = new NetworkSimulator(session.network.createTransport('10.0.0.1:1'), { seed });
  const client = new MessageClient({
    transport: link,
    aead: nobleAead,
    factory,
    channels: [mirror.channel, sender.channel],
  });
  const { clock } = session;
  const conditions = { latency: latencyMs, jitter: jitterMs, loss };
  link.setConditions('outgoing', conditions);
  link.setConditions('incoming', conditions);
  client.connect(session.token(1n), clock.now);
  for (let i = 0; i < 150 && !client.connected; i++) session.tick([client], 1 / 30);
  if (!client.connected) throw new Error(`seed ${seed}: the client did not connect`);

  // The server: the player and the runners, stepped by a TickClock.
  const player = world.create(Player, { x: 0, y: 0 });
  world.setOwner(player, 0);
  const runners = Array.from({ length: runnerCount }, (_, i) =>
    world.create(Runner, { x: 20 + i * 5, y: -10 + i * 5 }),
  );
  const headings = runners.map(() => next() * 2 * Math.PI);
  const serverClock = new TickClock({ tickRate: TICK_RATE, startTick: world.tick() });
  const start = clock.now;
  serverClock.advance(start);
  let shots = 0;
  let hits = 0;
  let worstShotError = 0;
  const scratch = new Float64Array(6); // the shot's box: 1 m around the aim, flat in z
  let shoved = options.shoveAt === undefined;
  let nextShove = options.shoveAt ?? 0;

  const serverTick = (tick: number) => {
    const input = inputs.take(0, tick);
    const now = clock.now - start;
    if (input !== null) {
      world.set(player, walk(world.get(player), input));
      if (input.fire) {
        const view = inputs.viewTick(0);
        if (!Number.isFinite(view)) throw new Error('a shot without the tick the client showed');
        const base = Math.floor(view);
        let error = Number.POSITIVE_INFINITY;
        scratch[0] = input.aimX - 1;
        scratch[1] = input.aimY - 1;
        scratch[3] = input.aimX + 1;
        scratch[4] = input.aimY + 1;
        lag.rewind(0, base, view - base, scratch, (id, state: Place) => {
          if (id === runners[0].id) error = Math.hypot(state.x - input.aimX, state.y - input.aimY);
        });
        shots++;
        if (error <= STEP) hits++;
        if (Number.isFinite(error)) worstShotError = Math.max(worstShotError, error);
        else worstShotError = Number.POSITIVE_INFINITY;
      }
    }
    if (!shoved && now >= nextShove) {
      if (options.shoveEvery === undefined) shoved = true;
      else nextShove += options.shoveEvery;
      const p = world.get(player);
      world.set(player, { x: clamp(p.x + 3), y: p.y });
    }
    // Runners walk straight legs, turning about every 2 s.
    for (let i = 0; i < runners.length; i++) {
      if (next() < 1 / 120) headings[i] = next() * 2 * Math.PI;
      const r = world.get(runners[i]);
      world.set(runners[i], {
        x: clamp(r.x + Math.cos(headings[i]) * 0.1),
        y: clamp(r.y + Math.sin(headings[i]) * 0.1),
      });
    }
    if (world.tick() !== tick) throw new Error('the server tick and the world tick differ');
    for (const runner of runners) lag.record(tick, runner.id, world.get(runner));
  };

  // The client: LatencyClient leads the server with its prediction clock and shows the runners
  // behind the adaptive delay.
  const latency = new LatencyClient<Place, MoveValue>({
    tickRate: TICK_RATE,
    mirror,
    inputs: sender,
    predictor: new Predictor<Place, MoveValue>({
      schema: Player.schema,
      simulate: (state, input) => walk(state, input),
      tickRate: TICK_RATE,
    }),
    rttSample: () => client.client.endpoint?.rttSample ?? 0,
    sendView: (input) => input.fire,
    sync: options.sync,
  });
  latency.follow(player.id);
  const predictor = latency.predictor as Predictor<Place, MoveValue>;
  const samplers = runners.map(() => new GhostSampler(lerp));
  const mispredictedAt: number[] = [];
  const corrections: number[] = [];
  const clockErrors: { at: number; error: number }[] = [];
  let backwards = 0;
  let outside = 0;
  let starved = 0;
  let samples = 0;
  let delaySum = 0;
  let delayCount = 0;
  const lastShown = runners.map(() => Number.NEGATIVE_INFINITY);
  let move: MoveValue = { mx: 1, my: 0, fire: false, aimX: 0, aimY: 0 };
  let nextShot = 2;
  let mispredictions = 0;
  /** Input ticks where the input changed, with the local time it was pushed; and their delays. */
  const changes: { tick: number; at: number }[] = [];
  let nextChange = 0;
  let mirrorDelaySum = 0;
  let mirrorDelayCount = 0;
  let nextPredicted = 0;
  let predictedDelaySum = 0;
  let predictedDelayCount = 0;

  // The game's input each predicted tick: wander, and now and then fire at runner 0 where it is shown.
  const produce = (tick: number): MoveValue => {
    const now = clock.now - start;
    if (next() < 1 / 40) {
      const mx = Math.floor(next() * 3) - 1;
      const my = Math.floor(next() * 3) - 1;
      if (mx !== move.mx || my !== move.my) changes.push({ tick, at: clock.now });
      move = { ...move, mx, my };
    }
    const view = samplers[0];
    if (now < nextShot || view.mode !== 'interpolated') return move;
    nextShot = now + (options.shotInterval ?? 0.25);
    return { ...move, fire: true, aimX: view.value.x, aimY: view.value.y };
  };

  let sampled = -1;
  let starvedAtTwo = 0;
  while (clock.now - start < seconds) {
    clock.now += 0.004 + next() * 0.012;
    const now = clock.now - start;
    serverClock.advance(clock.now, serverTick);
    session.server.update(clock.now);
    if (
      options.stallAt !== undefined &&
      now >= options.stallAt &&
      now < options.stallAt + (options.stallSeconds ?? 0)
    )
      continue;
    client.update(clock.now);
    const before = predictor.stats.mispredictions;
    latency.frame(clock.now, produce);
    if (predictor.stats.mispredictions > before) {
      mispredictions++;
      mispredictedAt.push(now);
      corrections.push(predictor.stats.lastCorrection);
    }
    // With prediction a changed input shows in the frame whose prediction first holds its tick:
    // the ticks the clock has run past it by then.
    while (
      latency.predicting &&
      nextPredicted < changes.length &&
      predictor.tick >= changes[nextPredicted].tick
    ) {
      if (now >= 2) {
        predictedDelaySum += latency.clock.tick - changes[nextPredicted].tick;
        predictedDelayCount++;
      }
      nextPredicted++;
    }
    if (mirror.newestTick !== sampled) {
      sampled = mirror.newestTick;
      // Without prediction a changed input shows once the state after it arrives: a round trip
      // and the input buffer later.
      const applied = sender.appliedInputTick(sampled);
      while (nextChange < changes.length && changes[nextChange].tick <= applied) {
        if (now >= 2) {
          mirrorDelaySum += (clock.now - changes[nextChange].at) * TICK_RATE;
          mirrorDelayCount++;
        }
        nextChange++;
      }
    }
    if (!latency.sync.synced) continue;
    clockErrors.push({ at: now, error: latency.sync.estimate(clock.now) - serverClock.position });
    const renderTick = latency.renderTick;
    if (Number.isNaN(renderTick)) continue;
    if (now < 2) starvedAtTwo = inputs.stats(0)?.starved ?? 0;
    if (now >= 2) {
      delaySum += latency.delay.ticks;
      delayCount++;
    }
    for (let i = 0; i < runners.length; i++) {
      const history = mirror.history(runners[i].id);
      if (history === null) continue;
      const shown = samplers[i].sample(history, renderTick);
      if (shown === null) continue;
      samples++;
      if (samplers[i].shownTick < lastShown[i]) backwards++;
      lastShown[i] = samplers[i].shownTick;
      if (samplers[i].mode === 'interpolated' && !between(history, samplers[i].shownTick, shown)) outside++;
    }
  }
  for (const s of samplers) starved += s.starved;
  const stats = sender.stats;
  return {
    seed,
    reconciliations: predictor.stats.reconciliations,
    mispredictions,
    mispredictedAt,
    corrections,
    shots,
    hits,
    worstShotError,
    backwards,
    outside,
    starved,
    samples,
    delayTicks: latency.delay.ticks,
    meanDelayTicks: delayCount === 0 ? Number.NaN : delaySum / delayCount,
    fiedlerTicks: interpolationDelayTicks(1),
    clockErrors,
    inputBytesPerSecond: stats.inputBits / 8 / seconds,
    repeatedInputs: (inputs.stats(0)?.starved ?? 0) - starvedAtTwo,
    predictedDisplayDelayTicks:
      predictedDelayCount === 0 ? Number.NaN : predictedDelaySum / predictedDelayCount,
    mirrorDisplayDelayTicks: mirrorDelayCount === 0 ? Number.NaN : mirrorDelaySum / mirrorDelayCount,
    rttMs: client.client.endpoint?.rtt ?? 0,
  };
}

/**
 * Whether an interpolated position lies between the two received states around its tick (within
 * a rounding hair): the box they span, from the mirror's own history.
 */
function between(history: EntityHistory, tick: number, shown: Place): boolean {
  for (let k = 0; k + 1 < history.size; k++) {
    const newer = history.tickAt(k);
    const older = history.tickAt(k + 1);
    if (!(older <= tick && tick <= newer)) continue;
    const a = history.layout.dequantize(history.stateAt(k + 1)) as Place;
    const b = history.layout.dequantize(history.stateAt(k)) as Place;
    const hair = 1e-9;
    return (
      shown.x >= Math.min(a.x, b.x) - hair &&
      shown.x <= Math.max(a.x, b.x) + hair &&
      shown.y >= Math.min(a.y, b.y) - hair &&
      shown.y <= Math.max(a.y, b.y) + hair
    );
  }
  return history.size > 0 && tick === history.latestTick;
}
