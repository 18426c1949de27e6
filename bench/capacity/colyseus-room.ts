/**
 * The demo arena as a Colyseus 0.18 room: the rules of tools/live-arena.ts and demo/arena-room.ts
 * copied (not their code), written as Colyseus's documentation advises: state in @colyseus/schema
 * classes, a StateView per client (`client.view`) filled by user-code interest, the simulation on
 * `setSimulationInterval` at 50 ms, patches at `patchRate` 50 ms, inputs as room messages.
 *
 * The rules: 400 orbs wander (a third of them step 0.2 m a tick, turning up to ±0.2 rad, bouncing
 * off the walls), an orb an avatar touches (within 1 m each way) jumps somewhere random and the
 * avatar scores; each avatar moves only by its player's inputs, one consumed per tick (a step of
 * at most 0.5 m each way on the 1/64 m grid, clamped to the arena). A zap is judged against the
 * orbs' present places: this copy does not rewind. (ghostwire's arena rewinds to what the player
 * saw; Colyseus 0.18 ships a `Rewind` helper driven by `defineInput`, not used here: the brief
 * asked for plain room messages and the patch bytes without its 8-byte timing prefix.)
 */

import { type Client, ClientState, Room } from '@colyseus/core';
import { StateView } from '@colyseus/schema';
import { prng } from '../../src/random/prng.js';
import { ArenaGrid, InterestSet } from './colyseus-interest.js';
import {
  ARENA_UNITS,
  CHECK_EVERY,
  CHECK_MESSAGE,
  ColyseusArenaState,
  ColyseusAvatar,
  ColyseusOrb,
  entityHash,
  GRID,
  HIT_METRES,
  INPUT_MESSAGE,
  MAX_STEP_UNITS,
  ORBS,
  SEATS,
  TICK_MS,
} from './colyseus-state.js';

/** What every room of this process did, summed (the server process reports it). */
export const arenaStats = {
  rooms: 0,
  /** Players seated now. */
  players: 0,
  ticks: 0,
  /** Ticks that began less than a tick period late (after the room's previous one). */
  ticksOnTime: 0,
  inputsTaken: 0,
  /** Inputs refused: malformed, or beyond a player's queue of INPUT_QUEUE. */
  inputsRejected: 0,
  zaps: 0,
  /** Zaps within HIT_METRES of the target's present place. */
  hits: 0,
  /** Verification: bots' checksums compared with the server's at the same patch, and how many differed. */
  checksCompared: 0,
  checksMismatched: 0,
  /** Checks whose patch the room no longer (or never) recorded. */
  checksUnmatched: 0,
};

/** Rooms created in this process: each seeds its orbs from the base seed plus its number. */
export const arenaConfig = { seed: 1, verify: false };

/** Inputs a player may have waiting; more are refused (one is consumed a tick). */
const INPUT_QUEUE = 8;
/** Fields of a queued input: dx, dy, zap (0/1), target, aimX, aimY. */
const INPUT_FIELDS = 6;
const CENTRE = ARENA_UNITS / 2;
const TOUCH = GRID; // 1 m
const HIT2 = (HIT_METRES * GRID) ** 2;
const quantize = (metres: number) => Math.round(Math.min(ARENA_UNITS, Math.max(0, metres * GRID)));
const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

interface Seat {
  bot: number;
  client: Client;
  avatar: ColyseusAvatar;
  view: StateView;
  interest: InterestSet;
  enter: (id: number) => void;
  leave: (id: number) => void;
  inputs: Int32Array;
  queued: number;
  head: number;
  /** Patches this client was sent since it joined (the full state is patch 0). */
  patches: number;
  /** Verification: the server's checksum of what this client holds, by patch index. */
  checks: Map<number, number>;
}

export class ColyseusArenaRoom extends Room {
  override maxClients = SEATS;
  override patchRate = TICK_MS;
  override state = new ColyseusArenaState();
  private readonly grid = new ArenaGrid(ORBS + SEATS);
  private readonly orbs: ColyseusOrb[] = [];
  private readonly heading = new Float64Array(ORBS);
  /** Seats in the order their players joined (the touch test's order, as ghostwire's Map of avatars). */
  private readonly seats = new Map<string, Seat>();
  private readonly bySeat: (Seat | null)[] = new Array(SEATS).fill(null);
  private readonly freeBots: number[] = [];
  private random: () => number = Math.random;
  private lastTickAt = 0;

