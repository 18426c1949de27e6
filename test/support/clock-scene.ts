/**
 * A deterministic clock-sync scene without sockets: a server ticking at `tickRate` sends a packet
 * carrying its tick every `sendTicks` ticks; each is delayed by latency ± jitter (uniform) or lost;
 * the client samples the newest tick it has (as ClientMirror.newestTick does) with an RTT sample
 * made of two such delays plus the peer's wait before acking, and runs frames of random length.
 */
import { ClockSync, type ClockSyncOptions, TickClock } from '../../src/latency/index.js';
import { prng } from '../../src/random/prng.js';

export interface ClockSceneOptions {
  seed: number;
  seconds: number;
  tickRate?: number;
  sendTicks?: number;
  latencyMs: number;
  jitterMs: number;
  loss?: number;
  /** The client's lead over the server, ticks (0: track the server's tick). */
  lead?: number;
  /** The server's tick at local time 0 (fractional: its phase). */
  serverStart?: number;
  /** At this time the server's tick moves by `serverJumpBy` (a restart). */
  serverJumpAt?: number;
  serverJumpBy?: number;
  /** From this time on, no packet arrives. */
  silentFrom?: number;
  sync?: ClockSyncOptions;
}

export interface ClockFrame {
  now: number;
  /** estimate - truth, ticks (NaN before the first sample). */
  estimateError: number;
  /** clock position - (truth + lead), ticks (NaN before the first sample). */
  clockError: number;
  rate: number;
  tick: number;
  position: number;
}

export interface ClockSceneResult {
  frames: ClockFrame[];
  sync: ClockSync;
  clock: TickClock;
  jumps: { reason: string; from: number; to: number; now: number }[];
}

export function runClockScene(options: ClockSceneOptions): ClockSceneResult {
  const random = prng(options.seed);
  const tickRate = options.tickRate ?? 60;
  const T = 1 / tickRate;
  const sendTicks = options.sendTicks ?? 3;
  const lead = options.lead ?? 0;
  const start = options.serverStart ?? 5000 + random() * 1000;
  const jumpAt = options.serverJumpAt ?? Number.POSITIVE_INFINITY;
  const jumpBy = options.serverJumpBy ?? 0;
  const silentFrom = options.silentFrom ?? Number.POSITIVE_INFINITY;
  const delay = () => (options.latencyMs + (random() * 2 - 1) * options.jitterMs) / 1000;
  /** The server's true (fractional) tick at local time t. */
  const truth = (t: number) => start + t / T + (t >= jumpAt ? jumpBy : 0);

  // The server's packets: sent right after each sending tick, arriving after a random delay.
  const arrivals: { at: number; tick: number; rttMs: number; epoch: number }[] = [];
  const firstTick = Math.ceil(start);
  for (let tick = firstTick; ; tick++) {
    const sentAt = (tick - start) * T;
    if (sentAt > options.seconds) break;
    const serverTick = Math.floor(truth(sentAt) + 1e-9);
    if (tick % sendTicks !== 0 || random() < (options.loss ?? 0)) continue;
    const at = sentAt + delay();
    if (at >= silentFrom) continue;
    // The RTT the client measured by then: out and back, plus the peer's wait (≤ one tick) to ack.
    const rttMs = (delay() + delay() + random() * T) * 1000;
    arrivals.push({ at, tick: serverTick, rttMs, epoch: sentAt >= jumpAt ? 1 : 0 });
  }
  arrivals.sort((a, b) => a.at - b.at);

  const clock = new TickClock({ tickRate });
  const jumps: ClockSceneResult['jumps'] = [];
  let now = 0;
  const sync = new ClockSync(clock, {
    ...options.sync,
    onJump: (reason, from, to) => jumps.push({ reason, from, to, now }),
  });
  const frames: ClockFrame[] = [];
  let next = 0;
  let newest = Number.NEGATIVE_INFINITY;
  let epoch = 0;
  let rttMs = 0;
  for (; now <= options.seconds; now += 0.004 + random() * 0.016) {
    let fresh = false;
    while (next < arrivals.length && arrivals[next].at <= now) {
      const packet = arrivals[next++];
      // The mirror keeps the newest tick; after a restart (a new epoch) the ticks start again.
      if (packet.epoch < epoch) continue;
      rttMs = packet.rttMs;
      if (packet.epoch > epoch || packet.tick > newest) {
        epoch = packet.epoch;
        newest = packet.tick;
        fresh = true;
      }
    }
    if (fresh) sync.addSample(now, newest, rttMs);
    clock.advance(now);
    sync.update(now, lead);
    const synced = sync.synced;
    frames.push({
      now,
      estimateError: synced ? sync.estimate(now) - truth(now) : Number.NaN,
      clockError: synced ? clock.position - truth(now) - lead : Number.NaN,
      rate: clock.rate,
      tick: clock.tick,
      position: clock.position,
    });
  }
  return { frames, sync, clock, jumps };
}

/** The largest |error| of frames in [from, to). */
export function worst(
  frames: ClockFrame[],
  key: 'estimateError' | 'clockError',
  from: number,
  to: number,
): number {
  let most = 0;
  for (const f of frames) if (f.now >= from && f.now < to) most = Math.max(most, Math.abs(f[key]));
  return most;
}
