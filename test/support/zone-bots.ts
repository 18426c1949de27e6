/**
 * Bots for the zone test game: real GameClients that walk seeded random paths (kept inside
 * [15, 85] so they cross the borders of a 2 × 2 map) or stand idle, each input labelled with the
 * tick its client made it for, and every tick sent remembered (the input audit's "sent").
 */
import type { GameClient } from '../../src/game/game-client.js';
import { prng } from '../../src/random/prng.js';
import type { zoneGame } from './zone-game.js';

type Client = GameClient<typeof zoneGame>;

export class ZoneBot {
  /** The ticks this client sent an input for, ascending. */
  readonly sent: number[] = [];
  private heading = { dx: 0, dy: 0 };

  constructor(readonly client: Client) {
    // The client asks for an input per tick it predicts; its tick goes into the input.
    const latency = client.expert.latency;
    const frame = latency.frame.bind(latency);
    latency.frame = (now, produce) =>
      frame(now, (tick) => {
        this.sent.push(tick);
        return { ...produce(tick), tick };
      });
  }

  /** One frame: a new heading now and then while walking, none while idle. */
  update(walking: boolean, random: () => number): void {
    if (!walking) this.heading = { dx: 0, dy: 0 };
    else {
      if (random() < 0.03 || (this.heading.dx === 0 && this.heading.dy === 0))
        this.heading = { dx: Math.floor(random() * 3) - 1, dy: Math.floor(random() * 3) - 1 };
      const me = this.client.me?.state;
      if (me !== undefined) {
        if (me.x < 15) this.heading.dx = 1;
        if (me.x > 85) this.heading.dx = -1;
        if (me.y < 15) this.heading.dy = 1;
        if (me.y > 85) this.heading.dy = -1;
      }
    }
    this.client.update({ ...this.heading, tick: 0 });
  }
}

/** Drives `bots` (those in the list each frame) at 60 Hz from one seeded random stream; `walking` is read each frame. */
export function driveBots(bots: readonly ZoneBot[], seed: number, walking: () => boolean): () => void {
  const random = prng(seed >>> 0);
  const timer = setInterval(() => {
    const walk = walking();
    for (const bot of bots) bot.update(walk, random);
  }, 1000 / 60);
  return () => clearInterval(timer);
}