  override onCreate(): void {
    this.random = prng((arenaConfig.seed + arenaStats.rooms++) >>> 0);
    for (let bot = SEATS - 1; bot >= 0; bot--) this.freeBots.push(bot);
    const grid = this.grid;
    for (let i = 0; i < ORBS; i++) {
      const orb = new ColyseusOrb();
      orb.x = quantize(this.random() * 200);
      orb.y = quantize(this.random() * 200);
      orb.glow = i & 15;
      this.heading[i] = this.random() * 2 * Math.PI;
      this.state.orbs.set(String(i), orb);
      this.orbs.push(orb);
      grid.x[i] = orb.x;
      grid.y[i] = orb.y;
      grid.alive[i] = 1;
    }
    grid.rebuild();
    this.onMessage(INPUT_MESSAGE, (client, message) => this.receive(client, message));
    if (arenaConfig.verify) this.onMessage(CHECK_MESSAGE, (client, message) => this.check(client, message));
    this.lastTickAt = performance.now();
    this.setSimulationInterval(() => this.tick(), TICK_MS);
  }

  override onJoin(client: Client): void {
    const bot = this.freeBots.pop() ?? 0;
    arenaStats.players++;
    const avatar = new ColyseusAvatar();
    avatar.x = CENTRE;
    avatar.y = CENTRE;
    avatar.bot = bot;
    avatar.score = 0;
    this.state.avatars.set(client.sessionId, avatar);
    const view = new StateView();
    client.view = view;
    const entity = (id: number) => (id < ORBS ? this.orbs[id] : (this.bySeat[id - ORBS] as Seat).avatar);
    const seat: Seat = {
      bot,
      client,
      avatar,
      view,
      interest: new InterestSet(ORBS + SEATS),
      enter: (id) => view.add(entity(id)),
      leave: (id) => view.remove(entity(id)),
      inputs: new Int32Array(INPUT_QUEUE * INPUT_FIELDS),
      queued: 0,
      head: 0,
      patches: 0,
      checks: new Map(),
    };
    this.seats.set(client.sessionId, seat);
    this.bySeat[bot] = seat;
    const id = ORBS + bot;
    this.grid.x[id] = CENTRE;
    this.grid.y[id] = CENTRE;
    this.grid.alive[id] = 1;
    // Its own avatar and what is near it now, so the state sent on join already holds them.
    seat.interest.member[id] = 1;
    seat.interest.list[seat.interest.count++] = id;
    view.add(avatar);
    this.grid.refresh(seat.interest, CENTRE, CENTRE, seat.enter, seat.leave);
  }

  override onLeave(client: Client): void {
    const seat = this.seats.get(client.sessionId);
    if (seat === undefined) return;
    arenaStats.players--;
    const id = ORBS + seat.bot;
    for (const other of this.seats.values())
      if (other !== seat && other.interest.member[id] === 1) {
        other.interest.drop(id);
        other.view.remove(seat.avatar);
      }
    this.state.avatars.delete(client.sessionId);
    this.grid.alive[id] = 0;
    this.seats.delete(client.sessionId);
    this.bySeat[seat.bot] = null;
    this.freeBots.push(seat.bot);
  }

  /** A player's input: [dx, dy] or [dx, dy, target, aimX, aimY] (a zap), in 1/64 m. */
  private receive(client: Client, message: unknown): void {
    const seat = this.seats.get(client.sessionId);
    const m = message as unknown[];
    if (
      seat === undefined ||
      !Array.isArray(m) ||
      (m.length !== 2 && m.length !== 5) ||
      !isInt(m[0], -MAX_STEP_UNITS, MAX_STEP_UNITS) ||
      !isInt(m[1], -MAX_STEP_UNITS, MAX_STEP_UNITS) ||
      (m.length === 5 &&
        (!isInt(m[2], 0, ORBS - 1) || !isInt(m[3], 0, ARENA_UNITS) || !isInt(m[4], 0, ARENA_UNITS))) ||
      seat.queued === INPUT_QUEUE
    ) {
      arenaStats.inputsRejected++;
      return;
    }
    const at = ((seat.head + seat.queued++) % INPUT_QUEUE) * INPUT_FIELDS;
    const q = seat.inputs;
    q[at] = m[0] as number;
    q[at + 1] = m[1] as number;
    q[at + 2] = m.length === 5 ? 1 : 0;
    q[at + 3] = m.length === 5 ? (m[2] as number) : 0;
    q[at + 4] = m.length === 5 ? (m[3] as number) : 0;
    q[at + 5] = m.length === 5 ? (m[4] as number) : 0;
  }

