import type { WebSocket } from 'ws';
import type { Address } from './address.js';
import { DatagramRate } from './datagram-rate.js';
import { outgoingProgress } from './netcode-progress.js';

/**
 * One peer of `WebSocketServerTransport` as the transport tracks it: its times, whether its netcode
 * handshake completed (seen in what the server sends it), and its datagram rate, over which its
 * socket is paused so that its further frames are not even read and TCP pushes back on the sender.
 */
export class WebSocketPeer {
  /** The server's clock when it last sent this peer a datagram (or accepted it). */
  lastSend: number;
  /** The server's clock when it was accepted. */
  opened: number;
  /** The server has sent it a keep-alive or payload: its netcode handshake completed. */
  connected = false;
  /** Its socket is paused for going over its rate. */
  paused = false;
  gone = false;
  private readonly rate: DatagramRate;

  constructor(
    readonly address: Address,
    readonly socket: WebSocket,
    /** Its client's key in PeersPerAddress. */
    readonly client: string,
    now: number,
    handshakeRate: number,
  ) {
    this.lastSend = now;
    this.opened = now;
    this.rate = new DatagramRate(handshakeRate, now);
  }

  /** Whether a datagram arriving at `now` is within its rate; if not, the socket is paused. */
  admit(now: number): boolean {
    if (this.rate.take(now)) return true;
    if (!this.paused) {
      this.paused = true;
      this.socket.pause();
    }
    return false;
  }

  /** Notes a datagram the server sends it: the first keep-alive or payload raises its rate. */
  noteSend(data: Uint8Array, connectedRate: number): void {
    if (!this.connected && outgoingProgress(data) === 'connected') {
      this.connected = true;
      this.rate.setRate(connectedRate);
    }
  }

  /**
   * Resumes a paused connected peer once a second's allowance is back. A peer over its rate before
   * its handshake is no netcode client: it stays paused until the handshake deadline closes it.
   */
  resumeIfDue(now: number): void {
    if (this.paused && this.connected && this.rate.full(now)) {
      this.paused = false;
      this.socket.resume();
    }
  }
}
