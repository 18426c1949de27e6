/**
 * How a GameClient opens a UDP socket where the platform has one: `ghostwire/node` registers
 * Node's on import (the way it registers the native AEAD). Browsers have none and use WebRTC or
 * WebSocket instead.
 */
import type { DatagramTransport } from '../transport/transport.js';

/** Opens a datagram socket fit to reach `serverAddress` ("host:port" or "[v6]:port"). */
export type UdpOpener = (serverAddress: string) => Promise<DatagramTransport>;

let udpOpener: UdpOpener | null = null;

export function registerUdpOpener(opener: UdpOpener): void {
  if (typeof opener !== 'function') throw new TypeError('registerUdpOpener: opener must be a function');
  udpOpener = opener;
}

/** The registered UDP opener, or null (a browser, or Node without `ghostwire/node`). */
export function registeredUdpOpener(): UdpOpener | null {
  return udpOpener;
}
