/**
 * Players for the services end-to-end tests: real netcode clients over UDP (or a transport the test
 * opens: WebSocket, WebRTC) on loopback, each with a mirror of its room's world (room-scene.ts's TestRoom types), driven on a real 60 Hz timer.
 */
import { MessageClient } from '../../src/channels/index.js';
import { ClientState } from '../../src/connection/client.js';
import { ClientMirror } from '../../src/replication/index.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { factory, type Score, types } from './room-scene.js';

const CAPACITY = 64;
const started = performance.now();
const seconds = () => (performance.now() - started) / 1000;

export interface Player {
  messages: MessageClient<typeof Score>;
  mirror: ClientMirror;
  socket: DatagramTransport;
  /** False: the test stopped driving it (its link went silent). */
  live: boolean;
}

/** Players on one pump; close() stops it and closes every socket. */
export class Players {
  readonly all: Player[] = [];
  private readonly pump = setInterval(() => {
    const now = seconds();
    for (const p of this.all) if (p.live) p.messages.update(now);
  }, 1000 / 60);

  /** A new player on its own UDP socket (or on `socket`, which it then owns), connecting with `token`. */
  async connect(token: Uint8Array, socket?: DatagramTransport): Promise<Player> {
    socket ??= await UdpTransport.open({ address: '127.0.0.1:0' });
    const mirror = new ClientMirror({ types, capacity: CAPACITY });
    const messages = new MessageClient({
      transport: socket,
      factory,
      channels: [mirror.channel, { kind: 'reliable-ordered' }],
    });
    messages.connect(token, seconds());
    const player = { messages, mirror, socket, live: true };
    this.all.push(player);
    return player;
  }

  /** Stops driving a player and closes its socket: to the server, its link died. */
  silence(player: Player): void {
    player.live = false;
    player.socket.close();
  }

  close(): void {
    clearInterval(this.pump);
    for (const p of this.all) if (p.live) this.silence(p);
  }
}

export function connected(player: Player): boolean {
  return player.messages.client.state === ClientState.Connected;
}

export function stateOf(player: Player): number {
  return player.messages.client.state;
}

/** The values of the ghosts a player mirrors: the banner ({ room }) and players ({ room, seat, score }). */
export function ghosts(player: Player): { room: string; seat?: number; score?: number }[] {
  const out: { room: string; seat?: number; score?: number }[] = [];
  for (let id = 0; id < CAPACITY; id++) {
    const ghost = player.mirror.ghost(id);
    if (ghost !== null) out.push(ghost.value as { room: string; seat?: number; score?: number });
  }
  return out;
}

/** The player entities a player mirrors. */
export function mirroredPlayers(player: Player): { room: string; seat: number; score: number }[] {
  return ghosts(player).filter((g) => g.seat !== undefined) as {
    room: string;
    seat: number;
    score: number;
  }[];
}

export { until } from './until.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
