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
/** Joins as a guest of the game, or with a backend session (the bot's account) when given one. */
const join = (url: string, transport: 'udp' | 'websocket', session: string | null) =>
  GameClient.connect(arena, url, {
    transport,
    WebSocket,
    ...(session === null
      ? {}
      : {
          fetch: (input: string, init?: RequestInit) =>
            fetch(input, { ...init, headers: { authorization: `Bearer ${session}` } }),
        }),
  });

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

  /** `count` bots joined to the game server at `url` over `transport`, with `sessions[n]` when given. */
  static async join(
    url: string,
    count: number,
    transport: 'udp' | 'websocket',
    sessions: readonly string[] = [],
  ): Promise<DemoBots> {
    return new DemoBots(
      await Promise.all(Array.from({ length: count }, (_, n) => join(url, transport, sessions[n] ?? null))),
    );
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

/** Where the demo serves and what it allows its own bots (both demo servers pass these to their server). */
export interface DemoServeOptions {
  host?: string;
  port?: number;
  publicAddress?: string;
  webrtc?: boolean;
}

/** The server options both demo servers share: address, transports, and room for `count` bots from this machine. */
export function demoServeOptions(options: DemoServeOptions, count: number) {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8080,
    maxPlayers: 64,
    // The bots join from this machine's address: room for them beyond the default per address.
    maxPlayersPerAddress: count + 4,
    joinRate: { burst: count + 10 },
    transports: (options.webrtc === false ? ['udp', 'websocket'] : ['udp', 'websocket', 'webrtc']) as (
      | 'udp'
      | 'websocket'
      | 'webrtc'
    )[],
    ...(options.publicAddress === undefined ? {} : { publicAddress: options.publicAddress }),
  };
}

/** The server's own bots joining at `url`; `close` shuts the server if they cannot. */
export function joinDemoBots(
  url: string,
  count: number,
  options: DemoServeOptions,
  close: () => Promise<void>,
  sessions: readonly string[] = [],
): Promise<DemoBots> {
  // A server on 0.0.0.0 with no public address names 0.0.0.0 in its tokens: a UDP reply comes from
  // another address than that, which a netcode client drops; WebSocket peers are named apart.
  const unspecified =
    (options.host === '0.0.0.0' || options.host === '::') && options.publicAddress === undefined;
  return DemoBots.join(url, count, unspecified ? 'websocket' : 'udp', sessions).catch(async (error) => {
    await close();
    throw error;
  });
}
