/**
 * WebRTC on loopback for the transport tests: node-datachannel's standard RTCPeerConnection bound
 * to 127.0.0.1 (no external interface, no STUN), a signalling server on 127.0.0.1, a free UDP port,
 * and the UDP sockets this process holds (to show every peer shares the server's one port).
 */
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { RTCPeerConnection as PolyfillPeerConnection } from 'node-datachannel/polyfill';
import type { Address } from '../../src/transport/address.js';
import {
  type RtcPeerConnectionConstructor,
  WebRtcClientTransport,
} from '../../src/transport/webrtc-client-transport.js';
import {
  WebRtcServerTransport,
  type WebRtcServerTransportOptions,
} from '../../src/transport/webrtc-server-transport.js';
import type { OfferHandler } from '../../src/transport/webrtc-signaling.js';
import { createSignalingApp } from '../../src/transport/webrtc-signaling.js';

/** The polyfill, gathering on 127.0.0.1 only (libdatachannel's bindAddress). */
class LoopbackPeerConnection extends PolyfillPeerConnection {
  constructor(configuration: RTCConfiguration = {}) {
    super({ ...configuration, bindAddress: '127.0.0.1' } as RTCConfiguration);
  }
}
export const LoopbackRTCPeerConnection = LoopbackPeerConnection as unknown as RtcPeerConnectionConstructor;

/** A UDP port free on 127.0.0.1 a moment ago (the kernel's pick, released at once). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Serves the signalling route on 127.0.0.1; resolves to its URL and a close function. */
export async function serveSignaling(
  transport: OfferHandler,
): Promise<{ url: string; close: () => Promise<void> }> {
  const app = createSignalingApp(transport);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rtc/offer`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The local ports of the UDP sockets this process holds (Linux /proc; null elsewhere). */
export function udpSocketPorts(): number[] | null {
  try {
    const portByInode = new Map<string, number>();
    for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields.length < 10) continue;
        portByInode.set(fields[9], Number.parseInt(fields[1].split(':')[1], 16));
      }
    }
    const ports: number[] = [];
    for (const fd of readdirSync('/proc/self/fd')) {
      let link: string;
      try {
        link = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      const port = inode === undefined ? undefined : portByInode.get(inode);
      if (port !== undefined) ports.push(port);
    }
    return ports;
  } catch {
    return null;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `step` every few ms until `done()` or `seconds` pass; returns done(). */
export async function until(
  done: () => boolean,
  seconds: number,
  step: () => void = () => {},
): Promise<boolean> {
  const end = performance.now() + seconds * 1000;
  while (!done() && performance.now() < end) {
    step();
    await sleep(3);
  }
  step();
  return done();
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A server transport on 127.0.0.1 with its signalling route served on 127.0.0.1. */
export async function rtcServer(options: Partial<WebRtcServerTransportOptions> = {}) {
  const port = await freeUdpPort();
  const transport = new WebRtcServerTransport({ port, bindAddress: '127.0.0.1', ...options });
  const signaling = await serveSignaling(transport);
  return {
    port,
    transport,
    url: signaling.url,
    close: async () => {
      transport.close();
      await signaling.close();
    },
  };
}

/** A client transport on loopback; `answers` collects the server's answer SDPs. */
export function rtcClient(url: string, serverAddress: Address, answers?: string[], maxDatagramSize?: number) {
  return new WebRtcClientTransport({
    signalingUrl: url,
    serverAddress,
    RTCPeerConnection: LoopbackRTCPeerConnection,
    maxDatagramSize,
    connectTimeout: 3,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (answers !== undefined) answers.push(((await response.clone().json()) as { sdp: string }).sdp);
      return response;
    },
  });
}

/** Channels that failed to open and were retried (see openRtcClient). */
export const retries: string[] = [];

/**
 * A client transport whose channel is open. node-datachannel as the offering side sometimes
 * refuses a well-formed answer under CPU contention ("Got a remote candidate without ICE
 * transport"; about 1 connection in 50 alone, more under `npm test`'s parallel load): an
 * application would retry or fall back to WebSocket, and so does this, up to 12 times after a
 * short pause, recording why (at the ~25% of attempts seen failing under load, 5 retries left a
 * run of ~110 connections a few percent likely to fail one; 12 leave it about 1 in 10^6).
 * Browsers offer with their own stack.
 */
export async function openRtcClient(
  url: string,
  serverAddress: Address,
  answers?: string[],
  maxDatagramSize?: number,
): Promise<WebRtcClientTransport> {
  for (let attempt = 0; ; attempt++) {
    const transport = rtcClient(url, serverAddress, answers, maxDatagramSize);
    try {
      await transport.opened;
      return transport;
    } catch (error) {
      transport.close();
      if (attempt === 12) throw error;
      retries.push(String(transport.failure));
      await sleep(20 + 20 * Math.min(attempt, 8));
    }
  }
}
