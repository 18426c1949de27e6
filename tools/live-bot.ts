/**
 * A bot's side of the arena `npm start` plays: its mirror of what is near its avatar, its input
 * channel, and a LatencyClient that predicts the avatar (reconciled with each snapshot, from the
 * input ticks the server reports applied) and places the render tick the orbs are interpolated
 * at. The bot walks a circle of its own (so bots spread out) and now and then zaps the orb it
 * shows nearest; the figures the live table and summary print are kept here.
 */

import { GhostSampler, InputSender, LatencyClient, Predictor } from '../src/latency/index.js';
import { ClientMirror, type Ghost } from '../src/replication/index.js';
import {
  ARENA,
  Avatar,
  AvatarPlace,
  type AvatarValue,
  CAPACITY,
  Orb,
  type OrbValue,
  orbLerp,
  type Place,
  TICK_RATE,
  types,
  Walk,
  type WalkValue,
  walk,
} from './live-arena.js';

/** Ticks between a bot's zaps (half a second). */
const ZAP_EVERY = 30;
const STILL: WalkValue = { dx: 0, dy: 0, zap: false, target: 0, aimX: 0, aimY: 0 };

/**
 * Who steers instead of the bot's circle (a player's keys): the step wanted at predicted tick
 * `tick` from `from` (null: the avatar not yet known), and whether to zap the orb shown nearest.
 */
export type Steer = (tick: number, from: Place | null) => { dx: number; dy: number; zap: boolean };

export class ArenaBot {
  readonly mirror = new ClientMirror({ types, capacity: CAPACITY });
  readonly sender = new InputSender({ schema: Walk });
  readonly latency: LatencyClient<Place, WalkValue>;
  readonly predictor: Predictor<Place, WalkValue>;
  /** Corrections (metres) summed over the mispredictions seen, for their mean. */
  correctionSum = 0;
  corrections = 0;
  /** Predictions restarted (LatencyClient.restarts: a stall, or the server ahead of the inputs). */
  get restarts(): number {
    return this.latency.restarts;
  }
  /** Whether the last reconcile found the prediction equal to the server's state. */
  lastReconcileMatched = false;
  /** Orb samples made at the render tick, and those interpolated between two received states. */
  samples = 0;
  interpolated = 0;
  /** Clock-sync error (estimate − the server's true position, ticks): the newest, and |error| once settled. */
  syncError = Number.NaN;
  syncErrorSum = 0;
  syncErrorMax = 0;
  syncErrorCount = 0;
  private syncedAt = Number.NaN;
  /** Mispredictions when the bot settled (2 s after its clock synced; -1 before): the start's transients apart. */
  mispredictionsAtSettle = -1;
  /** Whether 2 s have passed since the clock synced: the figures since leave the start's transients out. */
  get settled(): boolean {
    return this.mispredictionsAtSettle >= 0;
  }

  /** Set when the session drains: the bot stops walking; the first still input's tick. */
  still = false;
  stillFrom = -1;
  /** The orbs shown at the last frame's render tick: ids and places of the first `orbsShown`. */
  readonly orbIds = new Int32Array(CAPACITY);
  readonly orbPlaces = new Float64Array(2 * CAPACITY);
  orbsShown = 0;
  private readonly samplers: (GhostSampler<OrbValue> | null)[] = new Array(CAPACITY).fill(null);
  private avatarId = -1;
  /** The orb shown nearest the avatar at the last render tick (id -1: none interpolated). */
  private aim = { id: -1, x: 0, y: 0 };
  private nextZap = 0;
  private readonly produce = (tick: number): WalkValue => this.input(tick);

  constructor(
    readonly bot: number,
    rttSample: () => number,
    private readonly steer?: Steer,
  ) {
    this.predictor = new Predictor<Place, WalkValue>({
      schema: AvatarPlace,
      simulate: (state, input) => walk(state, input),
      tickRate: TICK_RATE,
    });
    this.latency = new LatencyClient<Place, WalkValue>({
      tickRate: TICK_RATE,
      mirror: this.mirror,
      inputs: this.sender,
      predictor: this.predictor,
      rttSample,
      // Only a zap needs the render tick the bot showed; other inputs repeat its offset at a bit.
      sendView: (input) => input.zap,
    });
  }

  /** The bot's own avatar, once its ghost arrived (found by its `bot` field, then by its id). */
  avatar(): Ghost<AvatarValue> | null {
    const known = this.avatarId < 0 ? null : this.mirror.ghost(this.avatarId);
    if (known !== null && known.type === Avatar) return known as Ghost<AvatarValue>;
    for (let id = 0; id < CAPACITY; id++) {
      const ghost = this.mirror.ghost(id) as Ghost<AvatarValue> | null;
      if (ghost !== null && ghost.type === Avatar && ghost.value.bot === this.bot) {
        this.avatarId = id;
        return ghost;
      }
    }
    return null;
  }

  /** Where the bot is drawn: the prediction (smoothed), else the mirror's ghost, else null. */
  shown(): Place | null {
    return this.latency.shown() ?? this.avatar()?.value ?? null;
  }

