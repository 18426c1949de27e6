/**
 * The demo server's figures for the dashboard: once a second, per connected client (bots and
 * pages), its link as the server's connection measures it (RTT, loss, kbit/s each way), the
 * entities replicated to it, its corrections (server ticks that had to repeat
 * its last input for want of one: each makes the server's avatar differ from what the client
 * predicted, so the client corrects), and the time the rules' tick took (orbs wandering). The last RING_SECONDS samples
 * are kept for GET /stats; each new one goes to the listeners (the /stats/stream subscribers).
 */
import type { GameServer } from '../src/node.js';

/** Seconds of samples kept. */
export const RING_SECONDS = 120;

/** One client's figures in one sample. */
export interface ClientSample {
  /** Its server slot. */
  index: number;
  /** Its avatar's entity id. */
  avatar: number;
  kind: 'bot' | 'page';
  /** `bot 2` (the bot's number), `page 21` (its avatar's id): how the dashboard names it. */
  name: string;
  /** Milliseconds, as the server's end measures it. */
  rtt: number;
  /** Percent of the server's packets to it not acked. */
  loss: number;
  /** kbit/s the server received from it (up) and sent it (down). */
  kbpsUp: number;
  kbpsDown: number;
  /** Entities replicated to it (its view of the world). */
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
  /** Mean and worst milliseconds per server tick this second in the rules' onTick (the orbs). */
  tickMs: number;
  tickMsMax: number;
  /** Server ticks run this second. */
  ticks: number;
  clients: ClientSample[];
}

export interface StatsSources {
  server: GameServer;
  /** The bot number of each bot's avatar id. */
  bots: () => ReadonlyMap<number, number>;
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

  /** Called after each tick: `ms` it took. */
  readonly timed = (ms: number): void => {
    this.tickMsSum += ms;
    this.ticks++;
    if (ms > this.tickMsMax) this.tickMsMax = ms;
  };

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
    const { server, bots } = this.sources;
    const { simulation, messages } = server;
    const botNumbers = bots();
    const clients: ClientSample[] = [];
    const seen = new Set<number>();
    for (const player of simulation.players) {
      const index = player.index;
      const avatar = player.entity?.id ?? -1;
      const link = index < 0 ? null : messages.stats(index);
      if (link === null || link.state !== 'connected' || avatar < 0) continue;
      seen.add(index);
      const inputs = simulation.inputs.stats(index);
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
      const bot = botNumbers.get(avatar);
      clients.push({
        index,
        avatar,
        kind: bot === undefined ? 'page' : 'bot',
        name: bot === undefined ? `page ${avatar}` : `bot ${bot}`,
        rtt: round(link.rttMs),
        loss: round(link.packetLoss),
        kbpsUp: round(link.receivedKbps),
        kbpsDown: round(link.sentKbps),
        relevant: simulation.replication.view(index)?.count ?? 0,
        corrections: starved - before.starved,
        late: late - before.late,
      });
      this.previous.set(index, { avatar, starved, late });
    }
    for (const index of this.previous.keys()) if (!seen.has(index)) this.previous.delete(index);
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
