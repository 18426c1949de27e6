import { type Aead, nobleAead } from '../../src/connection/aead.js';
import { Client, type ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { Server, type ServerDisconnectReason, type ServerOptions } from '../../src/connection/server.js';
import type { Address } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { type LinkConditions, NetworkSimulator } from '../../src/transport/network-simulator.js';
import type { DatagramTransport } from '../../src/transport/transport.js';

export const PROTOCOL_ID = 0x1122334455667788n;
export const PRIVATE_KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
export const UNIX_START = 1_700_000_000;

/** A fixed clock for both the game loop (seconds) and token expiry (unix seconds). */
export class Clock {
  now = 0;
  unix = (): number => UNIX_START + Math.floor(this.now);
}

export interface ServerEvents {
  connects: { index: number; clientId: bigint }[];
  disconnects: { index: number; clientId: bigint; reason: ServerDisconnectReason }[];
  packets: { index: number; bytes: Uint8Array }[];
}

/** A server on `addresses` of `network` (each wrapped in a simulator when `conditions` are given). */
export function makeServer(
  network: MemoryNetwork,
  clock: Clock,
  addresses: string[],
  options: Partial<ServerOptions> & { conditions?: LinkConditions; seed?: number; aead?: Aead } = {},
) {
  const events: ServerEvents = { connects: [], disconnects: [], packets: [] };
  const transports: DatagramTransport[] = addresses.map((a, i) => {
    const t = network.createTransport(a);
    return options.conditions
      ? new NetworkSimulator(t, {
          seed: (options.seed ?? 1) + i,
          outgoing: options.conditions,
          incoming: options.conditions,
        })
      : t;
  });
  const server = new Server({
    protocolId: PROTOCOL_ID,
    privateKey: PRIVATE_KEY,
    publicAddresses: transports.map((t) => t.localAddress),
    transports,
    aead: options.aead ?? nobleAead,
    unixTime: clock.unix,
    onConnect: (index, clientId) => events.connects.push({ index, clientId }),
    onDisconnect: (index, clientId, reason) => events.disconnects.push({ index, clientId, reason }),
    onPacket: (index, data, offset, length) =>
      events.packets.push({ index, bytes: data.slice(offset, offset + length) }),
    ...options,
  });
  return { server, events, transports };
}

export function makeClient(
  network: MemoryNetwork,
  options: { conditions?: LinkConditions; seed?: number; aead?: Aead } = {},
) {
  const states: ClientState[] = [];
  const packets: Uint8Array[] = [];
  const raw = network.createTransport('10.0.0.1:0');
  const transport = options.conditions
    ? new NetworkSimulator(raw, {
        seed: options.seed ?? 99,
        outgoing: options.conditions,
        incoming: options.conditions,
      })
    : raw;
  const client = new Client({
    transport,
    aead: options.aead ?? nobleAead,
    onStateChange: (state) => states.push(state),
    onPacket: (data, offset, length) => packets.push(data.slice(offset, offset + length)),
  });
  return { client, states, packets, transport };
}

export function token(
  clock: Clock,
  clientId: bigint,
  serverAddresses: Address[],
  extra: {
    expireSeconds?: number;
    timeoutSeconds?: number;
    protocolId?: bigint;
    privateKey?: Uint8Array;
  } = {},
): Uint8Array {
  return generateConnectToken({
    protocolId: extra.protocolId ?? PROTOCOL_ID,
    privateKey: extra.privateKey ?? PRIVATE_KEY,
    clientId,
    serverAddresses,
    now: clock.unix(),
    expireSeconds: extra.expireSeconds ?? 30,
    timeoutSeconds: extra.timeoutSeconds ?? 5,
    aead: nobleAead,
  });
}

/** Advances the clock in `dt` steps for `seconds`, updating everything given. */
export function run(
  clock: Clock,
  seconds: number,
  parties: { update(now: number): void }[],
  dt = 1 / 60,
): void {
  const end = clock.now + seconds;
  while (clock.now < end) {
    clock.now += dt;
    for (const p of parties) p.update(clock.now);
  }
}

export { MemoryNetwork };
