/**
 * The demo server's figures for the dashboard: once a second, per connected client (bots and
 * pages), its link as the server's connection measures it (RTT, loss, kbit/s each way), the
 * entities relevant to it (its interest view), its corrections (server ticks that had to repeat
 * its last input for want of one: each makes the server's avatar differ from what the client
 * predicted, so the client corrects), and the server's tick time. The last RING_SECONDS samples
 * are kept for GET /stats; each new one goes to the listeners (the /stats/stream subscribers).
 */
import type { MessageServer } from '../src/channels/index.js';
import type { Arena } from '../tools/live-arena.js';
import { FIRST_PLAYER_AVATAR } from './protocol.js';

/** Seconds of samples kept. */
export const RING_SECONDS = 120;

/** One client's figures in one sample. */
export interface ClientSample {
  /** Its server slot. */
  index: number;
  avatar: number;
  kind: 'bot' | 'page';
  /** `bot 2`, `page 21`: how the dashboard names it. */
  name: string;
  /** Milliseconds, as the server's end measures it. */
  rtt: number;
  /** Percent of the server's packets to it not acked. */
  loss: number;
  /** kbit/s the server received from it (up) and sent it (down). */
  kbpsUp: number;
  kbpsDown: number;
  /** Entities in its interest view. */
  relevant: number;
  /** Server ticks this second that repeated its last input (none had arrived in time). */
  corrections: number;
  /** Its inputs this second that arrived after their tick was consumed. */
  late: number;
}

/** One second of the server. */
export interface StatsSample {
  /** Unix time, seconds. */
  t: number;
  /** Mean and worst milliseconds per server tick this second (the arena's step and its sends). */
  tickMs: number;
  tickMsMax: number;
  /** Server ticks run this second. */
  ticks: number;
  clients: ClientSample[];
}

export interface StatsSources {
  server: MessageServer;
  arena: Arena;
  /** Avatar number of each connected client index. */
  avatars: ReadonlyMap<number, number>;
}

interface InputCounts {
  avatar: number;
  starved: number;
  late: number;
}

export class DemoStats {
  private readonly ring: StatsSample[] = [];
  private readonly listeners = new Set<(sample: StatsSample) => void>();
  private readonly previous = new Map<number, InputCounts>();
  private tickMsSum = 0;
  private tickMsMax = 0;
  private ticks = 0;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly sources: StatsSources) {
    this.timer = setInterval(() => this.sample(), 1000);
  }

  /** Called around each arena advance: `ms` spent running `ticks` ticks. */
  timed(ms: number, ticks: number): void {
    if (ticks <= 0) return;
    this.tickMsSum += ms;
    this.ticks += ticks;
    const perTick = ms / ticks;
    if (perTick > this.tickMsMax) this.tickMsMax = perTick;
  }

  /** The samples kept, oldest first. */
  samples(): readonly StatsSample[] {
    return this.ring;
  }

  /** Calls `listener` with each new sample; returns the unsubscribe. */
  subscribe(listener: (sample: StatsSample) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    clearInterval(this.timer);
    this.listeners.clear();
  }

  /** Takes this second's sample (the timer calls it; tests may too). */
  sample(): StatsSample {
    const { server, arena, avatars } = this.sources;
    const clients: ClientSample[] = [];
    for (const [index, avatar] of avatars) {
      const link = server.stats(index);
      if (link.state !== 'connected') continue;
      const inputs = arena.inputs.stats(index);
      const starved = inputs?.starved ?? 0;
      const late = inputs?.late ?? 0;
      let before = this.previous.get(index);
      // A new connection in the slot starts its counts afresh.
      if (
        before === undefined ||
        before.avatar !== avatar ||
        before.starved > starved ||
        before.late > late
      ) {
        before = { avatar, starved, late };
      }
      const kind = avatar < FIRST_PLAYER_AVATAR ? 'bot' : 'page';
      clients.push({
        index,
        avatar,
        kind,
        name: `${kind} ${avatar}`,
        rtt: round(link.rttMs),
        loss: round(link.packetLoss),
        kbpsUp: round(link.receivedKbps),
        kbpsDown: round(link.sentKbps),
        relevant: arena.replication.view(index)?.count ?? 0,
        corrections: starved - before.starved,
        late: late - before.late,
      });
      this.previous.set(index, { avatar, starved, late });
    }
    for (const index of this.previous.keys()) if (!avatars.has(index)) this.previous.delete(index);
    const sample: StatsSample = {
      t: Math.round(Date.now() / 100) / 10,
      tickMs: this.ticks === 0 ? 0 : round(this.tickMsSum / this.ticks, 1000),
      tickMsMax: round(this.tickMsMax, 1000),
      ticks: this.ticks,
      clients,
    };
    this.tickMsSum = this.tickMsMax = this.ticks = 0;
    this.ring.push(sample);
    if (this.ring.length > RING_SECONDS) this.ring.shift();
    for (const listener of this.listeners) listener(sample);
    return sample;
  }
}

function round(value: number, scale = 100): number {
  return Number.isFinite(value) ? Math.round(value * scale) / scale : 0;
}
