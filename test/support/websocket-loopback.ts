/**
 * Helpers for WebSocket tests on loopback: clients from a chosen 127.x.y.z source address (Linux
 * routes all of 127/8 to lo, so each stands for another client machine), tokens, polling.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { nodeAead } from '../../src/connection/aead-node.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import type { Address } from '../../src/transport/address.js';
import { PRIVATE_KEY, PROTOCOL_ID } from './netcode-harness.js';

/** Polls `step` every 2 ms until `done` or `seconds` pass; returns whether it got done. */
export async function until(
  done: () => boolean,
  seconds: number,
  step: () => void = () => {},
): Promise<boolean> {
  const end = performance.now() + seconds * 1000;
  while (!done()) {
    if (performance.now() > end) return false;
    step();
    await sleep(2);
  }
  return true;
}

/** The `ws` client class whose sockets leave from `localAddress`, for WebSocketClientTransport. */
export function webSocketFrom(localAddress: string): typeof WebSocket {
  return class extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols, { localAddress });
    }
  } as typeof WebSocket;
}

/** A raw `ws` client from `localAddress`; resolves once open, rejects on refusal. */
export function rawClientFrom(url: string, localAddress: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { localAddress });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A connect token for `address` valid for a minute, with a 1 s timeout. */
export function tokenFor(address: Address, clientId: bigint): Uint8Array {
  return generateConnectToken({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    clientId,
    serverAddresses: [address],
    now: Math.floor(Date.now() / 1000),
    timeoutSeconds: 1,
    aead: nodeAead,
  });
}
