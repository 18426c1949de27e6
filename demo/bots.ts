/**
 * The demo server's own bots, so the arena is alive with one player: GameClients over UDP to the
 * server's own port (or its WebSocket, where UDP cannot reach the address tokens name), each
 * predicting and interpolating as a page does, steered by botInput.
 */
import WebSocket from 'ws';
import { GameClient } from '../src/node.js';
import { arena } from './game.js';
import { botInput } from './steer.js';

type ArenaClient = Awaited<ReturnType<typeof join>>;
const join = (url: string, transport: 'udp' | 'websocket') =>
  GameClient.connect(arena, url, { transport, WebSocket });

export class DemoBots {
  private readonly timer: ReturnType<typeof setInterval>;

  private constructor(private readonly clients: ArenaClient[]) {
    const started = performance.now();
    this.timer = setInterval(() => {
      const seconds = (performance.now() - started) / 1000;
      for (const [n, client] of clients.entries()) {
        const me = client.me?.state;
        const orbs = client.entities.filter((e) => e.type === 'orb').map((e) => e.state);
        client.update(
          me === undefined ? { dx: 0, dy: 0, zap: false, aimX: 0, aimY: 0 } : botInput(n, seconds, me, orbs),
        );
      }
    }, 1000 / 60);
  }

  /** `count` bots joined to the game server at `url` over `transport`. */
  static async join(url: string, count: number, transport: 'udp' | 'websocket'): Promise<DemoBots> {
    return new DemoBots(await Promise.all(Array.from({ length: count }, () => join(url, transport))));
  }

  /** Bots connected now. */
  get connected(): number {
    return this.clients.filter((c) => c.status === 'connected').length;
  }

  /** Bot number of each bot's entity id (known once the server told each bot its own). */
  numbers(): Map<number, number> {
    const numbers = new Map<number, number>();
    for (const [n, client] of this.clients.entries()) if (client.me !== null) numbers.set(client.me.id, n);
    return numbers;
  }

  close(): void {
    clearInterval(this.timer);
    for (const client of this.clients) client.close();
  }
}
