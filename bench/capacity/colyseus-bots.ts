/**
 * A bot process of the Colyseus capacity run (forked by colyseus.ts): many players of the
 * Colyseus arena, each a @colyseus/sdk 0.18 client on its own WebSocket, as a browser game would
 * be (the server cannot tell them from one). Each joins through the HTTP matchmaker
 * (joinOrCreate 'arena'), decodes every patch into the arena's schema classes, and sends an input
 * every 50 ms: the load tester's random walk (a new step of up to half a metre each way, one
 * input in twenty) and, every half second, a zap at the orb it sees nearest (tools/live-bot.ts's
 * rate). No prediction, no rendering; one 10 ms timer drives every bot of the process.
 *
 * Bytes are counted at each bot's TCP socket (bytesRead / bytesWritten): WebSocket frames with
 * their headers, i.e. TCP payload. Config: a BotsConfig as JSON in argv[2].
 */
import { performance } from 'node:perf_hooks';
import { Client, type Room } from '@colyseus/sdk';
import { prng } from '../../src/random/prng.js';
import type { BotsConfig, BotsProgress, BotsReport, Command } from './colyseus-protocol.js';
import {
  CHECK_EVERY,
  CHECK_MESSAGE,
  ColyseusArenaState,
  GRID,
  INPUT_MESSAGE,
  ROOM_NAME,
  stateChecksum,
  TICK_MS,
} from './colyseus-state.js';

const config = JSON.parse(process.argv[2] ?? '{}') as BotsConfig;
const TURN_MS = 10;
/** Inputs between zaps: every half second at 20 Hz. */
const ZAP_EVERY = 10;
const random = prng(config.seed);
const client = new Client(`http://127.0.0.1:${config.port}`);
const start = performance.now();

/** The SDK's console errors (a decoder's `"refId" not found`, …), counted by their first words. */
const errors: Record<string, number> = {};
const countError = (...args: unknown[]) => {
  const key = String(args[0]).slice(0, 40);
  errors[key] = (errors[key] ?? 0) + 1;
};
console.error = countError;
console.warn = countError;

interface Socket {
  bytesRead: number;
  bytesWritten: number;
}

class Bot {
  room: Room<unknown, ColyseusArenaState> | null = null;
  socket: Socket | null = null;
  joined = false;
  failed = false;
  /** Patches decoded since the full state (the server numbers them alike). */
  patches = 0;
  inputs = 0;
  checks = 0;
  private began = 0;
  private due = 0;
  private dx = 0;
  private dy = 0;
  private readonly step: number[] = [0, 0];
  private readonly zap: number[] = [0, 0, 0, 0, 0];

  constructor(readonly joinAt: number) {}

  join(now: number): void {
    this.began = now;
    client.joinOrCreate(ROOM_NAME, {}, ColyseusArenaState).then(
      (room) => {
        this.room = room as Room<unknown, ColyseusArenaState>;
        const transport = (room.connection.transport as unknown as { ws: { _socket: Socket } }).ws;
        this.socket = transport._socket;
        room.onStateChange(() => this.applied());
        room.onLeave(() => {
          if (!stopping) countError('left the room');
          this.room = null;
        });
      },
      (error: unknown) => {
        this.failed = true;
        countError(`join: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  private applied(): void {
    if (!this.joined) {
      this.joined = true;
      joinMs.push(performance.now() - this.began);
      this.due = performance.now() + TICK_MS * random();
      return;
    }
    this.patches++;
    if (config.verify && this.patches % CHECK_EVERY === 0 && this.room !== null) {
      this.room.send(CHECK_MESSAGE, [this.patches, stateChecksum(this.room.state)]);
      this.checks++;
    }
  }

  frame(now: number): void {
    const room = this.room;
    if (room === null || !this.joined || now < this.due) return;
    // Every frame due; a stall longer than a quarter second skips the backlog.
    this.due = now - this.due > 250 ? now + TICK_MS : this.due + TICK_MS;
    if (random() < 0.05) {
      this.dx = Math.round((random() - 0.5) * GRID);
      this.dy = Math.round((random() - 0.5) * GRID);
    }
    this.inputs++;
    if (this.inputs % ZAP_EVERY === 0 && this.aim(room)) {
      this.zap[0] = this.dx;
      this.zap[1] = this.dy;
      room.send(INPUT_MESSAGE, this.zap);
      return;
    }
    this.step[0] = this.dx;
    this.step[1] = this.dy;
    room.send(INPUT_MESSAGE, this.step);
  }

  /** Aims at the orb nearest its avatar in its decoded state; false when it sees none. */
  private aim(room: Room<unknown, ColyseusArenaState>): boolean {
    const me = room.state.avatars.get(room.sessionId);
    if (me === undefined) return false;
    let best = Number.POSITIVE_INFINITY;
    room.state.orbs.forEach((orb, key) => {
      const d = (orb.x - me.x) ** 2 + (orb.y - me.y) ** 2;
      if (d >= best) return;
      best = d;
      this.zap[2] = Number(key);
      this.zap[3] = orb.x;
      this.zap[4] = orb.y;
    });
    return best !== Number.POSITIVE_INFINITY;
  }
}

let stopping = false;
const joinMs: number[] = [];
const bots: Bot[] = [];
for (let i = 0; i < config.bots; i++) bots.push(new Bot((config.rampSeconds * 1000 * i) / config.bots));
let nextJoin = 0;

setInterval(() => {
  const now = performance.now();
  while (nextJoin < bots.length && now - start >= bots[nextJoin].joinAt && !stopping)
    bots[nextJoin++].join(now);
  for (const bot of bots) bot.frame(now);
}, TURN_MS);

setInterval(() => {
  const progress: BotsProgress = {
    type: 'progress',
    joined: bots.filter((b) => b.joined).length,
    failed: bots.filter((b) => b.failed).length,
    joinMs: joinMs.splice(0),
    errors: { ...errors },
  };
  process.send?.(progress);
}, 1000).unref();

interface Mark {
  at: number;
  cpu: NodeJS.CpuUsage;
  patches: number[];
  read: number[];
  written: number[];
  inputs: number;
  checks: number;
}
const snapshot = (): Mark => ({
  at: performance.now(),
  cpu: process.cpuUsage(),
  patches: bots.map((b) => b.patches),
  read: bots.map((b) => b.socket?.bytesRead ?? 0),
  written: bots.map((b) => b.socket?.bytesWritten ?? 0),
  inputs: bots.reduce((n, b) => n + b.inputs, 0),
  checks: bots.reduce((n, b) => n + b.checks, 0),
});
let mark = snapshot();

process.on('message', (message: Command) => {
  if (message.type === 'mark') mark = snapshot();
  else if (message.type === 'report') {
    const now = snapshot();
    const cpu = process.cpuUsage(mark.cpu);
    const patches: number[] = [];
    let down = 0;
    let up = 0;
    bots.forEach((bot, i) => {
      if (bot.room === null) return;
      patches.push(now.patches[i] - mark.patches[i]);
      down += now.read[i] - mark.read[i];
      up += now.written[i] - mark.written[i];
    });
    const report: BotsReport = {
      type: 'report',
      connected: patches.length,
      patches,
      bytesDown: down,
      bytesUp: up,
      inputsSent: now.inputs - mark.inputs,
      checksSent: now.checks - mark.checks,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      seconds: (now.at - mark.at) / 1000,
      errors: { ...errors },
    };
    process.send?.(report);
  } else if (message.type === 'stop') {
    stopping = true;
    Promise.all(bots.map((b) => b.room?.leave(true))).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  }
});
process.on('disconnect', () => process.exit(0));