  private tick(): void {
    const now = performance.now();
    arenaStats.ticks++;
    if (now - this.lastTickAt < 2 * TICK_MS) arenaStats.ticksOnTime++;
    this.lastTickAt = now;
    for (const seat of this.seats.values()) this.walk(seat);
    this.wander();
    const grid = this.grid;
    for (let i = 0; i < ORBS; i++) {
      grid.x[i] = this.orbs[i].x;
      grid.y[i] = this.orbs[i].y;
    }
    for (const seat of this.seats.values()) {
      grid.x[ORBS + seat.bot] = seat.avatar.x;
      grid.y[ORBS + seat.bot] = seat.avatar.y;
    }
    grid.rebuild();
    for (const seat of this.seats.values())
      grid.refresh(seat.interest, seat.avatar.x, seat.avatar.y, seat.enter, seat.leave);
  }

  /** The seat's avatar takes its next input, if one came: a step, and a zap judged now. */
  private walk(seat: Seat): void {
    if (seat.queued === 0) return;
    const at = seat.head * INPUT_FIELDS;
    seat.head = (seat.head + 1) % INPUT_QUEUE;
    seat.queued--;
    arenaStats.inputsTaken++;
    const q = seat.inputs;
    const a = seat.avatar;
    const x = Math.min(ARENA_UNITS, Math.max(0, a.x + q[at]));
    const y = Math.min(ARENA_UNITS, Math.max(0, a.y + q[at + 1]));
    if (x !== a.x) a.x = x;
    if (y !== a.y) a.y = y;
    if (q[at + 2] === 0) return;
    arenaStats.zaps++;
    const orb = this.orbs[q[at + 3]];
    const dx = orb.x - q[at + 4];
    const dy = orb.y - q[at + 5];
    if (dx * dx + dy * dy <= HIT2) arenaStats.hits++;
  }

  private wander(): void {
    const random = this.random;
    const orbs = this.orbs;
    for (let i = 0; i < ORBS; i++) {
      if (random() > 0.33) continue;
      const orb = orbs[i];
      this.heading[i] += (random() - 0.5) * 0.4;
      const x = orb.x / GRID + Math.cos(this.heading[i]) * 0.2;
      const y = orb.y / GRID + Math.sin(this.heading[i]) * 0.2;
      if (x < 0 || x > 200 || y < 0 || y > 200) this.heading[i] += Math.PI;
      const qx = quantize(x);
      const qy = quantize(y);
      if (qx !== orb.x) orb.x = qx;
      if (qy !== orb.y) orb.y = qy;
    }
    // The first orb within a metre each way of each avatar (an orb an earlier avatar touched has moved).
    for (const seat of this.seats.values()) {
      const a = seat.avatar;
      let hit = -1;
      for (let i = 0; i < ORBS; i++)
        if (Math.abs(orbs[i].x - a.x) < TOUCH && Math.abs(orbs[i].y - a.y) < TOUCH) {
          hit = i;
          break;
        }
      if (hit < 0) continue;
      const orb = orbs[hit];
      orb.x = quantize(random() * 200);
      orb.y = quantize(random() * 200);
      orb.glow = (orb.glow + 1) & 15;
      a.score = (a.score + 1) & 0xffff;
    }
  }

  /** Verification: the server's checksum of what each joined client will hold after this patch. */
  override onBeforePatch(): void {
    for (const seat of this.seats.values()) {
      if (seat.client.state !== ClientState.JOINED) continue;
      seat.patches++;
      if (!arenaConfig.verify || seat.patches % CHECK_EVERY !== 0) continue;
      seat.checks.set(seat.patches, this.checksum(seat));
      seat.checks.delete(seat.patches - 10 * CHECK_EVERY);
    }
  }

  private checksum(seat: Seat): number {
    const { list, count } = seat.interest;
    let sum = 0;
    for (let i = 0; i < count; i++) {
      const id = list[i];
      if (id < ORBS) {
        const o = this.orbs[id];
        sum = (sum + entityHash(0, id, o.x, o.y, o.glow)) >>> 0;
      } else {
        const a = (this.bySeat[id - ORBS] as Seat).avatar;
        sum = (sum + entityHash(1, a.bot, a.x, a.y, a.score)) >>> 0;
      }
    }
    return sum;
  }

  /** A bot's [patch index, checksum of its decoded state], compared with the server's. */
  private check(client: Client, message: unknown): void {
    const seat = this.seats.get(client.sessionId);
    const m = message as unknown[];
    if (seat === undefined || !Array.isArray(m) || !isInt(m[0], 1, 2 ** 31) || !isInt(m[1], 0, 2 ** 32))
      return;
    const server = seat.checks.get(m[0]);
    if (server === undefined) arenaStats.checksUnmatched++;
    else {
      arenaStats.checksCompared++;
      if (server !== m[1]) arenaStats.checksMismatched++;
    }
  }
}