  /**
   * One frame at `now` (seconds), after `client.update(now)`: predicts and reconciles the avatar,
   * pushes the due inputs, then samples every orb mirrored at the render tick. `serverPosition`
   * is the server clock's true position now (in-process, so clock sync can be checked).
   */
  frame(now: number, serverPosition: number): void {
    const avatar = this.avatar();
    if (avatar !== null && this.latency.following !== avatar.id) this.latency.follow(avatar.id);
    const p = this.predictor.stats;
    const reconciled = p.reconciliations + p.historyMisses;
    const mispredicted = p.mispredictions;
    this.latency.frame(now, this.produce);
    if (p.mispredictions > mispredicted) {
      this.corrections++;
      this.correctionSum += p.lastCorrection;
      this.lastReconcileMatched = false;
    } else if (p.reconciliations + p.historyMisses > reconciled) this.lastReconcileMatched = true;
    this.sample(this.latency.renderTick);
    if (!this.latency.sync.synced) return;
    this.syncError = this.latency.sync.estimate(now) - serverPosition;
    if (Number.isNaN(this.syncedAt)) this.syncedAt = now;
    if (now - this.syncedAt < 2) return;
    if (this.mispredictionsAtSettle < 0) this.mispredictionsAtSettle = this.predictor.stats.mispredictions;
    const size = Math.abs(this.syncError);
    this.syncErrorSum += size;
    this.syncErrorCount++;
    if (size > this.syncErrorMax) this.syncErrorMax = size;
  }

  /** Every orb mirrored, shown at `renderTick`; the one nearest the avatar is the next zap's aim. */
  private sample(renderTick: number): void {
    this.aim.id = -1;
    this.orbsShown = 0;
    if (Number.isNaN(renderTick)) return;
    const me = this.shown();
    let best = Number.POSITIVE_INFINITY;
    for (let id = 0; id < CAPACITY; id++) {
      const ghost = this.mirror.ghost(id);
      const history = this.mirror.history(id);
      if (ghost === null || ghost.type !== Orb || history === null) continue;
      // Orbs rest two ticks in three: extrapolating their last step would show motion that stopped.
      let sampler = this.samplers[id];
      if (sampler === null) {
        sampler = new GhostSampler(orbLerp, { maxExtrapolationTicks: 0 });
        this.samplers[id] = sampler;
      }
      const orb = sampler.sample(history, renderTick);
      if (orb === null) continue;
      this.samples++;
      this.orbIds[this.orbsShown] = id;
      this.orbPlaces[2 * this.orbsShown] = orb.x;
      this.orbPlaces[2 * this.orbsShown + 1] = orb.y;
      this.orbsShown++;
      if (sampler.mode !== 'interpolated') continue;
      this.interpolated++;
      const d = me === null ? 0 : Math.hypot(orb.x - me.x, orb.y - me.y);
      if (d < best) {
        best = d;
        this.aim.id = id;
        this.aim.x = orb.x;
        this.aim.y = orb.y;
      }
    }
  }

  /** The input of predicted tick `tick`: toward a point on the bot's circle, a zap now and then. */
  private input(tick: number): WalkValue {
    if (this.still) {
      if (this.stillFrom < 0) this.stillFrom = tick;
      return STILL;
    }
    const from = this.latency.predicting ? this.predictor.state : (this.avatar()?.value ?? null);
    if (this.steer !== undefined) return this.steered(tick, from, this.steer);
    const angle = (tick / TICK_RATE) * 0.3 + (this.bot * 2 * Math.PI) / 8;
    const r = 30 + 8 * (this.bot % 8);
    const tx = ARENA / 2 + r * Math.cos(angle);
    const ty = ARENA / 2 + r * Math.sin(angle);
    const step = (d: number) => Math.max(-0.5, Math.min(0.5, d));
    const dx = from === null ? 0 : step(tx - from.x);
    const dy = from === null ? 0 : step(ty - from.y);
    // The aim is the orb as sampled at the render tick this input carries (set by the last frame).
    if (tick >= this.nextZap && this.aim.id >= 0) {
      this.nextZap = tick + ZAP_EVERY;
      return { dx, dy, zap: true, target: this.aim.id, aimX: this.aim.x, aimY: this.aim.y };
    }
    return { dx, dy, zap: false, target: 0, aimX: 0, aimY: 0 };
  }

  /** A steered input: the step clamped to the walk's range, a zap at the aim when asked and one is shown. */
  private steered(tick: number, from: Place | null, steer: Steer): WalkValue {
    const wanted = steer(tick, from);
    const step = (d: number) => Math.round(Math.max(-0.5, Math.min(0.5, d)) * 64) / 64;
    const dx = step(wanted.dx);
    const dy = step(wanted.dy);
    if (wanted.zap && this.aim.id >= 0)
      return { dx, dy, zap: true, target: this.aim.id, aimX: this.aim.x, aimY: this.aim.y };
    return { dx, dy, zap: false, target: 0, aimX: 0, aimY: 0 };
  }
}
